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
        group_by: Add the result of each group of instances that share this field's value (an
            instance field: ``category``, ``task``, ``query``...; else a metadata key, where a file's
            columns no field uses are carried): `JudgeResult.groups`. None: no groups.
    """

    level: float = 0.95
    n_resamples: int = DEFAULT_BT_RESAMPLES
    seed: int = 0
    penalty: float = DEFAULT_PENALTY
    max_facets: int = DEFAULT_MAX_FACETS
    group_by: str | None = None

    def __post_init__(self) -> None:
        if self.group_by is not None and (not isinstance(self.group_by, str) or not self.group_by.strip()):
            raise ConfigError(f"group_by names a field or metadata key, got {self.group_by!r}")
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
