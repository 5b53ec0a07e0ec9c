"""Prediction-powered inference: a mean (a win rate, a score) from a few human labels and many verdicts.

A judge's win rate is the mean of its own verdicts: its interval is about the judge, not about
people, and the judge's biases move it. The human-only mean of a few labels is unbiased but wide.
Prediction-powered inference (Angelopoulos et al., Science 2023; PPI++, arXiv:2311.01453) combines
them: the judge's mean over the unlabelled items, corrected by the mean of ``label - verdict`` on
the labelled ones (the rectifier), with a power-tuning weight ``lambda`` chosen from the data. It is
valid whatever the judge does, and narrower than the human-only interval as far as the judge's
verdicts predict the labels. The estimates are ``ppi_py``'s (the PyPI package ``ppi-python``).

Both hold when the labelled items are a random sample of the items judged: labels chosen where the
judge is least sure are not.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

import numpy as np

from faceteval.errors import ConfigError

PPI: Final = "ppi++"
"""Prediction-powered inference with power tuning (``ppi_py.ppi_mean_ci``)."""
CLASSICAL: Final = "classical"
"""The human labels alone: the mean and its normal interval (``ppi_py.classical_mean_ci``)."""
MIN_LABELS = 2
"""Labels below which no interval is given: a spread needs two."""

Method = Literal["ppi++", "classical"]


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean estimated from human labels (and, for PPI, a judge's predictions)."""

    method: Method
    value: float | None
    """None with fewer than `MIN_LABELS` labels."""
    ci: tuple[float, float] | None
    """Two-sided, at ``level``, clipped to the values' range."""
    level: float
    labels: int
    """Human labels used."""
    unlabelled: int = 0
    """Predictions of items without a label (PPI)."""

    @property
    def width(self) -> float | None:
        """The interval's width; None without one."""
        return None if self.ci is None else self.ci[1] - self.ci[0]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (with the width)."""
        return {**asdict(self), "ci": None if self.ci is None else list(self.ci), "width": self.width}


def _ppi() -> Any:
    try:
        with warnings.catch_warnings():  # ppi_py silences every warning of the process on import
            import ppi_py
    except ImportError as exc:  # an optional extra: its numba and statsmodels are heavy
        raise ConfigError("prediction-powered results need ppi-python: pip install 'faceteval[ppi]'") from exc
    return ppi_py


def ppi_available() -> bool:
    """Whether ``ppi_py`` can be imported (the ``ppi`` extra)."""
    try:
        _ppi()
    except ConfigError:
        return False
    return True


def _check(level: float, bounds: tuple[float, float]) -> None:
    if not 0 < level < 1:
        raise ConfigError(f"level must be between 0 and 1 (0.95 for 95%), got {level!r}")
    if not bounds[0] < bounds[1]:
        raise ConfigError(f"bounds must be (low, high) with low < high, got {bounds!r}")


def _clip(low: float, high: float, bounds: tuple[float, float]) -> tuple[float, float]:
    return (max(bounds[0], min(bounds[1], low)), max(bounds[0], min(bounds[1], high)))


def prediction_powered_mean(
    labels: Sequence[float],
    predicted: Sequence[float],
    unlabelled: Sequence[float],
    *,
    level: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    lam: float | None = None,
) -> Estimate:
    """The PPI++ estimate of the mean of ``labels`` over all items, with its interval.

    ``labels`` and ``predicted`` are the human value and the judge's prediction of each labelled
    item, in the same order; ``unlabelled`` the judge's predictions of the items without a label.
    ``bounds`` is the values' range (a win rate's is 0 to 1): the interval is clipped to it, which
    keeps its coverage. ``lam`` is the power-tuning weight: None chooses it from the data (PPI++),
    1 is the classical PPI estimator ``mean(unlabelled) + mean(labels - predicted)``, 0 the labels
    alone.

    Examples:
        >>> labels, predicted = [1, 0, 1, 1, 0, 1], [1, 0, 1, 0, 0, 1]
        >>> estimate = prediction_powered_mean(labels, predicted, [1, 1, 0, 1] * 50, lam=1)
        >>> estimate.labels, estimate.unlabelled, round(estimate.value, 4)  # 0.75 + 1/6
        (6, 200, 0.9167)
    """
    _check(level, bounds)
    if len(labels) != len(predicted):
        raise ConfigError(f"{len(labels)} labels but {len(predicted)} predictions of them")
    n, big_n = len(labels), len(unlabelled)
    if n < MIN_LABELS or big_n == 0:
        return Estimate(PPI, None, None, level, n, big_n)
    ppi_py = _ppi()
    arrays = tuple(np.asarray(a, dtype=np.float64) for a in (labels, predicted, unlabelled))
    value, low, high = _ppi_mean(ppi_py, arrays, level, lam)
    if not all(math.isfinite(v) for v in (value, low, high)) and lam is None:
        value, low, high = _ppi_mean(ppi_py, arrays, level, 1.0)  # no spread at all: lambda is 0/0
    return Estimate(PPI, min(bounds[1], max(bounds[0], value)), _clip(low, high, bounds), level, n, big_n)


def _ppi_mean(
    ppi_py: Any, arrays: tuple[Any, ...], level: float, lam: float | None
) -> tuple[float, float, float]:
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when nothing varies: a nan, handled
        value = ppi_py.ppi_mean_pointestimate(*arrays, lam=lam)
        low, high = ppi_py.ppi_mean_ci(*arrays, alpha=1 - level, lam=lam)
    return tuple(float(np.asarray(v).reshape(-1)[0]) for v in (value, low, high))  # type: ignore[return-value]


def human_mean(
    labels: Sequence[float], *, level: float = 0.95, bounds: tuple[float, float] = (0.0, 1.0)
) -> Estimate:
    """The mean of ``labels`` alone, with ``ppi_py``'s classical (normal) interval.

    Examples:
        >>> estimate = human_mean([1, 0, 1, 1])
        >>> estimate.value, estimate.labels
        (0.75, 4)
    """
    _check(level, bounds)
    n = len(labels)
    if n < MIN_LABELS:
        return Estimate(CLASSICAL, None, None, level, n)
    y = np.asarray(labels, dtype=np.float64)
    low, high = (float(np.asarray(b).reshape(-1)[0]) for b in _ppi().classical_mean_ci(y, alpha=1 - level))
    return Estimate(CLASSICAL, float(y.mean()), _clip(low, high, bounds), level, n)


def labels_for_width(width: float, *, level: float = 0.95, current: Estimate | None = None) -> int:
    """About how many labels an interval of ``width`` needs, at ``level``.

    From ``current`` (an estimate with labels and an interval), by the interval's shrinking as one
    over the square root of the labels; without one, the human-only worst case (a spread of 1/2,
    which prediction power only improves on).

    Examples:
        >>> labels_for_width(0.1)
        385
    """
    if not 0 < width < 1:
        raise ConfigError(f"width must be between 0 and 1, got {width!r}")
    current_width = None if current is None else current.width
    if current is None or current_width is None or current.labels < MIN_LABELS or current_width <= 0:
        from scipy.stats import norm

        z = float(norm.ppf(0.5 + level / 2))
        return math.ceil((2 * z * 0.5 / width) ** 2)
    return max(current.labels, math.ceil(current.labels * (current_width / width) ** 2))
