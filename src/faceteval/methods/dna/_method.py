"""DnA-Eval: decompose into aspects, score each aspect in its own call, aggregate in code.

Li et al., "DnA-Eval: Enhancing Large Language Model Evaluation through Decomposition and
Aggregation" (Sections 3-4, Appendix B). Aspects are the predefined criteria when there are some,
otherwise ``aspects`` questions generated from the query alone. Each aspect is scored in a separate
call that shows every candidate (pairwise scoring, 1-10). Weights are proposed as percentages from
the query and the aspects alone. The overall score is the weighted sum computed here (Equation 3),
and the verdict the candidate with the highest overall score, 0 on a tie (Equation 4).

Deviations: the paper's aspect prompt asks for "at most three" questions; we ask for exactly
``aspects`` and treat another count as a reply to re-ask. Criteria that all carry a fixed
``weight`` use those weights and skip the weighting call. Every aspect is scored on the method's
scale (a criterion's own ``scale`` is not used here), so that the weighted sum adds like with like.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Literal

from faceteval.aggregation import mean, normalise, weighted_sum
from faceteval.core import Criterion, FacetScore, Instance
from faceteval.core.internal import recorded_modes
from faceteval.errors import ConfigError
from faceteval.methods._base import (
    DEFAULT_SCALE,
    CriterionLike,
    OrderOutcome,
    candidate_labels,
    describe_criteria,
    gather,
    method_criteria,
    method_scale,
    positive_count,
    shown,
    weighted_criteria,
)
from faceteval.methods._context import JudgeContext
from faceteval.parsing import CriteriaParser, ScoreParser, Scores, WeightParser

Aggregate = Literal["weighted", "mean", "prompted"]
AGGREGATES: tuple[Aggregate, ...] = ("weighted", "mean", "prompted")
DEFAULT_ASPECTS = 3


@dataclass(frozen=True, slots=True, init=False)
class DnA:
    """Decompose-and-aggregate judging.

    Attributes:
        aspects: How many aspects to generate per query when no criteria are predefined.
        criteria: Criteria for every instance; they take precedence over an instance's own. Given as
            a list of `Criterion` objects, names or ``{name, description, ...}`` mappings
            (`faceteval.load_criteria` reads a file), stored as a tuple of `Criterion`.
        aggregate: ``weighted`` (LLM-proposed weights, summed here), ``mean`` (no weights), or
            ``prompted`` (the paper's Chain-of-Aspects ablation: the LLM combines the aspect scores).
        scale: The score range of the aspect and overall scores.
    """

    aspects: int = DEFAULT_ASPECTS
    criteria: tuple[Criterion, ...] | None = None
    aggregate: Aggregate = "weighted"
    scale: tuple[float, float] = DEFAULT_SCALE

    name: ClassVar[str] = "dna"

    def __init__(
        self,
        aspects: int = DEFAULT_ASPECTS,
        criteria: Sequence[CriterionLike] | None = None,
        aggregate: Aggregate = "weighted",
        scale: tuple[float, float] = DEFAULT_SCALE,
    ) -> None:
        object.__setattr__(self, "criteria", method_criteria(criteria))
        object.__setattr__(self, "scale", method_scale(scale))
        object.__setattr__(self, "aspects", positive_count(aspects, "aspects"))
        if aggregate not in AGGREGATES:
            raise ConfigError(f"aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
        object.__setattr__(self, "aggregate", aggregate)

    def describe(self) -> dict[str, Any]:
        """Name and parameters."""
        criteria = describe_criteria(self.criteria)
        params = {
            "aspects": self.aspects,
            "criteria": criteria,
            "aggregate": self.aggregate,
            "scale": list(self.scale),
        }
        return {"name": self.name, "params": params}

    def templates(self) -> tuple[str, ...]:
        """Templates of every stage."""
        return ("dna/aspects", "dna/weights", "dna/score", "dna/aggregate", "common/reask")

    def check(self, instance: Instance) -> None:
        """Raises `InstanceError` when criteria of which only some have a weight would be weighted."""
        if self.aggregate == "weighted":
            weighted_criteria(self.criteria or instance.criteria or ())

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """Facets, then weights and per-facet scores concurrently, then the aggregate."""
        self.check(instance)
        facets = self.criteria or instance.criteria or await self._generate_facets(instance.query, ctx)
        labels = candidate_labels(instance.n_candidates)
        scoring: list[Callable[[], Awaitable[Any]]] = [
            partial(_score_facet, self, instance, facet, labels, ctx) for facet in facets
        ]
        if self.aggregate == "weighted":
            scoring.append(partial(self._weights, instance.query, facets, ctx))
        results = await gather(scoring)
        scored: list[Scores] = results[: len(facets)]
        weights: list[float] | None = results[len(facets)] if self.aggregate == "weighted" else None
        matrix = [s.values for s in scored]
        overall_modes = None
        if weights is not None:
            overall = weighted_sum(matrix, weights)
        elif self.aggregate == "mean":
            overall, weights = mean(matrix), [1 / len(facets)] * len(facets)
        else:
            prompted = await self._prompted(instance, facets, matrix, labels, ctx)
            overall, overall_modes = list(prompted.values), recorded_modes(prompted.sources)
        facet_scores = tuple(
            FacetScore(
                name=facet.name,
                description=facet.description or None,
                weight=None if weights is None else weights[j],
                scores=list(scored[j].values),
                explanation=scored[j].explanation or None,
                score_modes=recorded_modes(scored[j].sources),
            )
            for j, facet in enumerate(facets)
        )
        return OrderOutcome(scores=tuple(overall), facets=facet_scores, score_modes=overall_modes)

    async def _generate_facets(self, query: str, ctx: JudgeContext) -> tuple[Criterion, ...]:
        async def generate(sub: JudgeContext) -> tuple[Criterion, ...]:
            messages = ctx.render("dna/aspects", query=query, k=self.aspects)
            return await sub.ask(
                messages, CriteriaParser(self.aspects), stage="dna.aspects", sees_candidates=False
            )

        return await ctx.shared(("dna.aspects", self.aspects, query), generate)

    async def _weights(self, query: str, facets: tuple[Criterion, ...], ctx: JudgeContext) -> list[float]:
        return await facet_weights(query, facets, ctx, stage="dna.weights")

    async def _prompted(
        self,
        instance: Instance,
        facets: tuple[Criterion, ...],
        matrix: list[tuple[float, ...]],
        labels: list[str],
        ctx: JudgeContext,
    ) -> Scores:
        table = [{"name": f.name, "scores": matrix[j]} for j, f in enumerate(facets)]
        messages = ctx.render("dna/aggregate", **shown(instance), facets=table, scale=self.scale)
        parser = ScoreParser(labels, scale=self.scale, position="first", explained=True)
        return await ctx.ask(messages, parser, stage="dna.aggregate")


async def facet_weights(
    query: str, facets: Sequence[Criterion], ctx: JudgeContext, *, stage: str
) -> list[float]:
    """The facets' fixed weights when every one has one, else weights the LLM proposes for ``query``.

    Proposed weights come from the query and the facets alone (DnA-Eval's weighting prompt), once
    per run for each distinct query and facet list.
    """
    fixed = [f.weight for f in facets]
    if all(w is not None for w in fixed) and sum(w for w in fixed if w is not None) > 0:
        return normalise([w for w in fixed if w is not None])
    aspects = [f.describe() for f in facets]

    async def propose(sub: JudgeContext) -> list[float]:
        messages = sub.render("dna/weights", query=query, aspects=aspects)
        parser = WeightParser([f.name for f in facets])
        return list(await sub.ask(messages, parser, stage=stage, sees_candidates=False))

    return await ctx.shared((stage, query, tuple(aspects)), propose)


async def _score_facet(
    method: DnA, instance: Instance, facet: Criterion, labels: list[str], ctx: JudgeContext
) -> Scores:
    messages = ctx.render("dna/score", **shown(instance), aspect=facet.describe(), scale=method.scale)
    parser = ScoreParser(labels, scale=method.scale, explained=True)
    return await ctx.ask(messages, parser, stage="dna.score", facet=facet.name)
