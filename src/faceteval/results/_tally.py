"""Running counts a result is made from, kept as judgments stream past (memory bounded by systems and
facets, not by judgments)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from faceteval.core import Mean, Proportion
from faceteval.metrics import mean_interval, wilson_interval


@dataclass(slots=True)
class Tally:
    """Wins, ties and losses of one side of comparisons, and comparisons that failed."""

    wins: int = 0
    ties: int = 0
    losses: int = 0
    failed: int = 0

    def add(self, outcome: int) -> None:
        """Count one comparison: 1 won, 0 tied, -1 lost."""
        if outcome > 0:
            self.wins += 1
        elif outcome < 0:
            self.losses += 1
        else:
            self.ties += 1

    @property
    def judged(self) -> int:
        """Comparisons with an outcome."""
        return self.wins + self.ties + self.losses

    def win_rate(self, level: float) -> Proportion:
        """(wins + ties / 2) over the judged comparisons."""
        return proportion(self.wins + self.ties / 2, self.judged, level)

    def win_rate_without_ties(self, level: float) -> Proportion:
        """Wins over wins and losses."""
        return proportion(self.wins, self.wins + self.losses, level)


def proportion(hits: float, n: int, level: float) -> Proportion:
    """``hits / n`` with its Wilson interval.

    Examples:
        >>> rate = proportion(3, 4, 0.95)
        >>> rate.value, rate.n, [round(b, 3) for b in rate.ci]
        (0.75, 4, [0.301, 0.954])
    """
    return Proportion(value=hits / n if n else None, hits=hits, n=n, ci=wilson_interval(hits, n, level))


@dataclass(slots=True)
class Running:
    """The count, mean and spread of a stream of numbers (Welford's update: no cancellation)."""

    n: int = 0
    mean: float = 0.0
    squares: float = 0.0
    """Sum of squared differences from the mean."""

    def add(self, value: float) -> None:
        """Count ``value``."""
        self.n += 1
        delta = value - self.mean
        self.mean += delta / self.n
        self.squares += delta * (value - self.mean)

    def summary(self, level: float) -> Mean:
        """The mean, with its standard deviation and t interval.

        Examples:
            >>> running = Running()
            >>> for value in (2.0, 4.0, 6.0):
            ...     running.add(value)
            >>> result = running.summary(0.95)
            >>> result.value, result.n, result.sd
            (4.0, 3, 2.0)
        """
        if not self.n:
            return Mean(value=None, n=0)
        if self.n < 2:
            return Mean(value=self.mean, n=1)
        sd = math.sqrt(max(self.squares, 0.0) / (self.n - 1))
        return Mean(value=self.mean, n=self.n, sd=sd, ci=mean_interval(self.mean, sd, self.n, level))


@dataclass(slots=True)
class FacetTally:
    """One facet across a run: scores per system, weights, and the verdicts it agreed with or decided."""

    name: str
    judgments: int = 0
    weight: Running = field(default_factory=Running)
    means: dict[str, Running] = field(default_factory=dict)
    verdicts: int = 0
    agreed: int = 0
    decided: int = 0
    decided_for: dict[str, int] = field(default_factory=dict)

    def score(self, system: str, value: float) -> None:
        """Count ``system``'s score on this facet."""
        self.means.setdefault(system, Running()).add(value)
