"""The value objects every metric returns: `Rate`, `Correlation` and `PairedTest`."""

from __future__ import annotations

import operator
from dataclasses import dataclass

JSONValue = float | int | str | list[float] | None
"""What `as_dict` puts in a result's dictionary."""

BOOTSTRAP = "bootstrap"
"""`Rate.ci_method` of a percentile bootstrap interval over the items."""
CLOPPER_PEARSON = "clopper-pearson"
"""`Rate.ci_method` of the exact binomial interval, given where the bootstrap collapses to a point."""


def _ci_list(ci: tuple[float, float] | None) -> list[float] | None:
    return None if ci is None else [ci[0], ci[1]]


@dataclass(frozen=True, slots=True)
class Rate:
    """A fraction of items that count as hits, with the counts behind it.

    The None policy: an item whose verdict is None (the judge gave no verdict) stays in ``n`` as a
    miss and is also counted in ``missing``, so a judge never gains by failing to answer.

    Attributes:
        value: ``hits / n``, in [0, 1]; None when ``n`` is 0.
        hits: Items that count as hits.
        n: Items counted.
        missing: Items among ``n`` that had a None verdict (always misses).
        excluded: Items left out of ``n`` by the metric's own rule (e.g. human ties in
            `agreement_without_ties`), so ``n + excluded`` is the number of items given.
        ci: A confidence interval for ``value``, set by `with_ci`.
        ci_method: How ``ci`` was computed: ``"bootstrap"`` (percentile, over the items), or
            ``"clopper-pearson"`` (exact binomial, where every bootstrap resample gives the same
            rate, as with all hits or all misses); None without a ``ci``.
    """

    value: float | None
    hits: int
    n: int
    missing: int = 0
    excluded: int = 0
    ci: tuple[float, float] | None = None
    ci_method: str | None = None

    def __post_init__(self) -> None:
        # Counts made over numpy arrays are numpy numbers, which json cannot write: plain ones here.
        for name in ("hits", "n", "missing", "excluded"):
            object.__setattr__(self, name, operator.index(getattr(self, name)))
        if self.value is not None:
            object.__setattr__(self, "value", float(self.value))

    @classmethod
    def from_counts(cls, hits: int, n: int, *, missing: int = 0, excluded: int = 0) -> Rate:
        """Build a rate from its counts; ``value`` is ``hits / n``, or None when ``n`` is 0.

        Examples:
            >>> Rate.from_counts(3, 4, missing=1)
            Rate(value=0.75, hits=3, n=4, missing=1, excluded=0, ci=None, ci_method=None)
            >>> Rate.from_counts(0, 0).value is None
            True
        """
        return cls(value=hits / n if n else None, hits=hits, n=n, missing=missing, excluded=excluded)

    def as_dict(self) -> dict[str, JSONValue]:
        """The rate as plain JSON values (``ci`` as a two-element list or None, and its ``ci_method``)."""
        return {
            "value": self.value,
            "hits": self.hits,
            "n": self.n,
            "missing": self.missing,
            "excluded": self.excluded,
            "ci": _ci_list(self.ci),
            "ci_method": self.ci_method,
        }


@dataclass(frozen=True, slots=True)
class Correlation:
    """A correlation coefficient and what it was computed over.

    Attributes:
        value: The coefficient; None when it is undefined (fewer than two pairs, or a constant input).
        n: Pairs correlated; for `summary_level`, the number of groups averaged; for `system_level`,
            the number of systems.
        method: ``"pearson"``, ``"spearman"`` or ``"kendall"`` (Kendall's tau-b).
        p_value: scipy's two-sided p-value, exact for Spearman on 3 to 8 pairs (every pairing is
            tried); None for averages over groups and when scipy gives none.
        missing: Pairs dropped because either value was None or NaN.
        skipped: `summary_level` only: groups left out of the mean because their correlation is undefined.
        ci: A confidence interval for ``value``, set by `with_ci` and the ``*_with_ci`` functions.
        ci_method: How ``ci`` was made: ``"fisher-z"`` (Fisher's z around the coefficient, with a
            closed-form or a bootstrap standard error), or ``"t"`` (Student's t over the groups, for
            `summary_level`); None without a ``ci``.
    """

    value: float | None
    n: int
    method: str
    p_value: float | None = None
    missing: int = 0
    skipped: int = 0
    ci: tuple[float, float] | None = None
    ci_method: str | None = None

    def as_dict(self) -> dict[str, JSONValue]:
        """The correlation as plain JSON values (``ci`` as a two-element list or None)."""
        return {
            "value": self.value,
            "n": self.n,
            "method": self.method,
            "p_value": self.p_value,
            "missing": self.missing,
            "skipped": self.skipped,
            "ci": _ci_list(self.ci),
            "ci_method": self.ci_method,
        }


@dataclass(frozen=True, slots=True)
class PairedTest:
    """A comparison of two runs (A and B) over the same items.

    Attributes:
        difference: The statistic of run B minus that of run A; None when either is undefined.
        p_value: Two-sided p-value for "no difference"; None when it cannot be computed.
        n: Items compared.
        method: ``"mcnemar-exact"``, ``"permutation"``, ``"paired-bootstrap"``, or
            ``"permutation+paired-bootstrap"`` (`paired_correlation_test`).
        ci: Confidence interval for ``difference`` (from a paired bootstrap).
        b01: McNemar only: items run A got wrong and run B got right.
        b10: McNemar only: items run A got right and run B got wrong.
    """

    difference: float | None
    p_value: float | None
    n: int
    method: str
    ci: tuple[float, float] | None = None
    b01: int | None = None
    b10: int | None = None

    def as_dict(self) -> dict[str, JSONValue]:
        """The test result as plain JSON values (``ci`` as a two-element list or None)."""
        return {
            "difference": self.difference,
            "p_value": self.p_value,
            "n": self.n,
            "method": self.method,
            "ci": _ci_list(self.ci),
            "b01": self.b01,
            "b10": self.b10,
        }
