"""Fennec: branch into criteria, write a scoring guideline for each, judge each, aggregate in code.

Liang et al., "Fennec: Fine-grained Language Model Evaluation and Correction Extended through
Branching and Bridging" (Sections 3.1, Appendix A.1, Tables 7 and 9). Per distinct query, N
evaluation criteria are generated from the query alone ("Criteria" prompt); per criterion a 1-5
scoring guideline from the query and the criterion ("Scoring Guidelines"); then per criterion one
judgment. Pairwise-eval shows both responses and asks for a score and explanation for each and a
comparison; single-eval (``single``) shows one response at a time. Each step has its own system
message (Table 7). The per-criterion scores are aggregated here: summed (the paper's
``sum_i Y_j,i``), averaged, or weighted; the verdict is the response with the higher total, a tie
when equal.

Deviations: the criteria prompt asks for ``criteria_count`` criteria (the paper fixes five) as a
numbered "Name: description" list, and its second illustration is named "Accuracy" (the paper's text
repeats the word "Criterion" there). With more than two responses the pairwise prompt names them A,
B, C, ...; with one response, single-eval is used. A reference answer, when an instance has one, is
shown to the judge. Predefined criteria (``criteria``, or the instance's own) replace the generated
ones, and a criterion's own ``guideline`` replaces the generated guideline. ``weighted`` uses the
criteria's fixed weights when all have one, else weights proposed from the query and criteria alone
(DnA-Eval's weighting prompt).
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Literal

from faceteval.aggregation import mean, total, weighted_sum
from faceteval.core import Criterion, FacetScore, Instance
from faceteval.core.internal import recorded_modes
from faceteval.errors import ConfigError, InstanceError
from faceteval.methods._base import (
    CriterionLike,
    OrderOutcome,
    describe_criteria,
    gather,
    method_criteria,
    positive_count,
    weighted_criteria,
)
from faceteval.methods._context import JudgeContext
from faceteval.methods.dna import facet_weights
from faceteval.methods.fennec._parsers import (
    FENNEC_SCALE,
    FennecCriteriaParser,
    GuidelineParser,
    Judged,
    JudgeResultParser,
)

FennecAggregate = Literal["sum", "mean", "weighted"]
FENNEC_AGGREGATES: tuple[FennecAggregate, ...] = ("sum", "mean", "weighted")
DEFAULT_CRITERIA_COUNT = 5


def response_labels(n: int) -> list[str]:
    """How Fennec's prompts name the responses: ``Response A``, ``Response B``, ... or ``Response``.

    Examples:
        >>> response_labels(2), response_labels(1)
        (['Response A', 'Response B'], ['Response'])
    """
    if n == 1:
        return ["Response"]
    if n > len(string.ascii_uppercase):
        raise InstanceError(f"fennec names at most {len(string.ascii_uppercase)} responses, got {n}")
    return [f"Response {letter}" for letter in string.ascii_uppercase[:n]]


@dataclass(frozen=True, slots=True, init=False)
class Fennec:
    """Branching judge: criteria, scoring guidelines, per-criterion judgments, aggregate in code.

    Attributes:
        criteria_count: Criteria to generate per query when none are predefined (the paper's N).
        criteria: Criteria for every instance; they take precedence over an instance's own. Given as
            a list of `Criterion` objects, names or ``{name, description, ...}`` mappings
            (`faceteval.load_criteria` reads a file), stored as a tuple of `Criterion`.
        aggregate: ``sum`` (the paper), ``mean``, or ``weighted`` across criteria.
        single: Judge each response on its own (single-eval) instead of side by side (pairwise-eval).
    """

    criteria_count: int = DEFAULT_CRITERIA_COUNT
    criteria: tuple[Criterion, ...] | None = None
    aggregate: FennecAggregate = "sum"
    single: bool = False

    name: ClassVar[str] = "fennec"

    def __init__(
        self,
        criteria_count: int = DEFAULT_CRITERIA_COUNT,
        criteria: Sequence[CriterionLike] | None = None,
        aggregate: FennecAggregate = "sum",
        single: bool = False,
    ) -> None:
        object.__setattr__(self, "criteria", method_criteria(criteria))
        object.__setattr__(self, "criteria_count", positive_count(criteria_count, "criteria_count"))
        if aggregate not in FENNEC_AGGREGATES:
            raise ConfigError(f"aggregate must be one of {', '.join(FENNEC_AGGREGATES)}, got {aggregate!r}")
        object.__setattr__(self, "aggregate", aggregate)
        object.__setattr__(self, "single", single)

    def describe(self) -> dict[str, Any]:
        """Name and parameters."""
        params = {
            "criteria_count": self.criteria_count,
            "criteria": describe_criteria(self.criteria),
            "aggregate": self.aggregate,
            "single": self.single,
        }
        return {"name": self.name, "params": params}

    def templates(self) -> tuple[str, ...]:
        """Templates of every stage."""
        return (
            "fennec/criteria",
            "fennec/guideline",
            "fennec/pairwise",
            "fennec/single",
            "dna/weights",
            "common/reask",
        )

    def check(self, instance: Instance) -> None:
        """Raises `InstanceError` for more responses than pairwise-eval can name, or for criteria of
        which only some have a weight under ``weighted``."""
        if not self.single:
            response_labels(instance.n_candidates)
        if self.aggregate == "weighted":
            weighted_criteria(self.criteria or instance.criteria or ())

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """Criteria, then guidelines, then one judgment per criterion (and weights), then the aggregate.

        Raises:
            InstanceError: See `check` (before any call).
        """
        self.check(instance)
        criteria = self.criteria or instance.criteria or await self.generate_criteria(instance.query, ctx)
        guided: list[Criterion] = await gather(
            [partial(self.guideline, instance.query, criterion, ctx) for criterion in criteria]
        )
        judging: list[Any] = [partial(self.judge_criterion, instance, c, ctx) for c in guided]
        if self.aggregate == "weighted":
            judging.append(partial(facet_weights, instance.query, guided, ctx, stage="fennec.weights"))
        results = await gather(judging)
        judged: list[Judged] = results[: len(guided)]
        matrix = [list(j.values) for j in judged]
        weights: list[float] | None = None
        if self.aggregate == "weighted":
            weights = results[len(guided)]
            overall = weighted_sum(matrix, weights)
        elif self.aggregate == "mean":
            overall, weights = mean(matrix), [1 / len(guided)] * len(guided)
        else:
            overall = total(matrix)
        facets = tuple(
            FacetScore(
                name=criterion.name,
                weight=None if weights is None else weights[j],
                scores=list(judged[j].values),
                explanation=judged[j].comparison,
                description=criterion.description or None,
                guideline=criterion.guideline,
                explanations=list(judged[j].explanations),
                score_modes=recorded_modes(judged[j].sources),
            )
            for j, criterion in enumerate(guided)
        )
        return OrderOutcome(scores=tuple(overall), facets=facets)

    async def generate_criteria(self, query: str, ctx: JudgeContext) -> tuple[Criterion, ...]:
        """``criteria_count`` criteria for ``query`` (once per run for each distinct query)."""

        async def generate(sub: JudgeContext) -> tuple[Criterion, ...]:
            messages = ctx.render("fennec/criteria", query=query, count=self.criteria_count)
            parser = FennecCriteriaParser(self.criteria_count)
            return await sub.ask(messages, parser, stage="fennec.criteria", sees_candidates=False)

        return await ctx.shared(("fennec.criteria", self.criteria_count, query), generate)

    async def guideline(self, query: str, criterion: Criterion, ctx: JudgeContext) -> Criterion:
        """``criterion`` with its 1-5 scoring guideline for ``query`` (its own, else generated once)."""
        if criterion.guideline:
            return criterion
        shown = criterion.describe()

        async def write(sub: JudgeContext) -> str:
            messages = ctx.render("fennec/guideline", query=query, criterion=shown)
            return await sub.ask(messages, GuidelineParser(), stage="fennec.guideline", sees_candidates=False)

        text = await ctx.shared(("fennec.guideline", query, shown), write)
        return criterion.model_copy(update={"guideline": text})

    async def judge_criterion(self, instance: Instance, criterion: Criterion, ctx: JudgeContext) -> Judged:
        """Every response's score and explanation on ``criterion`` (which carries its guideline)."""
        if self.single or instance.n_candidates == 1:
            singles = await gather(
                [partial(self._single, instance, criterion, text, ctx) for text in instance.candidates]
            )
            sources = [s.sources[0] if s.sources else None for s in singles]
            return Judged(
                values=tuple(s.values[0] for s in singles),
                explanations=tuple(s.explanations[0] for s in singles),
                sources=None if all(s is None for s in sources) else tuple(sources),
            )
        labels = response_labels(instance.n_candidates)
        messages = ctx.render(
            "fennec/pairwise",
            query=instance.query,
            criterion=criterion.describe(),
            guideline=criterion.guideline,
            candidates=instance.candidates,
            labels=labels,
            letters=[label.rsplit(" ", 1)[-1] for label in labels],
            reference=instance.reference,
        )
        parser = JudgeResultParser(labels, FENNEC_SCALE)
        return await ctx.ask(messages, parser, stage="fennec.pairwise", facet=criterion.name)

    async def _single(self, instance: Instance, criterion: Criterion, text: str, ctx: JudgeContext) -> Judged:
        shown = criterion.describe()

        async def judge(sub: JudgeContext) -> Judged:
            messages = ctx.render(
                "fennec/single",
                query=instance.query,
                criterion=shown,
                guideline=criterion.guideline,
                response=text,
                reference=instance.reference,
            )
            parser = JudgeResultParser(["Response"], FENNEC_SCALE)
            return await sub.ask(
                messages, parser, stage="fennec.single", sees_candidates=False, facet=criterion.name
            )

        key = ("fennec.single", instance.query, shown, criterion.guideline, text, instance.reference)
        return await ctx.shared(key, judge)


def overall_scale(params: Mapping[str, Any], facets: Sequence[int]) -> tuple[float, float] | None:
    """A fennec run's overall score range: with ``sum`` (its default), from k criteria at least 1 to 5k.

    ``facets`` holds each judgment's criterion count (k varies with the criteria generated).

    Examples:
        >>> overall_scale({}, [5, 4]), overall_scale({"aggregate": "mean"}, [5])
        ((4.0, 25.0), (1.0, 5.0))
    """
    if not facets:
        return None
    low, high = FENNEC_SCALE
    if params.get("aggregate", "sum") != "sum":
        return low, high
    return min(facets) * low, max(facets) * high
