"""Correlations of many resamples at once: each row of two matrices is one resample.

The bootstrap of a correlation needs it on thousands of resamples; calling scipy once per resample
costs about a millisecond each. Pearson's (and Spearman's, Pearson's of the ranks) are scipy's
``pearsonr`` over an axis; Kendall's tau-b, which scipy computes one pair of samples at a time, is
computed here for every row in a few array operations (checked against scipy in tests). A row where
a coefficient is undefined (a constant side) gives NaN, which the bootstrap drops.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float64]

_KENDALL_TABLE_LIMIT = 2500
"""Up to this many distinct (x, y) value pairs, Kendall's tau comes from contingency tables."""
_KENDALL_PAIRWISE_LIMIT = 64
"""Above this many items per row (and too many distinct values for tables), Kendall's tau is computed
row by row with scipy (O(n log n))."""


def rowwise_correlation(x: Matrix, y: Matrix, method: str) -> Matrix:
    """The ``method`` coefficient of each row pair ``(x[r], y[r])``; NaN where it is undefined."""
    if method == "pearson":
        return _pearson(x, y)
    if method == "spearman":
        from scipy import stats

        return _pearson(stats.rankdata(x, axis=1), stats.rankdata(y, axis=1))
    if method == "kendall":
        return _kendall(x, y)
    raise ValueError(f"unknown correlation method {method!r}")


def _pearson(x: Matrix, y: Matrix) -> Matrix:
    """scipy's ``pearsonr`` of each row pair (its ``axis``); NaN for a constant row, without a warning."""
    from scipy import stats

    if x.shape[1] < 2:
        return np.full(x.shape[0], np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        r = np.asarray(stats.pearsonr(x, y, axis=1).statistic, dtype=np.float64)
    r[_constant(x) | _constant(y)] = np.nan
    return r


def _constant(x: Matrix) -> NDArray[np.bool_]:
    return np.asarray(np.all(x == x[:, :1], axis=1), dtype=np.bool_)


def _kendall(x: Matrix, y: Matrix) -> Matrix:
    """Kendall's tau-b, as scipy.stats.kendalltau computes it."""
    n = x.shape[1]
    values_x, values_y = np.unique(x), np.unique(y)
    if len(values_x) * len(values_y) <= _KENDALL_TABLE_LIMIT:
        return _kendall_by_table(x, y, values_x, values_y)
    if n > _KENDALL_PAIRWISE_LIMIT:
        return _kendall_by_row(x, y)
    upper = np.triu_indices(n, k=1)
    sx = np.sign(x[:, :, None] - x[:, None, :])[:, upper[0], upper[1]]
    sy = np.sign(y[:, :, None] - y[:, None, :])[:, upper[0], upper[1]]
    concordance = (sx * sy).sum(axis=1)
    pairs_x, pairs_y = np.abs(sx).sum(axis=1), np.abs(sy).sum(axis=1)  # pairs not tied on x / on y
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = concordance / np.sqrt(pairs_x * pairs_y)
    tau[(pairs_x == 0) | (pairs_y == 0)] = np.nan
    return np.asarray(np.clip(tau, -1.0, 1.0), dtype=np.float64)


def _kendall_by_table(x: Matrix, y: Matrix, values_x: Matrix, values_y: Matrix) -> Matrix:
    """Tau-b from each row's contingency table of (x, y) values: for scores on a few levels (1-5 scales).

    Concordant pairs of a cell are its count times the count of cells above-right of it, discordant
    its count times the count above-left; ties come from the row and column totals.
    """
    rows, n = x.shape
    kx, ky = len(values_x), len(values_y)
    cells = np.searchsorted(values_x, x) * ky + np.searchsorted(values_y, y)
    offsets = (np.arange(rows) * kx * ky)[:, None]
    table = np.bincount((cells + offsets).ravel(), minlength=rows * kx * ky).reshape(rows, kx, ky)
    table = table.astype(np.float64)
    # above[r, i, j]: items with x level > i and y level > j; below: x level > i and y level < j.
    tail = table[:, ::-1, :].cumsum(axis=1)[:, ::-1, :]  # x level >= i
    above = np.zeros_like(table)
    above[:, :-1, :-1] = tail[:, 1:, ::-1].cumsum(axis=2)[:, :, ::-1][:, :, 1:]
    below = np.zeros_like(table)
    below[:, :-1, 1:] = tail[:, 1:, :].cumsum(axis=2)[:, :, :-1]
    concordance = (table * (above - below)).sum(axis=(1, 2))
    pairs = n * (n - 1) / 2
    ties_x = (table.sum(axis=2) * (table.sum(axis=2) - 1) / 2).sum(axis=1)
    ties_y = (table.sum(axis=1) * (table.sum(axis=1) - 1) / 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = concordance / np.sqrt((pairs - ties_x) * (pairs - ties_y))
    tau[(pairs == ties_x) | (pairs == ties_y)] = np.nan
    return np.asarray(np.clip(tau, -1.0, 1.0), dtype=np.float64)


def _kendall_by_row(x: Matrix, y: Matrix) -> Matrix:
    from scipy import stats

    out = np.full(x.shape[0], np.nan)
    for r in range(x.shape[0]):
        if not (_constant(x[r : r + 1])[0] or _constant(y[r : r + 1])[0]):
            out[r] = stats.kendalltau(x[r], y[r], variant="b").statistic
    return out
