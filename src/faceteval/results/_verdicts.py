"""What one ok judgment says: the outcome of each pair of its candidates, and which facets decided it."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from faceteval.aggregation import ranks, verdict
from faceteval.aggregation.internal import DECIMALS
from faceteval.core import FacetScore, Judgment

RELATIVE_TOLERANCE = 1e-6
"""How closely overall scores must follow the facets' aggregate for the facets to explain a verdict."""


def candidate_count(judgment: Judgment) -> int | None:
    """How many candidates a judgment judged, as far as it shows without its instance: its scores'
    or ranks' length, else 2 for a verdict of 0, 1 or 2 (a pair); None when it does not say."""
    if judgment.scores is not None:
        return len(judgment.scores)
    if judgment.ranks is not None:
        return len(judgment.ranks)
    if judgment.verdict is not None and judgment.verdict <= 2:
        return 2
    return None


def comparisons(judgment: Judgment, n: int) -> Iterator[tuple[int, int, int]]:
    """``(i, j, outcome)`` for each pair ``i < j`` of 0-based candidates an ok judgment settles.

    ``outcome`` is 1 when i is ranked above j, -1 below, 0 level. Of two candidates, the verdict
    settles the pair (under ``--swap``, a tie when the orders disagreed). Of more, each order's
    ranks settle every pair, and a pair the orders judged differently is a tie, as the verdict is;
    a judgment with only a verdict settles the winner against each other one.

    Examples:
        >>> from faceteval.core import Judgment
        >>> ok = Judgment(id="1", method="m", status="ok", verdict=0, scores=[7.0, 2.0, 7.0], ranks=[1, 3, 1])
        >>> list(comparisons(ok, 3))
        [(0, 1, 1), (0, 2, 0), (1, 2, -1)]
    """
    if n == 2 and judgment.verdict is not None:
        yield 0, 1, {0: 0, 1: 1, 2: -1}[judgment.verdict]
        return
    orders = [order.scores for order in judgment.orders] or [judgment.scores]
    if all(scores is not None and len(scores) == n for scores in orders):
        each = [ranks(scores) for scores in orders if scores is not None]
        for i in range(n):
            for j in range(i + 1, n):
                outcomes = {(r[i] < r[j]) - (r[i] > r[j]) for r in each}
                yield i, j, outcomes.pop() if len(outcomes) == 1 else 0
        return
    won = judgment.verdict
    if won is None or won == 0 or won > n:
        return
    for other in range(n):
        if other != won - 1:
            yield min(other, won - 1), max(other, won - 1), 1 if won - 1 < other else -1


@dataclass(frozen=True, slots=True)
class FacetVerdict:
    """A facet's part in one verdict: whether it agreed with it, and whether it decided it."""

    facet: FacetScore
    agreed: bool
    decided: bool


def facet_verdicts(judgment: Judgment) -> list[FacetVerdict] | None:
    """Each facet's part in an ok judgment's verdict; None when its facets do not explain it.

    The facets explain a verdict with a winner when every facet scores every candidate and the
    overall scores are a positive multiple of the facets' aggregate ``A(m) = sum_k w_k s_k(m)``
    (``w_k`` the facets' weights, or 1 each when they have none: a sum or a mean). A facet *agrees*
    when its own scores put the winner first, alone; it *decided* the verdict when it agrees and
    ``A - w_f s_f`` no longer puts the winner first alone.

    Examples:
        >>> from faceteval.core import FacetScore, Judgment
        >>> facets = [
        ...     FacetScore(name="accuracy", weight=0.6, scores=[9.0, 4.0]),
        ...     FacetScore(name="style", weight=0.4, scores=[3.0, 8.0]),
        ... ]
        >>> ok = Judgment(id="1", method="dna", status="ok", verdict=1, scores=[6.6, 5.6], facets=facets)
        >>> [(v.facet.name, v.agreed, v.decided) for v in facet_verdicts(ok)]
        [('accuracy', True, True), ('style', False, False)]
    """
    won, overall, facets = judgment.verdict, judgment.scores, judgment.facets
    if not won or overall is None or not facets or len(overall) < 2:
        return None
    if any(len(f.scores) != len(overall) or None in f.scores for f in facets):
        return None
    matrix = [[s for s in f.scores if s is not None] for f in facets]
    weights = [f.weight for f in facets if f.weight is not None]
    w = weights if len(weights) == len(facets) else [1.0] * len(facets)
    aggregate = [math.fsum(w[k] * matrix[k][m] for k in range(len(facets))) for m in range(len(overall))]
    if not _proportional(overall, aggregate) or _verdict(aggregate) != won:
        return None
    parts = []
    for k, facet in enumerate(facets):
        agreed = verdict(matrix[k]) == won
        without = [aggregate[m] - w[k] * matrix[k][m] for m in range(len(overall))]
        parts.append(FacetVerdict(facet, agreed, agreed and _verdict(without) != won))
    return parts


def _verdict(scores: Sequence[float]) -> int | None:
    """`faceteval.aggregation.verdict` of scores rounded as aggregates are (float noise is no winner)."""
    return verdict([round(s, DECIMALS) for s in scores])


def _proportional(overall: Sequence[float], aggregate: Sequence[float]) -> bool:
    """Whether ``overall`` is ``c * aggregate`` for some ``c > 0`` (to rounding)."""
    dot = math.fsum(a * b for a, b in zip(overall, aggregate, strict=True))
    norm = math.fsum(a * a for a in aggregate)
    if norm == 0 or dot <= 0:
        return False
    c = dot / norm
    scale = max(1.0, *(abs(x) for x in overall))
    return all(abs(o - c * a) <= RELATIVE_TOLERANCE * scale for o, a in zip(overall, aggregate, strict=True))
