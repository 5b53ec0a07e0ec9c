"""How a result is computed: its confidence level, resampling and how many facets it lists."""

from __future__ import annotations

from dataclasses import dataclass

from faceteval._util.checks import whole_number
from faceteval.errors import ConfigError

DEFAULT_PENALTY = 1.0
"""The Bradley-Terry regression's ``C`` (inverse L2 strength): a weak prior, which ties down systems
never compared with the rest."""
DEFAULT_BT_RESAMPLES = 1000
"""Resamples behind a Bradley-Terry ranking's intervals."""
DEFAULT_MAX_FACETS = 30
"""Facets a result lists (those met most often); generated facets differ from query to query."""


@dataclass(frozen=True, slots=True)
class ResultOptions:
    """How a result is computed.

    Attributes:
        level: The confidence level of every interval.
        n_resamples: Resamples behind a Bradley-Terry ranking's intervals (0: none; see
            `faceteval.results.Ranking`).
        seed: The seed of those resamples: the same judgments give the same result.
        penalty: The Bradley-Terry regression's inverse L2 strength ``C``.
        max_facets: Facets listed, those met most often first; the rest are counted.
    """

    level: float = 0.95
    n_resamples: int = DEFAULT_BT_RESAMPLES
    seed: int = 0
    penalty: float = DEFAULT_PENALTY
    max_facets: int = DEFAULT_MAX_FACETS

    def __post_init__(self) -> None:
        if not 0 < self.level < 1:
            raise ConfigError(f"level must be between 0 and 1 (0.95 for 95%), got {self.level!r}")
        for name, least in (("n_resamples", 0), ("max_facets", 0)):
            if not whole_number(getattr(self, name), least):
                raise ConfigError(
                    f"{name} must be a whole number of at least {least}, got {getattr(self, name)!r}"
                )
        if not self.penalty > 0:
            raise ConfigError(f"penalty must be a number above 0, got {self.penalty!r}")


DEFAULT_RESULT_OPTIONS = ResultOptions()
