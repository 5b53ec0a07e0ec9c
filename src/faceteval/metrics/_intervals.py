"""Closed-form confidence intervals: a proportion's (Wilson) and a mean's (Student's t)."""

from __future__ import annotations

import math
from statistics import NormalDist

from faceteval.metrics._checks import check_level

WILSON = "wilson"
"""The ``method`` of a Wilson score interval."""
STUDENT_T = "t"
"""The ``method`` of a Student's t interval of a mean."""


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
