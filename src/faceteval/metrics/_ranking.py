"""Comparing rankings of facets by weight: the top-k Kendall distance of Fagin, Kumar and Sivakumar.

DnA-Eval (Li et al., section 5.2) turns the model's and a human's facet weights into rankings and reports
the top-k Kendall's tau distance between them (lower = more alike), with the authors' script calling a
``kendall_top_k(a, b)`` helper with its defaults: ``k`` = all facets and penalty ``p = 0.5``. Both
rankings order the same facets there, so the value is the share of facet pairs the two order differently.

`topk_kendall_distance` computes ``K^(p)`` exactly as Fagin et al. (2003) define it and, by default,
divides it by the largest value two top-k lists over the same items can reach, so 0 means the same top
k in the same order and 1 the most different top k possible. With ``k`` = all items this is the share of
discordant pairs, the number DnA-Eval reports. Deviation: the authors' script ranks the weights with an
argsort-based helper whose output is not the rank of each facet; here the rankings are the true ones
(`rank_by_weight`), with ties in weight broken by name.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

DEFAULT_PENALTY = 0.5
"""Fagin's "neutral" penalty for a pair seen in one top-k list only (also DnA-Eval's choice)."""


def rank_by_weight(weights: Mapping[str, float]) -> list[str]:
    """Names from the highest weight to the lowest; equal weights are ordered by name.

    Breaking ties by name (not by mapping order) means two raters who give two facets the same weight
    rank them the same way.

    Examples:
        >>> rank_by_weight({"relevance": 25, "accuracy": 40, "clarity": 25, "depth": 10})
        ['accuracy', 'clarity', 'relevance', 'depth']
    """
    if not all(math.isfinite(w) for w in weights.values()):
        raise ValueError(f"weights must be finite numbers, got {dict(weights)}")
    return sorted(weights, key=lambda name: (-weights[name], name))


def _ahead(positions: Mapping[str, int], first: str, second: str) -> bool | None:
    """Whether ``first`` is ranked above ``second`` in a top-k list; None if neither is in it.

    An item in the list is above every item outside it.
    """
    if first in positions and second in positions:
        return positions[first] < positions[second]
    if first in positions or second in positions:
        return first in positions
    return None


def _pair_penalty(
    positions_a: Mapping[str, int], positions_b: Mapping[str, int], pair: tuple[str, str], p: float
) -> float:
    """Fagin's penalty for one pair: p if one list holds neither item (case 4), else 1 if discordant.

    Cases 1-3 (both lists hold an item of the pair) reduce to: the lists order the pair differently,
    reading an item absent from a list as below the ones in it.
    """
    in_a, in_b = _ahead(positions_a, *pair), _ahead(positions_b, *pair)
    if in_a is None or in_b is None:
        return p
    return 0.0 if in_a == in_b else 1.0


def _largest_distance(k: int, universe: int, p: float) -> float:
    """The largest ``K^(p)`` between two top-k lists drawn from ``universe`` items.

    With ``m`` items of each list missing from the other (m = k - overlap), every pair at its largest
    penalty gives ``C(k, 2) + k*m + (p - 1/2)*m*(m - 1)``, which grows with m; the smallest possible
    overlap gives ``m = min(k, universe - k)``: ``k^2 + p*k*(k - 1)`` for disjoint lists, ``C(k, 2)``
    when both lists hold the same k items.
    """
    m = min(k, universe - k)
    return math.comb(k, 2) + k * m + (p - 0.5) * m * (m - 1)


def _check_ranking(ranking: Sequence[str], k: int) -> None:
    if len(set(ranking)) != len(ranking):
        raise ValueError(f"a ranking must not repeat an item, got {list(ranking)}")
    if len(ranking) < k:
        raise ValueError(f"a ranking needs at least k={k} items, got {list(ranking)}")


def topk_kendall_distance(
    ranking_a: Sequence[str],
    ranking_b: Sequence[str],
    k: int,
    p: float = DEFAULT_PENALTY,
    *,
    normalize: bool = True,
) -> float:
    """The top-k Kendall distance ``K^(p)`` (Fagin, Kumar and Sivakumar, 2003) between two rankings.

    Only the first ``k`` items of each ranking are compared. Over every pair of items in either top k:
    0 if both lists order it the same way, 1 if they order it differently (an item in a top-k list is
    above one that is not), and ``p`` if one list holds neither item.

    Args:
        ranking_a: Items from best to worst (e.g. `rank_by_weight` of the model's weights).
        ranking_b: Items from best to worst (e.g. of a human's weights).
        k: How many top items to compare; at most the length of either ranking.
        p: The penalty for a pair only one top-k list holds, in [0, 1].
        normalize: Divide by the largest distance two top-k lists from the same items can have, where
            the items are all those in either ranking; the result is then in [0, 1]. Pass the full
            rankings so the item set is known.

    Examples:
        >>> topk_kendall_distance(["a", "b", "c"], ["b", "a", "c"], k=3)  # 1 of 3 pairs discordant
        0.3333333333333333
        >>> topk_kendall_distance(["a", "b", "c", "d"], ["c", "d", "a", "b"], k=2)  # disjoint top 2
        1.0
        >>> topk_kendall_distance(["a", "b", "c", "d"], ["c", "d", "a", "b"], k=2, normalize=False)
        5.0
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not 0 <= p <= 1:
        raise ValueError(f"p must be in [0, 1], got {p}")
    _check_ranking(ranking_a, k)
    _check_ranking(ranking_b, k)
    positions_a = {item: i for i, item in enumerate(ranking_a[:k])}
    positions_b = {item: i for i, item in enumerate(ranking_b[:k])}
    items = list(positions_a) + [item for item in positions_b if item not in positions_a]
    pairs = itertools.combinations(items, 2)
    distance = math.fsum(_pair_penalty(positions_a, positions_b, pair, p) for pair in pairs)
    if not normalize:
        return distance
    largest = _largest_distance(k, len(set(ranking_a) | set(ranking_b)), p)
    return distance / largest if largest > 0 else 0.0
