"""Aggregating facet scores into overall scores, in code (never by the LLM)."""

from __future__ import annotations

import math
from collections.abc import Sequence

DECIMALS = 9
"""Overall scores are rounded so that float noise never breaks (or makes) a tie."""


def normalise(weights: Sequence[float]) -> list[float]:
    """Scale non-negative weights to sum to 1.

    Examples:
        >>> normalise([40, 30, 30])
        [0.4, 0.3, 0.3]
    """
    if any(w < 0 or math.isnan(w) for w in weights):
        raise ValueError(f"weights must be non-negative numbers, got {list(weights)}")
    total = math.fsum(weights)
    if total <= 0:
        raise ValueError(f"weights must not all be zero, got {list(weights)}")
    return [w / total for w in weights]


def weighted_sum(scores: Sequence[Sequence[float]], weights: Sequence[float]) -> list[float]:
    """Overall score per candidate: ``sum_j w_j * s_j`` (DnA-Eval Equation 3).

    Args:
        scores: ``scores[j][m]`` is facet j's score for candidate m.
        weights: One weight per facet; normalised here.

    Examples:
        >>> weighted_sum([[8, 6], [7, 9]], [0.5, 0.5])
        [7.5, 7.5]
    """
    if len(scores) != len(weights):
        raise ValueError(f"{len(scores)} facets but {len(weights)} weights")
    if not scores:
        raise ValueError("no facet scores to aggregate")
    w = normalise(weights)
    n = len(scores[0])
    return [round(math.fsum(w[j] * scores[j][m] for j in range(len(scores))), DECIMALS) for m in range(n)]


def mean(scores: Sequence[Sequence[float]]) -> list[float]:
    """Overall score per candidate: the unweighted mean of its facet scores.

    Examples:
        >>> mean([[8, 6], [7, 9], [6, 6]])
        [7.0, 7.0]
    """
    return weighted_sum(scores, [1.0] * len(scores))


def total(scores: Sequence[Sequence[float]]) -> list[float]:
    """Overall score per candidate: the sum of its facet scores (Fennec's aggregate).

    Examples:
        >>> total([[4, 2], [5, 3], [3, 3]])
        [12.0, 8.0]
    """
    if not scores:
        raise ValueError("no facet scores to aggregate")
    n = len(scores[0])
    return [round(math.fsum(float(row[m]) for row in scores), DECIMALS) for m in range(n)]


def verdict(scores: Sequence[float]) -> int | None:
    """The 1-based index of the single highest score, 0 when the top is tied (DnA-Eval Equation 4).

    None for a single candidate: there is nothing to compare.

    Examples:
        >>> verdict([7.5, 6.0]), verdict([7.0, 7.0]), verdict([5.0, 8.0, 8.0])
        (1, 0, 0)
    """
    if len(scores) < 2:
        return None
    top = max(scores)
    winners = [i for i, s in enumerate(scores) if s == top]
    return winners[0] + 1 if len(winners) == 1 else 0


def ranks(scores: Sequence[float]) -> list[int]:
    """Competition ranks, 1 = best; tied candidates share the best rank of their group.

    Examples:
        >>> ranks([7.0, 9.0, 7.0, 3.0])
        [2, 1, 2, 4]
    """
    return [1 + sum(other > s for other in scores) for s in scores]
