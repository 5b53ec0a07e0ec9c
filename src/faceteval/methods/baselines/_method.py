"""The baselines: one call scores every candidate overall (``direct``), or explains first (``cot``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from faceteval.core import Criterion, Instance, recorded_modes
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
from faceteval.parsing import ScoreParser
from faceteval.prompts import render

DEFAULT_CRITERIA = ("helpfulness", "relevance", "accuracy", "level of detail")
"""What the benchmark-style prompt asks to rate when an instance names no criteria (FairEval, MT-Bench)."""


@dataclass(frozen=True, slots=True, init=False)
class _Holistic:
    criteria: tuple[Criterion, ...] | None = None
    """Criteria named in the prompt; else the instance's, else `DEFAULT_CRITERIA`. Given as a list of
    `Criterion` objects, names or ``{name, description, ...}`` mappings (`faceteval.load_criteria` reads
    a file), stored as a tuple of `Criterion`."""
    scale: tuple[float, float] = DEFAULT_SCALE

    name: ClassVar[str]
    _template: ClassVar[str]
    _position: ClassVar[Literal["first", "last"]]

    def __init__(
        self, criteria: Sequence[CriterionLike] | None = None, scale: tuple[float, float] = DEFAULT_SCALE
    ) -> None:
        object.__setattr__(self, "criteria", method_criteria(criteria))
        object.__setattr__(self, "scale", method_scale(scale))

    def describe(self) -> dict[str, Any]:
        """Name and parameters."""
        criteria = describe_criteria(self.criteria)
        return {"name": self.name, "params": {"criteria": criteria, "scale": list(self.scale)}}

    def templates(self) -> tuple[str, ...]:
        """The one template used."""
        return (self._template,)

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """One call: an overall score per candidate."""
        labels = candidate_labels(instance.n_candidates)
        criteria = self.criteria or instance.criteria
        names = [c.name for c in criteria] if criteria else list(DEFAULT_CRITERIA)
        messages = render(self._template, **shown(instance), criteria=names, scale=self.scale)
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

    The prompt is the benchmark style of FairEval and MT-Bench (Vicuna's pairwise review prompt),
    as the DnA-Eval paper's direct-scoring baseline uses.
    """

    name: ClassVar[str] = "direct"
    _template: ClassVar[str] = "direct/score"
    _position: ClassVar[Literal["first", "last"]] = "first"


@dataclass(frozen=True, slots=True, init=False)
class CoT(_Holistic):
    """Chain-of-thought scoring: the explanation first, then overall scores on the last line."""

    name: ClassVar[str] = "cot"
    _template: ClassVar[str] = "cot/score"
    _position: ClassVar[Literal["first", "last"]] = "last"
