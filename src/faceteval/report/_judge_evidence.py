"""What a judge run's items show beyond its result: score distributions, and the items to look at.

Items to look at are those where the facets disagree with the verdict (their weighted aggregate
favours another candidate, or they split: one facet favours one candidate, another facet another),
those where the presentation orders disagreed (``--swap``), and those that failed. Each list keeps
its first items (and counts them all); the distributions count each score value.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from faceteval.aggregation import verdict
from faceteval.aggregation.internal import DECIMALS
from faceteval.core import FacetScore, Instance, Judgment
from faceteval.results import FacetSummary, JudgeResult

SCORE_DECIMALS = 2
"""Scores are counted at this precision in the distributions."""


@dataclass(frozen=True, slots=True)
class Conflict:
    """How the facets of an ok judgment stand against its verdict.

    Attributes:
        verdict: The verdict (the winner, 1-based; 0 for a tie).
        favoured: The candidate the facets' (weighted) aggregate puts first alone; 0 when it ties.
        against: The facets whose own scores put another candidate than the verdict's first, alone.
        agreeing: The facets whose own scores put the verdict's candidate first, alone.
    """

    verdict: int
    favoured: int
    against: tuple[str, ...]
    agreeing: tuple[str, ...]

    @property
    def split(self) -> bool:
        """The aggregate agrees with the verdict, but facets favour different candidates."""
        return self.favoured == self.verdict


def facet_conflict(judgment: Judgment) -> Conflict | None:
    """How ``judgment``'s facets disagree with its verdict; None when they do not (or cannot say).

    The facets disagree when their aggregate ``sum_k w_k s_k(m)`` (their weights, or 1 each when
    they have none) does not put the verdict's candidate first alone (or, for a tie, does not tie),
    or when they split: a facet's own scores favour one candidate and another facet's another.
    Facets that do not score every candidate are left out.

    Examples:
        >>> from faceteval.core import FacetScore, Judgment
        >>> facets = [FacetScore(name="a", weight=0.5, scores=[9.0, 2.0]),
        ...           FacetScore(name="b", weight=0.5, scores=[3.0, 4.0])]
        >>> ok = Judgment(id="1", method="dna", status="ok", verdict=2, scores=[1.0, 9.0], facets=facets)
        >>> conflict = facet_conflict(ok)
        >>> conflict.favoured, conflict.against, conflict.split
        (1, ('a',), False)
        >>> facet_conflict(ok.model_copy(update={"verdict": 1})).split
        True
    """
    won = judgment.verdict
    if judgment.status != "ok" or won is None or not judgment.facets:
        return None
    n = len(judgment.scores) if judgment.scores else len(judgment.facets[0].scores)
    scored = [f for f in judgment.facets if len(f.scores) == n and None not in f.scores]
    if n < 2 or not scored:
        return None
    matrix = [[float(s) for s in f.scores if s is not None] for f in scored]
    weights = [f.weight for f in scored]
    w = [float(x) for x in weights if x is not None] if None not in weights else [1.0] * len(scored)
    aggregate = [math.fsum(w[k] * matrix[k][m] for k in range(len(scored))) for m in range(n)]
    favoured = verdict([round(x, DECIMALS) for x in aggregate]) or 0
    own = [verdict(row) or 0 for row in matrix]
    against = tuple(f.name for f, first in zip(scored, own, strict=True) if first and first != won)
    agreeing = tuple(f.name for f, first in zip(scored, own, strict=True) if first and first == won)
    if favoured != won or len({first for first in own if first}) > 1:
        return Conflict(won, favoured, against, agreeing)
    return None


@dataclass(slots=True)
class Listed:
    """The first items of a list (at most its limit), and how many there are in all."""

    limit: int
    items: list[Judgment] = field(default_factory=list)
    total: int = 0

    def add(self, judgment: Judgment) -> None:
        """Count ``judgment``, and keep it (without its trace) while the list has room."""
        self.total += 1
        if len(self.items) < self.limit:
            self.items.append(judgment.model_copy(update={"trace": []}))


@dataclass(slots=True)
class Evidence:
    """What a judge run's items show.

    Attributes:
        conflicts: Ok judgments whose facets disagree with the verdict (`facet_conflict`).
        orders: Ok judgments whose presentation orders disagreed.
        failures: Judgments that failed.
        facet_scores: Per facet of the result (by its name there), per system: each score's count.
        overall: Per system: each overall score's count (ok judgments that give scores).
        instances: The instances of the items listed, by id (filled in when the input is found).
    """

    conflicts: Listed
    orders: Listed
    failures: Listed
    facet_scores: dict[str, dict[str, Counter[float]]] = field(default_factory=dict)
    overall: dict[str, Counter[float]] = field(default_factory=dict)
    instances: dict[str, Instance] = field(default_factory=dict)

    @property
    def listed_ids(self) -> dict[str, None]:
        """The ids of every item listed, in order of first listing."""
        lists = (self.conflicts, self.orders, self.failures)
        return dict.fromkeys(j.id for listed in lists for j in listed.items)


def collect_evidence(
    judgments: Iterable[Judgment],
    systems: Mapping[str, Sequence[str]],
    result: JudgeResult,
    *,
    limit: int,
) -> Evidence:
    """Go through ``judgments`` once (``systems``: each instance's candidates' systems, by id)."""
    names = {facet.name.strip().casefold(): facet.name for facet in _result_facets(result)}
    evidence = Evidence(Listed(limit), Listed(limit), Listed(limit))
    for judgment in judgments:
        if judgment.status != "ok":
            evidence.failures.add(judgment)
            continue
        if facet_conflict(judgment) is not None:
            evidence.conflicts.add(judgment)
        if judgment.consistent is False:
            evidence.orders.add(judgment)
        shape = systems.get(judgment.id) or _positions(judgment)
        for system, score in zip(shape, judgment.scores or (), strict=False):
            evidence.overall.setdefault(system, Counter())[round(score, SCORE_DECIMALS)] += 1
        for facet in judgment.facets:
            if (name := names.get(facet.name.strip().casefold())) is not None:
                _count(evidence.facet_scores.setdefault(name, {}), facet, shape)
    return evidence


def _result_facets(result: JudgeResult) -> list[FacetSummary]:
    facets: list[FacetSummary] = []
    if result.pairwise is not None:
        facets += result.pairwise.facets
    if result.pointwise is not None:
        facets += result.pointwise.facets
    return facets


def _positions(judgment: Judgment) -> tuple[str, ...]:
    n = len(judgment.scores) if judgment.scores else max((len(f.scores) for f in judgment.facets), default=0)
    return tuple(str(m) for m in range(1, n + 1))


def _count(by_system: dict[str, Counter[float]], facet: FacetScore, shape: Sequence[str]) -> None:
    for system, score in zip(shape, facet.scores, strict=False):
        if score is not None:
            by_system.setdefault(system, Counter())[round(score, SCORE_DECIMALS)] += 1
