"""The baselines: one call scores every candidate overall (``direct``), or explains first (``cot``).

Each judges with a template: ``generic`` (any number of candidates, any data) or a benchmark's own
(DnA-Eval, Section 4 and Appendix B: "We adopt the same prompting templates from the original
experiment of each benchmark"). ``meta-eval`` on a benchmark that names its prompts
(`faceteval.datasets.Benchmark.prompt_style`) picks its template unless one is given:

- ``llmbar``: LLMBar's Vanilla and CoT comparison prompts with its rules (Zeng et al., 2023; the
  repository's ``LLMEvaluator/evaluators/prompts/comparison/{Vanilla,CoT}.txt``): the reply chooses
  ``Output (a)`` or ``Output (b)``, which scores 1 and the other 0.
- ``faireval``: the Vicuna review prompt FairEval measured (scores first, then an explanation;
  FastChat ``fastchat/eval/table/prompt.jsonl``) and, for ``cot``, FairEval's own evidence-first
  prompt (``FairEval.py``: ``Score of the Assistant 1: <score>`` lines).
- ``mtbench``: MT-Bench's ``pair-v2`` judge prompt (FastChat ``fastchat/llm_judge/data/
  judge_prompts.jsonl``), asking for a score per assistant instead of its ``[[A]]`` verdict, as
  DnA-Eval's baselines score: first (``direct``) or after the explanation (``cot``).

Every template quotes the texts it shows with ``>`` (`faceteval.prompts.fence`) and says so in one
line the originals do not have.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from faceteval.core import Criterion, Instance
from faceteval.core.internal import recorded_modes
from faceteval.datasets import Benchmark
from faceteval.errors import ConfigError, InstanceError
from faceteval.methods._base import (
    DEFAULT_SCALE,
    CriterionLike,
    OrderOutcome,
    candidate_labels,
    describe_criteria,
    method_criteria,
    method_scale,
    shown,
)
from faceteval.methods._context import JudgeContext
from faceteval.methods.baselines._parsers import ChoiceParser, ScoreLinesParser
from faceteval.parsing import ScoreParser

DEFAULT_CRITERIA = ("helpfulness", "relevance", "accuracy", "level of detail")
"""What the generic prompt asks to rate when an instance names no criteria (FairEval, MT-Bench)."""
GENERIC = "generic"
TEMPLATES = (GENERIC, "llmbar", "faireval", "mtbench")
"""The templates a baseline judges with: the generic one, and each benchmark family's own."""
_LABELS = {
    "llmbar": ["Output (a)", "Output (b)"],
    "faireval": ["Assistant 1", "Assistant 2"],
    "mtbench": ["Assistant A", "Assistant B"],
}
"""How a benchmark's own template names the two candidates."""


@dataclass(frozen=True, slots=True, init=False)
class _Holistic:
    criteria: tuple[Criterion, ...] | None = None
    """Criteria named in the generic prompt; else the instance's, else `DEFAULT_CRITERIA`. Given as a
    list of `Criterion` objects, names or ``{name, description, ...}`` mappings
    (`faceteval.load_criteria` reads a file), stored as a tuple of `Criterion`."""
    scale: tuple[float, float] = DEFAULT_SCALE
    template: str | None = None
    """One of `TEMPLATES`; None: the benchmark's own on a benchmark that has one (`for_benchmark`),
    else ``generic``."""

    name: ClassVar[str]
    _position: ClassVar[Literal["first", "last"]]

    def __init__(
        self,
        criteria: Sequence[CriterionLike] | None = None,
        scale: tuple[float, float] = DEFAULT_SCALE,
        template: str | None = None,
    ) -> None:
        if template is not None and template not in TEMPLATES:
            raise ConfigError(f"template must be one of {', '.join(TEMPLATES)}, got {template!r}")
        if template not in (None, GENERIC) and criteria is not None:
            raise ConfigError(
                f"the {template} template names its benchmark's own criteria; criteria apply to the "
                f"generic template (template={GENERIC!r})"
            )
        object.__setattr__(self, "criteria", method_criteria(criteria))
        object.__setattr__(self, "scale", method_scale(scale))
        object.__setattr__(self, "template", template)

    @property
    def style(self) -> str:
        """The template family it judges with (``generic`` when none was chosen)."""
        return self.template or GENERIC

    def describe(self) -> dict[str, Any]:
        """Name and parameters (``template``: None when none was chosen; the record's ``prompts`` name
        the template file it judged with)."""
        criteria = describe_criteria(self.criteria)
        params = {"criteria": criteria, "scale": list(self.scale), "template": self.template}
        return {"name": self.name, "params": params}

    def templates(self) -> tuple[str, ...]:
        """The template used, and the re-ask's."""
        return (self.template_name, "common/reask")

    @property
    def template_name(self) -> str:
        """The prompt template's name: ``direct/score`` (generic), ``direct/llmbar`` ..."""
        return f"{self.name}/{'score' if self.style == GENERIC else self.style}"

    def for_benchmark(self, benchmark: Benchmark) -> _Holistic:
        """This baseline as it judges ``benchmark``: with its own template when it names one and this
        baseline was given neither a template nor criteria (given criteria need the generic one)."""
        if self.template is not None or self.criteria is not None or benchmark.prompt_style not in TEMPLATES:
            return self
        return type(self)(scale=self.scale, template=benchmark.prompt_style)

    def check(self, instance: Instance) -> None:
        """Raises `InstanceError` when a benchmark's template is asked to show other than two candidates."""
        if self.style != GENERIC and instance.n_candidates != 2:
            raise InstanceError(
                f"the {self.style} template compares two outputs, this instance has "
                f"{instance.n_candidates}; judge it with -M template={GENERIC}"
            )

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """One call: an overall score per candidate (a choice, with LLMBar's template)."""
        self.check(instance)
        if self.style == "llmbar":
            messages = ctx.render(self.template_name, **shown(instance))
            choice = await ctx.ask(messages, ChoiceParser(explained=self.name == "cot"), stage=self.name)
            chosen = tuple(1.0 if i == choice.index else 0.0 for i in range(2))
            return OrderOutcome(scores=chosen, explanation=choice.explanation or None)
        labels = _LABELS.get(self.style) or candidate_labels(instance.n_candidates)
        criteria = self.criteria or instance.criteria
        names = [c.name for c in criteria] if criteria else list(DEFAULT_CRITERIA)
        view = shown(instance) | {"labels": labels}
        messages = ctx.render(self.template_name, **view, criteria=names, scale=self.scale)
        parser: ScoreParser
        if self.style == "faireval" and self._position == "last":
            parser = ScoreLinesParser(labels, scale=self.scale)
        else:
            parser = ScoreParser(labels, scale=self.scale, position=self._position, explained=True)
        scores = await ctx.ask(messages, parser, stage=self.name)
        return OrderOutcome(
            scores=scores.values,
            explanation=scores.explanation or None,
            score_modes=recorded_modes(scores.sources),
        )


@dataclass(frozen=True, slots=True, init=False)
class Direct(_Holistic):
    """Direct scoring: overall scores for every candidate in one call, scores first, then a reason.

    The generic prompt is the benchmark style of FairEval and MT-Bench (Vicuna's pairwise review
    prompt), as the DnA-Eval paper's direct-scoring baseline uses; ``template`` picks a benchmark's own.
    """

    name: ClassVar[str] = "direct"
    _position: ClassVar[Literal["first", "last"]] = "first"


@dataclass(frozen=True, slots=True, init=False)
class CoT(_Holistic):
    """Chain-of-thought scoring: the explanation first, then overall scores on the last line."""

    name: ClassVar[str] = "cot"
    _position: ClassVar[Literal["first", "last"]] = "last"
