"""Thresholds a result must reach (``judge --fail-under``), for gating a pipeline on a judge run."""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from faceteval.core import HumanEstimate, JudgeResult, Standing
from faceteval.errors import ConfigError

_Reading = Callable[[JudgeResult, str | None], float | None]


def _standing(result: JudgeResult, system: str | None) -> Standing | None:
    found = result.pairwise.systems if result.pairwise is not None else []
    return next((s for s in found if s.name == system), None)


def _win_rate(result: JudgeResult, system: str | None) -> float | None:
    standing = _standing(result, system)
    return None if standing is None else standing.win_rate.value


def _win_rate_without_ties(result: JudgeResult, system: str | None) -> float | None:
    standing = _standing(result, system)
    return None if standing is None else standing.win_rate_without_ties.value


def _mean(result: JudgeResult, system: str | None) -> float | None:
    if result.pointwise is not None:
        found = next((s for s in result.pointwise.systems if s.name == system), None)
        if found is not None:
            return found.score.value
    standing = _standing(result, system)
    return None if standing is None or standing.score is None else standing.score.value


def _swap_consistency(result: JudgeResult, system: str | None) -> float | None:
    consistency = result.pairwise.consistency if result.pairwise is not None else None
    return None if consistency is None else consistency.rate.value


def _ok_rate(result: JudgeResult, system: str | None) -> float | None:
    return result.ok_rate.value


def _human(result: JudgeResult, system: str | None) -> HumanEstimate | None:
    rows = result.human.systems if result.human is not None else []
    return next((row for row in rows if row.name == system), None)


def _ppi_value(result: JudgeResult, system: str | None) -> float | None:
    row = _human(result, system)
    return None if row is None else row.ppi.value


def _ppi_low(result: JudgeResult, system: str | None) -> float | None:
    row = _human(result, system)
    return None if row is None or row.ppi.ci is None else row.ppi.ci[0]


@dataclass(frozen=True, slots=True)
class _Metric:
    per_system: bool
    read: _Reading
    meaning: str


METRICS: dict[str, _Metric] = {
    "win_rate": _Metric(True, _win_rate, "a system's win rate, ties counted half"),
    "win_rate_without_ties": _Metric(True, _win_rate_without_ties, "a system's win rate, ties left out"),
    "mean": _Metric(True, _mean, "a system's mean overall score"),
    "swap_consistency": _Metric(False, _swap_consistency, "how often the orders agreed, under --swap"),
    "ok_rate": _Metric(False, _ok_rate, "the share of judgments that did not fail"),
    "ppi_win_rate": _Metric(True, _ppi_value, "a system's prediction-powered win rate (with human labels)"),
    "ppi_win_rate_low": _Metric(
        True, _ppi_low, "the lower end of a system's prediction-powered win rate interval"
    ),
    "ppi_mean": _Metric(True, _ppi_value, "a system's prediction-powered mean score (with human scores)"),
    "ppi_mean_low": _Metric(True, _ppi_low, "the lower end of a system's prediction-powered mean interval"),
}
"""What ``--fail-under`` can check, by name."""


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` to ``word``, or nothing.

    Examples:
        >>> did_you_mean("win_rat", ["win_rate", "mean"])
        " (did you mean 'win_rate'?)"
    """
    folded = {choice.casefold(): choice for choice in choices}
    close = difflib.get_close_matches(word.casefold(), list(folded), n=1)
    return f" (did you mean {folded[close[0]]!r}?)" if close else ""


@dataclass(frozen=True, slots=True)
class Threshold:
    """``METRIC[:SYSTEM]=VALUE``: the result fails when the metric is below VALUE, or undefined.

    Examples:
        >>> threshold = Threshold.parse("win_rate:B=0.5")
        >>> threshold.metric, threshold.system, threshold.value, str(threshold)
        ('win_rate', 'B', 0.5, 'win_rate:B=0.5')
    """

    metric: str
    system: str | None
    value: float

    @classmethod
    def parse(cls, text: str) -> Threshold:
        """Read ``METRIC[:SYSTEM]=VALUE`` (the system's name may hold ``:`` and ``=``; the value follows
        the last ``=``).

        Raises:
            ConfigError: Not of that form, an unknown metric, a system missing or not wanted.
        """
        named, equals, number = text.rpartition("=")
        metric, colon, system = named.partition(":")
        if not equals or not metric:
            raise ConfigError(f"{text!r} is not METRIC[:SYSTEM]=VALUE (such as win_rate:B=0.5)")
        if metric not in METRICS:
            hint = did_you_mean(metric, list(METRICS))
            raise ConfigError(f"{text!r}: no metric {metric!r}{hint}; the metrics are {', '.join(METRICS)}")
        try:
            value = float(number)
        except ValueError:
            raise ConfigError(f"{text!r}: {number!r} is not a number") from None
        if not math.isfinite(value):
            raise ConfigError(f"{text!r}: the threshold must be a finite number")
        if METRICS[metric].per_system and not system:
            raise ConfigError(
                f"{text!r}: {metric} is {METRICS[metric].meaning}: name the system ({metric}:B={number})"
            )
        if not METRICS[metric].per_system and colon:
            raise ConfigError(f"{text!r}: {metric} is the run's, not a system's ({metric}={number})")
        return cls(metric, system if colon else None, value)

    def __str__(self) -> str:
        system = "" if self.system is None else f":{self.system}"
        return f"{self.metric}{system}={self.value:g}"

    def unknown_system(self, systems: Sequence[str]) -> str | None:
        """What is wrong when the threshold names a system not among ``systems``, else None."""
        if self.system is None or self.system in systems:
            return None
        hint, listed = did_you_mean(self.system, systems), ", ".join(systems) or "none"
        return f"{self}: no system {self.system!r} in this run{hint}; its systems: {listed}"

    def observed(self, result: JudgeResult) -> float | None:
        """The metric's value in ``result``; None when it is not defined there."""
        return METRICS[self.metric].read(result, self.system)

    def passes(self, result: JudgeResult) -> bool:
        """Whether ``result`` reaches the threshold (an undefined value does not)."""
        value = self.observed(result)
        return value is not None and value >= self.value


def result_systems(result: JudgeResult) -> list[str]:
    """Every system a result names: those compared, then those scored alone."""
    names = [s.name for s in result.pairwise.systems] if result.pairwise is not None else []
    if result.pointwise is not None:
        names += [s.name for s in result.pointwise.systems if s.name not in names]
    return names
