"""The toy method: one call scores every candidate, under a system message of the strictness asked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from faceteval import Instance
from faceteval.methods import JudgeContext, OrderOutcome
from faceteval.methods.internal import candidate_labels
from faceteval.parsing import ScoreParser
from faceteval.prompts import render


@dataclass(frozen=True, slots=True)
class Toy:
    """Scores every candidate 1-10 in one call.

    Attributes:
        strictness: How strict the judge is told to be, 1-5.
    """

    strictness: int = 1

    name: ClassVar[str] = "toy"

    def describe(self) -> dict[str, Any]:
        """Name and parameters."""
        return {"name": self.name, "params": {"strictness": self.strictness}}

    def templates(self) -> tuple[str, ...]:
        """The one template, and the re-ask."""
        return ("toy/score", "common/reask")

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """One call: a score per candidate."""
        labels = candidate_labels(instance.n_candidates)
        messages = render(
            "toy/score",
            query=instance.query,
            candidates=instance.candidates,
            labels=labels,
            strictness=self.strictness,
        )
        scores = await ctx.ask(messages, ScoreParser(labels, scale=(1.0, 10.0)), stage="toy.score")
        return OrderOutcome(scores=scores.values)
