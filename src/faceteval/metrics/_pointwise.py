"""Correlation of judge scores with human scores: item, summary (per group) and system level.

Missing scores: a pair where either score is None or NaN is dropped before anything is computed, and
counted in `Correlation.missing`. A correlation is undefined (value None) with fewer than two pairs or
when either side is constant; scipy would return NaN with a warning there, so it is not called.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from faceteval.metrics._checks import check_lengths
from faceteval.metrics._types import Correlation

CorrelationMethod = Literal["pearson", "spearman", "kendall"]
Score = float | None


def _pearson(x: Sequence[float], y: Sequence[float]) -> Any:
    from scipy import stats

    return stats.pearsonr(x, y)


EXACT_SPEARMAN_UP_TO = 8
"""Up to this many pairs, Spearman's p-value is exact, from every pairing of the scores (8! = 40,320)."""


def _spearman(x: Sequence[float], y: Sequence[float]) -> Any:
    from scipy import stats

    return stats.spearmanr(x, y)


def _exact_spearman_p(x: Sequence[float], y: Sequence[float]) -> float:
    """The share of all pairings of ``x`` with ``y`` whose |rho| is at least theirs (two-sided): scipy's
    exact permutation test (``permutation_type="pairings"``, every pairing) of |rho|."""
    from scipy import stats

    rx = stats.rankdata(x) - (len(x) + 1) / 2
    ry = stats.rankdata(y) - (len(y) + 1) / 2
    scale = math.sqrt(float(rx @ rx) * float(ry @ ry))

    def abs_rho(ranks: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
        return np.asarray(np.abs(np.moveaxis(ranks, axis, -1) @ ry) / scale, dtype=np.float64)

    result = stats.permutation_test(
        (rx,),
        abs_rho,
        permutation_type="pairings",
        n_resamples=np.inf,
        alternative="greater",
        vectorized=True,
    )
    return float(result.pvalue)


def _kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> Any:
    from scipy import stats

    return stats.kendalltau(x, y, variant="b")


_SCIPY: dict[str, Callable[[Sequence[float], Sequence[float]], Any]] = {
    "pearson": _pearson,
    "spearman": _spearman,
    "kendall": _kendall_tau_b,
}


def _check_method(method: str) -> None:
    if method not in _SCIPY:
        raise ValueError(f"method must be one of {sorted(_SCIPY)}, got {method!r}")


def _is_missing(score: Score) -> bool:
    return score is None or math.isnan(score)


def complete_rows(x: Sequence[Score], y: Sequence[Score], *keys: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows ``(x, y, *keys)`` whose two scores are both present."""
    check_lengths(x, y, *keys)
    return [row for row in zip(x, y, *keys, strict=True) if not (_is_missing(row[0]) or _is_missing(row[1]))]


def _coefficient(
    x: Sequence[float], y: Sequence[float], method: str, *, p_value: bool = True
) -> tuple[float | None, float | None]:
    """The coefficient and (unless not ``p_value``) its p-value; (None, None) where it is undefined."""
    if len(x) < 2 or len(set(x)) == 1 or len(set(y)) == 1:
        return None, None
    result = _SCIPY[method](x, y)
    statistic = float(result.statistic)
    if not p_value:
        return statistic, None
    p = float(result.pvalue)
    if method == "spearman" and 3 <= len(x) <= EXACT_SPEARMAN_UP_TO:  # two pairs: scipy gives none, nor we
        # scipy's p-value comes from a t approximation, which says p = 0 for a perfect rank order of
        # four systems; the exact one is 2/24.
        p = _exact_spearman_p(x, y)
    return statistic, None if math.isnan(p) else p


def correlation(x: Sequence[Score], y: Sequence[Score], method: CorrelationMethod = "pearson") -> Correlation:
    """Correlation of paired scores: Pearson, Spearman or Kendall's tau-b (via scipy.stats).

    Examples:
        >>> result = correlation([1, 2, 3, None], [2, 4, 7, 1], "spearman")
        >>> result.value, result.n, result.missing
        (1.0, 3, 1)
    """
    _check_method(method)
    rows = complete_rows(x, y)
    value, p_value = _coefficient([r[0] for r in rows], [r[1] for r in rows], method)
    return Correlation(value=value, n=len(rows), method=method, p_value=p_value, missing=len(x) - len(rows))


def _grouped(rows: Sequence[tuple[Any, ...]]) -> dict[Hashable, tuple[list[float], list[float]]]:
    """Rows ``(x, y, group)`` gathered into each group's x and y lists."""
    groups: dict[Hashable, tuple[list[float], list[float]]] = {}
    for score_x, score_y, group in rows:
        xs, ys = groups.setdefault(group, ([], []))
        xs.append(score_x)
        ys.append(score_y)
    return groups


def summary_level(
    x: Sequence[Score], y: Sequence[Score], groups: Sequence[Hashable], method: CorrelationMethod = "pearson"
) -> Correlation:
    """The mean over groups of the correlation within each group (SummEval / G-Eval protocol).

    Typically a group is a source document and its items are the systems' summaries of it. Groups
    where the correlation is undefined (a constant side, fewer than two pairs) are skipped and counted
    in `Correlation.skipped`; ``n`` is the number of groups averaged.

    Examples:
        >>> result = summary_level([1, 2, 3, 1, 2, 5, 5], [1, 2, 3, 3, 2, 1, 4], "aabbbcc")
        >>> result.value, result.n, result.skipped
        (0.5, 2, 1)
    """
    values = group_coefficients(x, y, groups, method)
    defined = [v for v in values if v is not None]
    return Correlation(
        value=math.fsum(defined) / len(defined) if defined else None,
        n=len(defined),
        method=method,
        missing=len(x) - len(complete_rows(x, y, groups)),
        skipped=len(values) - len(defined),
    )


def group_coefficients(
    x: Sequence[Score], y: Sequence[Score], groups: Sequence[Hashable], method: CorrelationMethod = "pearson"
) -> list[float | None]:
    """The correlation within each group (complete pairs only), None where it is undefined."""
    _check_method(method)
    rows = complete_rows(x, y, groups)
    return [_coefficient(xs, ys, method, p_value=False)[0] for xs, ys in _grouped(rows).values()]


def system_level(
    x: Sequence[Score], y: Sequence[Score], systems: Sequence[Hashable], method: CorrelationMethod = "pearson"
) -> Correlation:
    """Correlation across systems of each system's mean judge score and mean human score.

    Means are taken over the system's complete pairs; ``n`` is the number of systems.

    Examples:
        >>> result = system_level([1, 3, 5, 6, 9, 9], [2, 2, 3, 5, 4, 4], "aabbcc")
        >>> round(result.value, 3), result.n
        (0.866, 3)
    """
    _check_method(method)
    rows = complete_rows(x, y, systems)
    means = [(math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)) for xs, ys in _grouped(rows).values()]
    value, p_value = _coefficient([m[0] for m in means], [m[1] for m in means], method)
    return Correlation(value=value, n=len(means), method=method, p_value=p_value, missing=len(x) - len(rows))
