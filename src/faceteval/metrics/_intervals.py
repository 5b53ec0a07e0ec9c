"""Closed-form confidence intervals: a proportion's (Wilson), a mean's (Student's t) and a correlation's
(Fisher's z). Each is built around its estimate, so it always contains it."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from statistics import NormalDist

from faceteval.metrics._checks import check_level

WILSON = "wilson"
"""The ``method`` of a Wilson score interval."""
STUDENT_T = "t"
"""The ``method`` of a Student's t interval of a mean."""
FISHER_Z = "fisher-z"
"""The ``ci_method`` of a Fisher's z interval of a correlation."""

KENDALL_VARIANCE = 0.437
"""Fieller, Hartley and Pearson's (1957) variance factor of Fisher's z of Kendall's tau:
``0.437 / (n - 4)``."""


def wilson_interval(hits: float, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """The Wilson score interval of the proportion ``hits / n``; None when ``n`` is 0.

    ``hits`` may be fractional: the mean of ``n`` outcomes in [0, 1] (a tie counted as half a win).
    The interval assumes each outcome varies as a coin does (variance ``p(1 - p)``), the most an
    outcome in [0, 1] with mean ``p`` can vary, so with fractional outcomes it is conservative (at
    least as wide as needed). For whole ``hits`` it is scipy's ``proportion_ci(method="wilson")``. The
    normal quantile is the standard library's (`statistics.NormalDist`, to double precision as scipy's),
    so that a judge run's rates load no scipy.

    Examples:
        >>> [round(bound, 4) for bound in wilson_interval(7, 10)]
        [0.3968, 0.8922]
        >>> [round(bound, 4) for bound in wilson_interval(0, 5)]
        [0.0, 0.4345]
        >>> wilson_interval(0, 0) is None
        True
    """
    check_level(level)
    if n <= 0:
        return None
    if not 0 <= hits <= n:
        raise ValueError(f"hits must be within 0..n, got {hits} of {n}")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(mean: float, sd: float, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """Student's t interval of a mean of ``n`` values with sample standard deviation ``sd``.

    None for fewer than two values; a zero-width interval when they are all equal.

    Examples:
        >>> [round(bound, 3) for bound in mean_interval(3.0, 1.0, 25)]
        [2.587, 3.413]
        >>> mean_interval(4.0, 0.0, 3), mean_interval(4.0, 0.0, 1)
        ((4.0, 4.0), None)
    """
    check_level(level)
    if n < 2:
        return None
    if sd == 0:
        return mean, mean
    from scipy import stats

    low, high = stats.t.interval(level, n - 1, loc=mean, scale=sd / math.sqrt(n))
    return float(low), float(high)


def fisher_interval(r: float, se: float, level: float = 0.95) -> tuple[float, float] | None:
    """Fisher's z interval of a correlation ``r``: ``tanh(atanh(r) +- z * se)``, where ``se`` is the
    standard error of ``atanh(r)``.

    The interval is symmetric around ``atanh(r)``, so it contains ``r`` (its ends are widened by the
    rounding of ``tanh(atanh(r))`` where that misses ``r`` by a bit). None when ``|r|`` is 1, where
    ``atanh`` is infinite, or ``se`` is not a finite number of at least 0. With ``se`` from
    `fisher_se`, a Pearson coefficient's interval is scipy's ``PearsonRResult.confidence_interval()``.

    Examples:
        >>> [round(bound, 4) for bound in fisher_interval(0.5, fisher_se(0.5, 28, "pearson"))]
        [0.156, 0.7358]
        >>> fisher_interval(1.0, 0.2) is None
        True
    """
    check_level(level)
    if not (abs(r) < 1 and math.isfinite(se) and se >= 0):
        return None
    z = NormalDist().inv_cdf(0.5 + level / 2)
    centre = math.atanh(r)
    return min(r, math.tanh(centre - z * se)), max(r, math.tanh(centre + z * se))


def fisher_se(r: float, n: int, method: str) -> float | None:
    """The standard error of Fisher's z of a coefficient over ``n`` pairs: ``1 / sqrt(n - 3)`` for
    Pearson's r (Fisher), ``sqrt((1 + r**2 / 2) / (n - 3))`` for Spearman's rho (Bonett and Wright,
    2000), ``sqrt(0.437 / (n - 4))`` for Kendall's tau (Fieller, Hartley and Pearson, 1957); None
    with too few pairs (3 or fewer; 4 or fewer for Kendall's tau).

    Examples:
        >>> fisher_se(0.3, 12, "pearson"), round(fisher_se(0.0, 12, "kendall"), 4)
        (0.3333333333333333, 0.2337)
    """
    if method == "kendall":
        return math.sqrt(KENDALL_VARIANCE / (n - 4)) if n > 4 else None
    if n <= 3:
        return None
    if method == "spearman":
        return math.sqrt((1 + r * r / 2) / (n - 3))
    if method == "pearson":
        return 1 / math.sqrt(n - 3)
    raise ValueError(f"unknown correlation method {method!r}")


def bootstrap_fisher_se(r: float, resampled: Sequence[float]) -> float | None:
    """The standard error of Fisher's z of ``r`` from its values on resamples: their standard
    deviation over ``1 - r**2``, the slope of ``atanh`` at ``r`` (the delta method, which stays finite
    where a resample's coefficient is 1). None with fewer than two resampled values or ``|r|`` of 1.

    Examples:
        >>> round(bootstrap_fisher_se(0.6, [0.5, 0.6, 0.7]), 4)
        0.1562
    """
    if len(resampled) < 2 or not abs(r) < 1:
        return None
    return statistics.stdev(resampled) / (1 - r * r)
