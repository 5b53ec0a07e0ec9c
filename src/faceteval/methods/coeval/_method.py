"""CoEval: evaluate one criterion at a time, then the overall quality with those evaluations in view.

Li et al., "Collaborative Evaluation: Exploring the Synergy of Large Language Models and Humans for
Open-ended Generation Evaluation" (Section 5.1, Appendices A and C). Each criterion gets its own call
asking for a conclusion, a score on the criterion's scale (1-5, or 1-3 where a criterion says so) and
evidence quoted from the output. The overall score is asked for in one more call whose history holds
every criterion evaluation as user/assistant turns. ``coeval-direct`` is the paper's straightforward
baseline: one call, an overall score, no criteria. Both are pointwise: with several candidates each
is evaluated on its own, and the verdict follows the overall scores.

Scores are read as Appendix C says: the score part of the reply (the "2." item, or a "Score:" line)
loses "out of N" and "/N" (and scale mentions such as "(1-5)"), and its first number is the score.
Where the reply has no score part, the project's `ScoreParser` reads it. A denominator other than
the scale's top, a range ("4-5"), or a score off the scale is a parse failure (re-asked once), never
repaired. Read this way, ChatGPT's 3,380 recorded evaluations in CoEval's data give their recorded
scores except 39, whose recorded 1 is the "1." of a reply opening "Evaluation:\n\n1." (the paper's
first-number rule applied to the whole reply); the score those replies state is read instead.

Each criterion becomes a facet whose explanation is ``Conclusion: ...``, ``Score: ...`` and
``Evidence:`` with one ``- item`` line per quote, each as written (`CriterionEvaluation.summary`),
under a ``Response k:`` line per candidate when there are several. The trace's ``parsed`` values
keep the parts apart: ``criterion``, ``candidate``, ``score``, ``conclusion``, ``score_text``,
``evidence`` for a criterion; ``candidate``, ``score``, ``reasoning`` for the overall call.

Deviations: the paper's step list has no evidence step; step 3 ("List evidence by quoting sentences
of the output ...") is the authors' released prompt, whose recorded evaluations follow it. The
overall question's history starts with the first criterion turn, which already shows the task, the
input and the output; its "Please an overall score" reads "Please give an overall score". Texts
are fenced. A criterion's ``guideline`` is shown when it has one; a reference answer is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from faceteval._util.numbers import fmt
from faceteval.core import Criterion, FacetScore, Instance
from faceteval.core.internal import recorded_modes
from faceteval.errors import InstanceError
from faceteval.llm import Message, assistant
from faceteval.methods._base import (
    CriterionLike,
    OrderOutcome,
    describe_criteria,
    gather,
    method_criteria,
    method_scale,
)
from faceteval.methods._context import JudgeContext
from faceteval.methods.coeval._parsers import (
    CriterionEvaluation,
    CriterionParser,
    OverallEvaluation,
    OverallParser,
)

COEVAL_SCALE = (1.0, 5.0)
DEFAULT_TASK = "The task is to generate a response to a user's instruction."
"""The task description when neither the method nor the instance gives one (the paper's Self-Instruct one)."""


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _shown(task: str, query: str, output: str, scale: tuple[float, float]) -> dict[str, Any]:
    return {"task": task, "query": query, "output": output, "low": fmt(scale[0]), "high": fmt(scale[1])}


def _originals(instance: Instance, ctx: JudgeContext) -> list[int]:
    """Each presented candidate's 1-based number in the instance's original order."""
    order = ctx.order or tuple(range(instance.n_candidates))
    return [i + 1 for i in order]


def _joined(texts: dict[int, str]) -> str:
    """One text per candidate, headed ``Response k:`` (original numbering) when there are several."""
    if len(texts) == 1:
        return next(iter(texts.values()))
    return "\n\n".join(f"Response {k}:\n{texts[k]}" for k in sorted(texts))


@dataclass(frozen=True, slots=True, init=False)
class CoEval:
    """CoEval's step-by-step evaluation: one call per criterion, then an overall call over them.

    Attributes:
        criteria: Criteria for every instance; they take precedence over an instance's own. Without
            either, judging fails before any call. Given as a list of `Criterion` objects, names or
            ``{name, description, ...}`` mappings (`faceteval.load_criteria` reads a file), stored as
            a tuple of `Criterion`.
        task: The task description for every instance; else the instance's ``task``, else
            `DEFAULT_TASK`.
        scale: The overall score's range, and each criterion's unless it has its own ``scale``.
    """

    criteria: tuple[Criterion, ...] | None = None
    task: str | None = None
    scale: tuple[float, float] = COEVAL_SCALE

    name: ClassVar[str] = "coeval"

    def __init__(
        self,
        criteria: Sequence[CriterionLike] | None = None,
        task: str | None = None,
        scale: tuple[float, float] = COEVAL_SCALE,
    ) -> None:
        object.__setattr__(self, "criteria", method_criteria(criteria))
        object.__setattr__(self, "task", task)
        object.__setattr__(self, "scale", method_scale(scale))

    def describe(self) -> dict[str, Any]:
        """Name and parameters."""
        params = {"criteria": describe_criteria(self.criteria), "task": self.task, "scale": list(self.scale)}
        return {"name": self.name, "params": params}

    def templates(self) -> tuple[str, ...]:
        """The criterion and overall templates, and the re-ask."""
        return ("coeval/criterion", "coeval/overall", "common/reask")

    def check(self, instance: Instance) -> None:
        """Raises `InstanceError` when neither the method nor the instance has criteria."""
        if not (self.criteria or instance.criteria):
            raise InstanceError(
                "coeval evaluates criteria, but this instance has none: pass --criteria FILE "
                "(criteria=... in Python) or give the instances a 'criteria' list"
            )

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """Every candidate on its own: criteria concurrently, then the overall call.

        Raises:
            InstanceError: See `check` (before any call).
        """
        self.check(instance)
        criteria = self.criteria or instance.criteria or ()
        task = _sentence(self.task or instance.task or DEFAULT_TASK)
        numbers = _originals(instance, ctx)
        evaluated = await gather(
            [
                partial(self._candidate, task, instance.query, text, number, criteria, ctx)
                for text, number in zip(instance.candidates, numbers, strict=True)
            ]
        )
        facets = tuple(
            FacetScore(
                name=criterion.name,
                description=criterion.description or None,
                scores=[per[j].score for per, _ in evaluated],
                explanation=_joined({per[j].candidate: per[j].summary() for per, _ in evaluated}),
                score_modes=recorded_modes([per[j].source for per, _ in evaluated]),
            )
            for j, criterion in enumerate(criteria)
        )
        reasons = _joined({overall.candidate: overall.reasoning for _, overall in evaluated})
        scores = tuple(overall.score for _, overall in evaluated)
        modes = recorded_modes([overall.source for _, overall in evaluated])
        return OrderOutcome(
            scores=scores, facets=facets, explanation=reasons.strip() or None, score_modes=modes
        )

    async def _candidate(
        self,
        task: str,
        query: str,
        output: str,
        number: int,
        criteria: Sequence[Criterion],
        ctx: JudgeContext,
    ) -> tuple[list[CriterionEvaluation], OverallEvaluation]:
        prompts = [self._prompt(task, query, output, criterion, ctx) for criterion in criteria]
        asks = [
            partial(
                ctx.ask,
                prompt,
                CriterionParser(c.name, number, c.scale or self.scale),
                stage="coeval.criterion",
                facet=c.name,
            )
            for prompt, c in zip(prompts, criteria, strict=True)
        ]
        evaluations: list[CriterionEvaluation] = await gather(asks)
        history: list[Message] = []
        for prompt, evaluation in zip(prompts, evaluations, strict=True):
            history += [*prompt, assistant(evaluation.explanation)]
        question = ctx.render("coeval/overall", low=fmt(self.scale[0]), high=fmt(self.scale[1]))
        overall = await ctx.ask(
            [*history, *question], OverallParser(number, self.scale), stage="coeval.overall"
        )
        return evaluations, overall

    def _prompt(
        self, task: str, query: str, output: str, criterion: Criterion, ctx: JudgeContext
    ) -> tuple[Message, ...]:
        return ctx.render(
            "coeval/criterion",
            **_shown(task, query, output, criterion.scale or self.scale),
            criterion=criterion.describe(),
            guideline=criterion.guideline,
        )


@dataclass(frozen=True, slots=True)
class CoEvalDirect:
    """CoEval's straightforward baseline: an overall score per candidate in one call, no criteria.

    Attributes:
        task: The task description for every instance; else the instance's ``task``, else
            `DEFAULT_TASK`.
        scale: The overall score's range (the paper's 1 to 5).
    """

    task: str | None = None
    scale: tuple[float, float] = COEVAL_SCALE

    name: ClassVar[str] = "coeval-direct"

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", method_scale(self.scale))

    def describe(self) -> dict[str, Any]:
        """Name and parameters."""
        return {"name": self.name, "params": {"task": self.task, "scale": list(self.scale)}}

    def templates(self) -> tuple[str, ...]:
        """The straightforward template, and the re-ask."""
        return ("coeval/direct", "common/reask")

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """One call per candidate."""
        task = _sentence(self.task or instance.task or DEFAULT_TASK)
        asks = [
            partial(
                ctx.ask,
                ctx.render("coeval/direct", **_shown(task, instance.query, text, self.scale)),
                OverallParser(number, self.scale, direct=True),
                stage=self.name,
            )
            for text, number in zip(instance.candidates, _originals(instance, ctx), strict=True)
        ]
        overall: list[OverallEvaluation] = await gather(asks)
        reasons = _joined({o.candidate: o.reasoning for o in overall})
        return OrderOutcome(
            scores=tuple(o.score for o in overall),
            explanation=reasons.strip() or None,
            score_modes=recorded_modes([o.source for o in overall]),
        )
