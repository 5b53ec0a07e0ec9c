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

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from faceteval.core import Criterion, FacetScore, Instance
from faceteval.errors import InstanceError, ParseError
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
from faceteval.parsing import ScoreParser
from faceteval.parsing._numbers import (
    OUT_OF,
    RANGE_END,
    denominator_problem,
    describe_range,
    fmt,
    range_problem,
)
from faceteval.parsing._text import quote
from faceteval.prompts import render

COEVAL_SCALE = (1.0, 5.0)
DEFAULT_TASK = "The task is to generate a response to a user's instruction."
"""The task description when neither the method nor the instance gives one (the paper's Self-Instruct one)."""

_CRITERION_FORM = ("conclusion", "score", "evidence")
_OVERALL_FORM = ("conclusion", "score")
_KINDS = {"conclusion": "conclusion", "explanation": "conclusion", "reasoning": "conclusion"}
_KINDS |= {"score": "score", "rating": "score", "evidence": "evidence"}
_LEAD = re.compile(r"(?:#{1,6}[ \t]*|>[ \t]*)?(?:[*_]{1,3}(?=\S))?")
_ITEM = re.compile(r"(\d{1,2})[.)](?:[ \t]+|(?=[*_])|$)")
_LABEL = re.compile(
    r"(?:[*_]{1,3}(?=\S))?(?:(?:overall|final|evaluation)[ \t]+)?"
    r"(conclusion|explanation|reasoning|score|rating|evidence)s?[*_]*"
    r"[ \t]*(?:\([^)\n]*\)[ \t]*)?[*_]*[ \t]*(?:[:：][*_]*[ \t]*|$)",
    re.IGNORECASE,
)
_NUM = r"\d+(?:\.\d+)?"
_SCALE_MENTION = re.compile(
    rf"\(\s*{_NUM}\s*(?:-|–|to)\s*{_NUM}\s*\)|(?:on\s+)?(?:a\s+)?scale\s+(?:of|from)\s+{_NUM}\s*(?:-|–|to)\s*{_NUM}",
    re.IGNORECASE,
)
_FIRST = re.compile(rf"(?<![\w.])[-+]?{_NUM}(?!\w)")
_BULLET = re.compile(r"^(?:[-*•]|\d{1,2}[.)])[ \t]+")


@dataclass(frozen=True, slots=True)
class CriterionEvaluation:
    """What one criterion evaluation of one candidate said (a trace's ``parsed`` value).

    Attributes:
        criterion: The criterion's name.
        candidate: The candidate evaluated, 1-based in the instance's original order.
        score: The score, on the criterion's scale.
        conclusion: The conclusion, as written.
        score_text: The score part as written ("I would assign a score of 4 ...").
        evidence: The evidence items as written, bullets removed.
        explanation: The whole reply (the assistant turn of the overall call's history).
    """

    criterion: str
    candidate: int
    score: float
    conclusion: str
    score_text: str
    evidence: tuple[str, ...]
    explanation: str

    def summary(self) -> str:
        """The evaluation as ``Conclusion: ...``, ``Score: ...``, ``Evidence:`` + ``- item`` lines."""
        parts = [f"Conclusion: {self.conclusion}"] if self.conclusion else []
        parts.append(f"Score: {self.score_text}")
        if self.evidence:
            parts.append("Evidence:\n" + "\n".join(f"- {item}" for item in self.evidence))
        return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class OverallEvaluation:
    """The overall score of one candidate and the reasoning behind it (a trace's ``parsed`` value).

    Attributes:
        candidate: The candidate, 1-based in the instance's original order.
        score: The overall score.
        reasoning: The explanation part of the reply ("" when it gives none).
        explanation: The whole reply.
    """

    candidate: int
    score: float
    reasoning: str
    explanation: str


@dataclass(frozen=True, slots=True)
class _Reading:
    score: float
    parts: dict[str, str]
    preamble: str


@dataclass(frozen=True, slots=True)
class _Form:
    """How a reply is laid out: its numbered parts, and whether a bare number may open it."""

    items: tuple[str, ...]
    scale: tuple[float, float]
    opens_with_score: bool = False

    def read(self, text: str) -> _Reading:
        """The score (Appendix C) and the parts of ``text``; raises `ParseError`."""
        if not text.strip():
            raise ParseError("the reply is empty", raw=text)
        preamble, parts = self._parts(text)
        if "score" not in parts and self.opens_with_score and _FIRST.match(text.lstrip(" \t\n*_#")):
            first, _, rest = text.strip().partition("\n")
            preamble, parts = rest.strip(), {"score": first}
        if "score" in parts:
            return _Reading(self._score(parts["score"], text), parts, preamble)
        around = "\n".join(p for p in (preamble, parts.get("conclusion", "")) if p) or text
        scores = ScoreParser(["Output"], scale=self.scale, explained=True).parse(around)
        if "conclusion" not in parts:
            parts["conclusion"] = scores.explanation
        return _Reading(scores.values[0], parts | {"score": fmt(scores.values[0])}, "")

    def _parts(self, text: str) -> tuple[str, dict[str, str]]:
        """The text before the first part, and each part's text by kind.

        A part opens at its label ("Score:"), or at the next item number of the form ("2.") when no
        line carries that part's label (so a numbered list inside a part stays in it).
        """
        lines = text.splitlines()
        heads = [_head(line) for line in lines]
        labelled = {head[1] for head in heads if head is not None and head[1] is not None}
        found: dict[str, list[str]] = {}
        current: list[str] = []
        preamble, following = current, 1
        for line, head in zip(lines, heads, strict=True):
            kind = None
            if head is not None:
                number, label, rest = head
                if number is not None and number == following <= len(self.items):
                    kind = self.items[number - 1]
                    following += 1
                kind = label or (kind if kind not in labelled else None)
            if kind is not None and kind not in found:
                current = found[kind] = [rest]
            else:
                current.append(line)
        return "\n".join(preamble).strip(), {k: "\n".join(v).strip() for k, v in found.items()}

    def _score(self, part: str, text: str) -> float:
        low, high = self.scale
        plain = _SCALE_MENTION.sub(" ", part)
        for written in OUT_OF.finditer(plain):
            if problem := denominator_problem(
                f"the score ({quote(part)})", written["denominator"], self.scale
            ):
                raise ParseError(problem, raw=text)
        plain = OUT_OF.sub(" ", plain)
        number = _FIRST.search(plain)
        if number is None:
            raise ParseError(f"the score part of the reply ({quote(part)}) holds no number", raw=text)
        if RANGE_END.match(plain, number.end()):
            raise ParseError(range_problem(f"the score part ({quote(part)})"), raw=text)
        value = float(number[0])
        if not low <= value <= high:
            raise ParseError(f"score {number[0]} is outside {describe_range(low, high)}", raw=text)
        return value


def _head(line: str) -> tuple[int | None, str | None, str] | None:
    """A line that may open a part: its item number, its label kind, and the text after them."""
    if len(line) - len(line.lstrip(" \t")) > 1:
        return None
    rest = _LEAD.sub("", line.strip(), count=1)
    number = None
    if item := _ITEM.match(rest):
        number, rest = int(item[1]), rest[item.end() :]
    label = None
    if named := _LABEL.match(rest):
        label, rest = _KINDS[named[1].lower()], rest[named.end() :]
    if number is None and label is None:
        return None
    return number, label, rest.strip()


def _evidence(part: str) -> tuple[str, ...]:
    """Evidence items: one per bullet (continuation lines joined), or the whole part when unbulleted."""
    items: list[str] = []
    for line in part.splitlines():
        if bullet := _BULLET.match(line.strip()):
            items.append(line.strip()[bullet.end() :])
        elif items and line.strip():
            items[-1] = f"{items[-1]}\n{line.strip()}"
        elif line.strip():
            items.append(line.strip())
    return tuple(items)


def _scale_words(scale: tuple[float, float]) -> str:
    return f"one number from {fmt(scale[0])} to {fmt(scale[1])}"


@dataclass(frozen=True, slots=True)
class CriterionParser:
    """Reads a criterion evaluation: conclusion, score (Appendix C) and evidence.

    Examples:
        >>> reply = '1. Conclusion: Plain words.\\n2. Score: 4/5\\n3. Evidence:\\n- "It is wet."'
        >>> CriterionParser("Clarity", 1, (1, 5)).parse(reply).evidence
        ('"It is wet."',)
    """

    criterion: str
    candidate: int
    scale: tuple[float, float]

    @property
    def instructions(self) -> str:
        """The reply format."""
        return (
            "Reply in three numbered parts: 1. Conclusion: whether the output satisfies the criterion, "
            f"with explanations; 2. Score: {_scale_words(self.scale)}; 3. Evidence: sentences quoted "
            "from the output, one per line."
        )

    def parse(self, text: str) -> CriterionEvaluation:
        """Read ``text``; raises `ParseError`."""
        reading = _Form(_CRITERION_FORM, self.scale).read(text)
        return CriterionEvaluation(
            criterion=self.criterion,
            candidate=self.candidate,
            score=reading.score,
            conclusion=reading.parts.get("conclusion") or reading.preamble,
            score_text=reading.parts["score"],
            evidence=_evidence(reading.parts.get("evidence", "")),
            explanation=text.strip(),
        )

    def example(self) -> str:
        """A well-formed reply of typical length."""
        score = fmt(round(self.scale[0] + 0.67 * (self.scale[1] - self.scale[0])))
        return (
            "1. Conclusion: The output mostly satisfies the criterion. It answers the main point of the "
            "input directly and in plain words, although one passage is vaguer than the rest and leaves "
            "a step of the explanation to the reader.\n\n"
            f"2. Score: {score}\n\n"
            "3. Evidence:\n"
            '- "The first sentence answers the question directly." This sentence meets the criterion.\n'
            '- "It works a bit like a sponge soaking up water." This comparison makes the idea concrete.\n'
            '- "Several other things also play a part." This sentence is vague and weakens the answer.'
        )


@dataclass(frozen=True, slots=True)
class OverallParser:
    """Reads an overall evaluation (the multi-turn question, or with ``direct`` the straightforward one)."""

    candidate: int
    scale: tuple[float, float]
    direct: bool = False

    @property
    def instructions(self) -> str:
        """The reply format."""
        if self.direct:
            return f"Reply with the overall score, {_scale_words(self.scale)}, on the first line."
        return (
            "Reply in two numbered parts: 1. your explanation of the overall quality of the output; "
            f"2. Score: {_scale_words(self.scale)}."
        )

    def parse(self, text: str) -> OverallEvaluation:
        """Read ``text``; raises `ParseError`."""
        form = (
            _Form((), self.scale, opens_with_score=True) if self.direct else _Form(_OVERALL_FORM, self.scale)
        )
        reading = form.read(text)
        reasoning = reading.parts.get("conclusion") or reading.preamble
        return OverallEvaluation(self.candidate, reading.score, reasoning, text.strip())

    def example(self) -> str:
        """A well-formed reply of typical length."""
        score = fmt(round(self.scale[0] + 0.67 * (self.scale[1] - self.scale[0])))
        if self.direct:
            return score
        return (
            "1. The output meets most of the criteria: it is accurate and easy to follow, and its "
            "comparison makes the idea concrete. One vague passage and a missing step keep it from the "
            f"top score.\n\n2. Score: {score}"
        )


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
            )
            for j, criterion in enumerate(criteria)
        )
        reasons = _joined({overall.candidate: overall.reasoning for _, overall in evaluated})
        scores = tuple(overall.score for _, overall in evaluated)
        return OrderOutcome(scores=scores, facets=facets, explanation=reasons.strip() or None)

    async def _candidate(
        self,
        task: str,
        query: str,
        output: str,
        number: int,
        criteria: Sequence[Criterion],
        ctx: JudgeContext,
    ) -> tuple[list[CriterionEvaluation], OverallEvaluation]:
        prompts = [self._prompt(task, query, output, criterion) for criterion in criteria]
        asks = [
            partial(
                ctx.ask,
                prompt,
                CriterionParser(c.name, number, c.scale or self.scale),
                stage="coeval.criterion",
            )
            for prompt, c in zip(prompts, criteria, strict=True)
        ]
        evaluations: list[CriterionEvaluation] = await gather(asks)
        history: list[Message] = []
        for prompt, evaluation in zip(prompts, evaluations, strict=True):
            history += [*prompt, assistant(evaluation.explanation)]
        question = render("coeval/overall", low=fmt(self.scale[0]), high=fmt(self.scale[1]))
        overall = await ctx.ask(
            [*history, *question], OverallParser(number, self.scale), stage="coeval.overall"
        )
        return evaluations, overall

    def _prompt(self, task: str, query: str, output: str, criterion: Criterion) -> tuple[Message, ...]:
        return render(
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
                render("coeval/direct", **_shown(task, instance.query, text, self.scale)),
                OverallParser(number, self.scale, direct=True),
                stage=self.name,
            )
            for text, number in zip(instance.candidates, _originals(instance, ctx), strict=True)
        ]
        overall: list[OverallEvaluation] = await gather(asks)
        reasons = _joined({o.candidate: o.reasoning for o in overall})
        return OrderOutcome(scores=tuple(o.score for o in overall), explanation=reasons.strip() or None)
