"""Uncertainty of a metric and tests of a difference between two runs over the same items.

Every resampling here works on item indices, so the columns of one item always move together (a
paired bootstrap) and a statistic receives plain lists, exactly like calling the metric directly.
Resamples on which the statistic is undefined (None or NaN) are dropped before an interval is made.

A correlation's interval is Fisher's z around the coefficient (`faceteval.metrics.fisher_interval`),
with its standard error in closed form over the items, or from the resamples of what varies (the
documents, at the system level); a summary-level correlation, a mean over documents, has the Student's
t interval of that mean. Each contains its estimate. A percentile interval of resampled correlations
need not: resampling the inputs of a few systems whose means correlate at 0.9995 attenuates the
correlation, and every percentile, BCa's too, can fall below it.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import warnings
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from faceteval.metrics._checks import check_lengths
from faceteval.metrics._intervals import (
    FISHER_Z,
    STUDENT_T,
    bootstrap_fisher_se,
    fisher_interval,
    fisher_se,
    mean_interval,
)
from faceteval.metrics._pointwise import (
    CorrelationMethod,
    Score,
    _coefficient,
    complete_rows,
    correlation,
    group_coefficients,
    summary_level,
    system_level,
)
from faceteval.metrics._rowwise import rowwise_correlation
from faceteval.metrics._types import BOOTSTRAP, CLOPPER_PEARSON, Correlation, PairedTest, Rate

DEFAULT_N_RESAMPLES = 2000
"""Bootstrap resamples and permutations drawn by default."""

DEFAULT_LEVEL = 0.95
"""Default confidence level of intervals."""

Statistic = Callable[..., float | None]
M = TypeVar("M", Rate, Correlation)


def _select(columns: Sequence[Sequence[Any]], indices: Sequence[int]) -> list[list[Any]]:
    return [[column[i] for i in indices] for column in columns]


def _as_float(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _bootstrap_distribution(
    statistic: Callable[[list[int]], float | None], n: int, n_resamples: int, seed: int
) -> NDArray[np.float64]:
    """The statistic on bootstrap resamples of the indices ``0..n-1`` (scipy.stats.bootstrap), NaN dropped."""
    from scipy import stats

    def on_indices(indices: NDArray[np.int64]) -> float:
        return _as_float(statistic(indices.tolist()))

    with warnings.catch_warnings():
        # scipy warns when undefined (NaN) resamples make its own interval NaN; we drop them below.
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap(
            (np.arange(n),),
            on_indices,
            n_resamples=n_resamples,
            batch=_rows_per_block(n),
            vectorized=False,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    distribution = np.asarray(result.bootstrap_distribution, dtype=np.float64)
    return distribution[~np.isnan(distribution)]


def _percentile_interval(distribution: NDArray[np.float64], level: float) -> tuple[float, float] | None:
    if distribution.size == 0:
        return None
    low, high = np.percentile(distribution, [50 * (1 - level), 50 * (1 + level)])
    return float(low), float(high)


def bootstrap_ci(
    statistic: Statistic,
    *samples: Sequence[Any],
    n_resamples: int = DEFAULT_N_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> tuple[float, float] | None:
    """A percentile bootstrap confidence interval for ``statistic(*samples)``.

    Items are resampled with replacement; with several samples, item i of each is kept together
    (paired). None when there are fewer than two items or the statistic is undefined on every resample.
    Identical values give a zero-width interval, without warnings.

    Examples:
        >>> bootstrap_ci(lambda xs: sum(xs) / len(xs), [1.0, 1.0, 1.0], n_resamples=50)
        (1.0, 1.0)
    """
    n = check_lengths(*samples)
    if n < 2:
        return None
    distribution = _bootstrap_distribution(
        lambda indices: statistic(*_select(samples, indices)), n, n_resamples, seed
    )
    return _percentile_interval(distribution, level)


def summary_level_with_ci(
    x: Sequence[Score],
    y: Sequence[Score],
    groups: Sequence[Hashable],
    method: CorrelationMethod = "pearson",
    *,
    n_resamples: int = DEFAULT_N_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Correlation:
    """`summary_level` with the Student's t interval of its mean over the groups (documents), cut to
    [-1, 1] (``n_resamples=0``: no CI; nothing is resampled, and ``seed`` is not used).

    The summary-level value is the mean of per-group coefficients, so its uncertainty is that of a
    mean of the groups' coefficients. The interval is centred on it; None with fewer than two groups.

    Examples:
        >>> x, y = [1, 2, 3, 1, 2, 4, 2, 3, 4], [1, 2, 4, 3, 2, 1, 1, 3, 5]
        >>> result = summary_level_with_ci(x, y, "aaabbbccc")
        >>> round(result.value, 3), result.n, [round(v, 3) for v in result.ci], result.ci_method
        (0.333, 3, [-1.0, 1.0], 't')
    """
    result = summary_level(x, y, groups, method)
    if not n_resamples or result.value is None:
        return result
    defined = [v for v in group_coefficients(x, y, groups, method) if v is not None]
    interval = (
        mean_interval(result.value, statistics.stdev(defined), len(defined), level)
        if len(defined) > 1
        else None
    )
    if interval is None:
        return result
    ci = (max(-1.0, interval[0]), min(1.0, interval[1]))
    return dataclasses.replace(result, ci=ci, ci_method=STUDENT_T)


def system_level_with_ci(
    x: Sequence[Score],
    y: Sequence[Score],
    systems: Sequence[Hashable],
    method: CorrelationMethod = "pearson",
    *,
    clusters: Sequence[Hashable] | None = None,
    n_resamples: int = DEFAULT_N_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Correlation:
    """`system_level` with Fisher's z interval around it, its standard error from resampling the
    inputs the systems ran on (``n_resamples=0``: no CI).

    ``clusters`` names each item's input (e.g. its source document): a resample draws inputs with
    replacement and keeps every system's output on each, then recomputes the system means and their
    correlation (the "inputs" bootstrap of Deutsch et al., 2021). Without clusters each item is its
    own input. The resampled correlations' spread gives the standard error of Fisher's z
    (`faceteval.metrics.bootstrap_fisher_se`), and the interval is `fisher_interval` around the
    coefficient: it contains it, where the resamples' percentiles, pulled down by the noise resampling
    adds to each system's mean, may not. None where the coefficient is 1 or -1.

    Examples:
        >>> result = system_level_with_ci(
        ...     [1, 3, 5, 6, 9, 9], [2, 2, 3, 5, 4, 4], "abcabc", clusters="112233", n_resamples=200
        ... )
        >>> result.n, result.ci is not None
        (3, True)
    """
    result = system_level(x, y, systems, method)
    if not n_resamples:
        return result
    keys: Sequence[Hashable] = clusters if clusters is not None else range(len(x))
    rows = complete_rows(x, y, systems, keys)
    system_index = {s: i for i, s in enumerate(dict.fromkeys(row[2] for row in rows))}
    cluster_index = {c: i for i, c in enumerate(dict.fromkeys(row[3] for row in rows))}
    if len(cluster_index) < 2 or len(system_index) < 2:
        return result
    sums = np.zeros((3, len(cluster_index), len(system_index)))  # x sums, y sums, counts
    for a, b, system, cluster in rows:
        sums[:, cluster_index[cluster], system_index[system]] += (a, b, 1.0)
    drawn = np.random.default_rng(seed).integers(0, len(cluster_index), (n_resamples, len(cluster_index)))
    totals = sums[:, drawn, :].sum(axis=2)  # (3, resamples, systems)
    with np.errstate(divide="ignore", invalid="ignore"):
        means_x, means_y = totals[0] / totals[2], totals[1] / totals[2]
    complete = np.all(totals[2] > 0, axis=1)
    values = rowwise_correlation(means_x[complete], means_y[complete], method)
    for r in np.flatnonzero(~complete):  # a system with no output on the drawn inputs: leave it out
        present = totals[2][r] > 0
        value, _ = _coefficient(
            means_x[r][present].tolist(), means_y[r][present].tolist(), method, p_value=False
        )
        values = np.append(values, np.nan if value is None else value)
    return _with_fisher_interval(result, values[~np.isnan(values)], level)


def _with_fisher_interval(result: Correlation, resampled: NDArray[np.float64], level: float) -> Correlation:
    """``result`` with Fisher's z interval, its standard error from the ``resampled`` coefficients."""
    if result.value is None:
        return result
    se = bootstrap_fisher_se(result.value, resampled.tolist())
    ci = None if se is None else fisher_interval(result.value, se, level)
    return dataclasses.replace(result, ci=ci, ci_method=None if ci is None else FISHER_Z)


def correlation_with_ci(
    x: Sequence[Score],
    y: Sequence[Score],
    method: CorrelationMethod = "pearson",
    *,
    n_resamples: int = DEFAULT_N_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Correlation:
    """`correlation` with Fisher's z interval over its pairs (``n_resamples=0``: no CI; nothing is
    resampled, and ``seed`` is not used).

    The standard error of Fisher's z is `fisher_se`'s: Pearson's ``1 / sqrt(n - 3)`` (the interval
    scipy's ``pearsonr(...).confidence_interval()`` gives), Bonett and Wright's for Spearman, Fieller,
    Hartley and Pearson's for Kendall. None with too few pairs, or a coefficient of 1 or -1.

    Examples:
        >>> result = correlation_with_ci([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5], "spearman")
        >>> round(result.value, 3), [round(v, 3) for v in result.ci], result.ci_method
        (0.829, [-0.127, 0.986], 'fisher-z')
    """
    result = correlation(x, y, method)
    if not n_resamples or result.value is None:
        return result
    se = fisher_se(result.value, result.n, method)
    ci = None if se is None else fisher_interval(result.value, se, level)
    return dataclasses.replace(result, ci=ci, ci_method=None if ci is None else FISHER_Z)


def with_ci(
    metric: Callable[..., M],
    *columns: Sequence[Any],
    n_resamples: int = DEFAULT_N_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> M:
    """``metric(*columns)`` with its ``ci`` from a bootstrap over the items (rows).

    Works for any metric returning a `Rate` or a `Correlation`. A rate's interval is the percentile
    interval of its resamples; a correlation's is Fisher's z around it, with the standard error of
    its resamples (as `system_level_with_ci`'s). Note that for `summary_level` this resamples items,
    not groups. A rate of all hits or all misses, whose bootstrap collapses to
    that point, gets the exact binomial (Clopper-Pearson) interval of all or none of its items
    instead: 0/3 is not known to be 0 to the last decimal. The trials are the items, also for a rate
    that counts two verdicts per item (`faceteval.metrics.accuracy_order_avg`). `Rate.ci_method`
    says which interval it has.

    Examples:
        >>> from faceteval.metrics import agreement
        >>> rate = with_ci(agreement, [1, 2, 1, 2], [1, 2, 2, 2], n_resamples=200)
        >>> rate.value, rate.ci is not None
        (0.75, True)
    """
    result = metric(*columns)
    if isinstance(result, Rate):
        ci, items = _rate_interval(metric, columns, n_resamples, level, seed)
        if ci is not None and ci[0] == ci[1] and result.hits in (0, result.n):  # all hits, or none
            # The trials are the items: a rate counting two verdicts per item (both orders) is not
            # known twice as well, so the interval is that of all or none of its items.
            hits = items if result.hits else 0
            return dataclasses.replace(
                result, ci=binomial_interval(hits, items, level), ci_method=CLOPPER_PEARSON
            )
        return dataclasses.replace(result, ci=ci, ci_method=None if ci is None else BOOTSTRAP)
    if check_lengths(*columns) < 2:
        return result
    resampled = _bootstrap_distribution(
        lambda indices: metric(*_select(columns, indices)).value, len(columns[0]), n_resamples, seed
    )
    return _with_fisher_interval(result, resampled, level)


def binomial_interval(hits: int, n: int, level: float = DEFAULT_LEVEL) -> tuple[float, float] | None:
    """The exact binomial (Clopper-Pearson) confidence interval of the rate ``hits / n``; None if n is 0.

    Examples:
        >>> [round(bound, 4) for bound in binomial_interval(0, 3)]
        [0.0, 0.7076]
        >>> [round(bound, 4) for bound in binomial_interval(10, 10)]
        [0.6915, 1.0]
    """
    from scipy import stats

    if n <= 0:
        return None
    ci = stats.binomtest(hits, n).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def _rate_interval(
    metric: Callable[..., Any],
    columns: Sequence[Sequence[Any]],
    n_resamples: int,
    level: float,
    seed: int,
) -> tuple[tuple[float, float] | None, int]:
    """The percentile interval of a rate, resampled in bulk, and the number of items it counts.

    Every rate here is a sum over items (hits over counted items), so each item's share is computed
    once and each resample is a sum of shares: the same interval as resampling the metric, in
    milliseconds.
    """
    size = len(columns[0])
    if size < 2:
        return None, size
    hits, counted = np.empty(size), np.empty(size)
    for i in range(size):
        share = metric(*([column[i]] for column in columns))
        hits[i], counted[i] = share.hits, share.n
    items = int(np.count_nonzero(counted))
    rng = np.random.default_rng(seed)
    totals, sizes = np.empty(n_resamples), np.empty(n_resamples)
    for start in range(0, n_resamples, block := _rows_per_block(size)):
        rows = min(block, n_resamples - start)
        picks = rng.integers(0, size, (rows, size))  # the rows one draw of every resample would give
        totals[start : start + rows] = hits[picks].sum(axis=1)
        sizes[start : start + rows] = counted[picks].sum(axis=1)
    distribution = totals[sizes > 0] / sizes[sizes > 0]
    if distribution.size < n_resamples / 2:
        return None, items
    return _percentile_interval(distribution, level), items


BLOCK = 1 << 21
"""Resampled items drawn at a time (16 MB of indices): a bootstrap's memory does not grow with its items."""


def _rows_per_block(size: int) -> int:
    """How many resamples of ``size`` items are drawn at a time (at least one)."""
    return max(1, BLOCK // max(size, 1))


def mcnemar_exact(correct_a: Sequence[bool], correct_b: Sequence[bool]) -> PairedTest:
    """The exact McNemar test of two runs' per-item correctness (see `correct`).

    The p-value is scipy's two-sided exact binomial test of the discordant items (b01 against
    b01 + b10, p = 1/2); 1.0 when there is none. ``difference`` is accuracy B minus accuracy A,
    that is ``(b01 - b10) / n``.

    Examples:
        >>> test = mcnemar_exact([True, True, False, False], [True, False, True, True])
        >>> test.difference, test.b01, test.b10, test.p_value
        (0.25, 2, 1, 1.0)
    """
    from scipy import stats

    n = check_lengths(correct_a, correct_b)
    b01 = sum(not a and b for a, b in zip(correct_a, correct_b, strict=True))
    b10 = sum(a and not b for a, b in zip(correct_a, correct_b, strict=True))
    if n == 0:
        return PairedTest(difference=None, p_value=None, n=0, method="mcnemar-exact", b01=0, b10=0)
    p_value = float(stats.binomtest(b01, b01 + b10, 0.5).pvalue) if b01 + b10 else 1.0
    return PairedTest(
        difference=(b01 - b10) / n, p_value=p_value, n=n, method="mcnemar-exact", b01=b01, b10=b10
    )


def _difference(
    statistic: Statistic, run_a: Sequence[Any], run_b: Sequence[Any], shared: Sequence[Sequence[Any]]
) -> float | None:
    """``statistic(run_b, *shared) - statistic(run_a, *shared)``; None if either is undefined."""
    a, b = statistic(run_a, *shared), statistic(run_b, *shared)
    if a is None or b is None or math.isnan(a) or math.isnan(b):
        return None
    return b - a


def permutation_test(
    statistic: Statistic,
    run_a: Sequence[Any],
    run_b: Sequence[Any],
    *shared: Sequence[Any],
    n_resamples: int = DEFAULT_N_RESAMPLES,
    seed: int = 0,
) -> PairedTest:
    """A paired permutation test of ``statistic(run_b, *shared) - statistic(run_a, *shared)``.

    Under the null hypothesis the two runs are exchangeable item by item, so each permutation swaps
    run A's and run B's value on a random subset of items (scipy.stats.permutation_test with
    ``permutation_type="samples"``; exact when ``2**n <= n_resamples``). ``shared`` columns (e.g. the
    human scores) stay in place. The p-value is two-sided; permutations where the statistic is
    undefined count as not extreme.

    Examples:
        >>> from faceteval.metrics import correlation
        >>> def pearson(judge, human):
        ...     return correlation(judge, human).value
        >>> human = [1, 2, 3, 4, 5, 6]
        >>> test = permutation_test(pearson, [2, 1, 4, 3, 6, 5], human, human)
        >>> round(test.difference, 3), test.n, 0 < test.p_value <= 1
        (0.171, 6, True)
    """
    from scipy import stats

    n = check_lengths(run_a, run_b, *shared)
    observed = _difference(statistic, run_a, run_b, shared)
    if observed is None or n == 0:
        return PairedTest(difference=observed, p_value=None, n=n, method="permutation")
    pool = [*run_a, *run_b]

    def difference(indices_a: NDArray[np.int64], indices_b: NDArray[np.int64]) -> float:
        a, b = [pool[i] for i in indices_a], [pool[i] for i in indices_b]
        return _as_float(_difference(statistic, a, b, shared))

    result = stats.permutation_test(
        (np.arange(n), np.arange(n, 2 * n)),
        difference,
        permutation_type="samples",
        vectorized=False,
        n_resamples=n_resamples,
        rng=np.random.default_rng(seed),
    )
    return PairedTest(difference=observed, p_value=float(result.pvalue), n=n, method="permutation")


def _bootstrap_p_value(distribution: NDArray[np.float64]) -> float | None:
    """Two-sided: twice the smaller share of resampled differences at or beyond 0, each +1-smoothed."""
    if distribution.size == 0:
        return None
    size = distribution.size + 1
    below, above = (np.sum(distribution <= 0) + 1) / size, (np.sum(distribution >= 0) + 1) / size
    return min(1.0, 2 * float(min(below, above)))


def paired_bootstrap(
    statistic: Statistic,
    run_a: Sequence[Any],
    run_b: Sequence[Any],
    *shared: Sequence[Any],
    n_resamples: int = DEFAULT_N_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> PairedTest:
    """A paired bootstrap of ``statistic(run_b, *shared) - statistic(run_a, *shared)``.

    Items are resampled with replacement, all columns together. ``ci`` is the percentile interval of
    the resampled differences and ``p_value`` twice the smaller share of them on either side of zero
    (``(count + 1) / (resamples + 1)``, capped at 1).

    Examples:
        >>> from faceteval.metrics import agreement
        >>> def accuracy(verdicts, labels):
        ...     return agreement(verdicts, labels).value
        >>> labels = [1, 2, 1, 2, 1, 2, 1, 2]
        >>> test = paired_bootstrap(accuracy, [1] * 8, labels, labels, n_resamples=200)
        >>> test.difference, test.ci[0] > 0
        (0.5, True)
    """
    n = check_lengths(run_a, run_b, *shared)
    observed = _difference(statistic, run_a, run_b, shared)
    if observed is None or n < 2:
        return PairedTest(difference=observed, p_value=None, n=n, method="paired-bootstrap")
    columns = [run_a, run_b, *shared]

    def difference(indices: list[int]) -> float | None:
        a, b, *rest = _select(columns, indices)
        return _difference(statistic, a, b, rest)

    distribution = _bootstrap_distribution(difference, n, n_resamples, seed)
    return PairedTest(
        difference=observed,
        p_value=_bootstrap_p_value(distribution),
        n=n,
        method="paired-bootstrap",
        ci=_percentile_interval(distribution, level),
    )


def paired_correlation_test(
    scores_a: Sequence[Score],
    scores_b: Sequence[Score],
    human: Sequence[Score],
    *,
    method: CorrelationMethod = "pearson",
    n_resamples: int = DEFAULT_N_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> PairedTest:
    """Is run B's correlation with the human scores different from run A's, on the same items?

    ``difference`` is B's correlation minus A's; ``p_value`` comes from `permutation_test` and ``ci``
    from `paired_bootstrap`, both over the items. Items missing a score in any column are dropped
    first, so both runs are compared on the same items.

    Examples:
        >>> human = [1, 2, 3, 4, 5, 6, 7, 8]
        >>> test = paired_correlation_test([2, 1, 4, 3, 6, 5, 8, 7], human, human, n_resamples=100)
        >>> round(test.difference, 3), test.n, test.method
        (0.095, 8, 'permutation+paired-bootstrap')
    """
    check_lengths(scores_a, scores_b, human)
    rows = [
        row
        for row in zip(scores_a, scores_b, human, strict=True)
        if not any(value is None or math.isnan(value) for value in row)
    ]
    a, b, h = ([row[i] for row in rows] for i in range(3))

    def coefficient(scores: Sequence[Score], reference: Sequence[Score]) -> float | None:
        return correlation(scores, reference, method).value

    test = permutation_test(coefficient, a, b, h, n_resamples=n_resamples, seed=seed)
    interval = paired_bootstrap(coefficient, a, b, h, n_resamples=n_resamples, level=level, seed=seed)
    return dataclasses.replace(test, method="permutation+paired-bootstrap", ci=interval.ci)
