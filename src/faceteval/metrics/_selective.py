"""Selective judging: how well confidence separates right verdicts from wrong ones, and a threshold
with a guarantee.

Every function takes each verdict's confidence (None: the judgment has none, and is never kept) and
whether it agrees with humans (a bool). They measure:

- `selective_agreement`: agreement on the ``ceil(coverage * n)`` most confident verdicts. Equal
  confidences have no order, so it is the *expectation* over every order of the ties (exact: the
  tied group at the cut gives each of its members the same chance to be kept), with the lowest and
  highest value any order gives.
- `confidence_auroc`: the chance that a verdict agreeing with humans has a higher confidence than one
  that does not (ties count half): how well confidence ranks them.
- `calibration_error`: the expected calibration error over equal-width bins, with the bins (the
  reliability plot).
- `tied_shares`: the share of verdicts at each confidence value, the largest first.
- `fixed_sequence_threshold`: the lowest confidence threshold at which agreement on the verdicts kept
  is at least a target with probability at least ``1 - delta`` (Jung, Brahman and Choi, "Trust or
  Escalate", ICLR 2025): the thresholds are tested from the highest down, each by an exact one-sided
  binomial (Clopper-Pearson) bound at level ``delta``, stopping at the first that fails. Testing in a
  fixed sequence, each test at level ``delta`` controls the chance of keeping any threshold whose
  agreement is below the target at ``delta``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

Confidences = Sequence[float | None]
Agrees = Sequence[bool]


@dataclass(frozen=True, slots=True)
class SelectiveAgreement:
    """Agreement on the most confident verdicts at one coverage.

    Attributes:
        coverage: The share of verdicts kept (asked for).
        kept: How many were kept: ``ceil(coverage * n)``.
        agreement: Agreement on them, in expectation over the orders of tied confidences; None when
            none is kept.
        low: The lowest agreement an order of the ties gives.
        high: The highest.
        min_confidence: The confidence of the least confident verdict kept.
        tied_at_cut: How many verdicts share the confidence at the cut (1: the cut splits no tie).
    """

    coverage: float
    kept: int
    agreement: float | None
    low: float | None
    high: float | None
    min_confidence: float | None
    tied_at_cut: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def selective_agreement(confidences: Confidences, agrees: Agrees, coverage: float) -> SelectiveAgreement:
    """Agreement on the ``ceil(coverage * n)`` most confident verdicts, exact over the orders of ties.

    A verdict without a confidence is the least confident of all (kept only at a coverage that needs
    it; the verdicts without one are tied among themselves).

    Examples:
        >>> at_half = selective_agreement([0.9, 0.5, 0.5, 0.5], [True, True, False, False], 0.5)
        >>> at_half.agreement, at_half.low, at_half.high, at_half.tied_at_cut
        (0.6666666666666666, 0.5, 1.0, 3)
    """
    _check_lengths(confidences, agrees)
    if not 0 < coverage <= 1:
        raise ValueError(f"coverage must be in (0, 1], got {coverage}")
    n = len(confidences)
    kept = math.ceil(coverage * n - 1e-9)
    if kept == 0:
        return SelectiveAgreement(coverage, 0, None, None, None, None, 0)
    groups = _groups(confidences, agrees)
    above = agreeing_above = 0
    for value, size, agreeing in groups:
        if above + size < kept:
            above, agreeing_above = above + size, agreeing_above + agreeing
            continue
        taken = kept - above
        expected = agreeing_above + taken * agreeing / size
        low = agreeing_above + max(0, taken - (size - agreeing))
        high = agreeing_above + min(taken, agreeing)
        return SelectiveAgreement(coverage, kept, expected / kept, low / kept, high / kept, value, size)
    raise AssertionError("unreachable: the groups hold every verdict")


def confidence_auroc(confidences: Confidences, agrees: Agrees) -> float | None:
    """The area under the ROC curve of confidence for "the verdict agrees with humans" (scikit-learn's
    ``roc_auc_score``); None when all verdicts agree or none does (or none has a confidence). Verdicts
    without a confidence are left out; tied confidences count half (the mean over their orders).

    Examples:
        >>> round(confidence_auroc([0.9, 0.8, 0.3, 0.3], [True, True, False, True]), 6)  # 5 of 6 pairs
        0.833333
    """
    _check_lengths(confidences, agrees)
    known = [
        (value, bool(agree)) for value, agree in zip(confidences, agrees, strict=True) if value is not None
    ]
    right = sum(agree for _, agree in known)
    if right == 0 or right == len(known):
        return None
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score([agree for _, agree in known], [value for value, _ in known]))


@dataclass(frozen=True, slots=True)
class CalibrationBin:
    """One bin of a reliability plot: verdicts with confidence in [low, high) (the last bin: [low, 1])."""

    low: float
    high: float
    n: int
    mean_confidence: float | None
    agreement: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Calibration:
    """The expected calibration error of confidence as a probability of agreeing with humans, with the
    bins it is measured over (the reliability plot). ``ece`` is None when no verdict has a confidence."""

    ece: float | None
    bins: tuple[CalibrationBin, ...]
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"ece": self.ece, "n": self.n, "bins": [b.as_dict() for b in self.bins]}


def calibration_error(confidences: Confidences, agrees: Agrees, bins: int = 10) -> Calibration:
    """The expected calibration error: the mean over ``bins`` equal-width bins of confidence of
    ``|agreement - mean confidence|``, weighted by the bins' sizes. Verdicts without one are left out.

    Examples:
        >>> calibration_error([0.95, 0.95, 0.15, 0.15], [True, True, True, False], bins=10).ece
        0.2
    """
    _check_lengths(confidences, agrees)
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    sums = [[0.0, 0, 0] for _ in range(bins)]  # confidence sum, n, agreeing
    for value, agree in zip(confidences, agrees, strict=True):
        if value is None:
            continue
        index = min(int(value * bins), bins - 1)
        sums[index][0] += value
        sums[index][1] += 1
        sums[index][2] += int(agree)
    n = sum(int(s[1]) for s in sums)
    made = []
    gap = 0.0
    for index, (total, count, agreeing) in enumerate(sums):
        count = int(count)
        mean = total / count if count else None
        rate = agreeing / count if count else None
        if mean is not None and rate is not None:
            gap += count * abs(rate - mean)
        made.append(CalibrationBin(index / bins, (index + 1) / bins, count, mean, rate))
    return Calibration(round(gap / n, 12) if n else None, tuple(made), n)


def tied_shares(confidences: Confidences, top: int | None = None) -> list[tuple[float | None, float]]:
    """The share of verdicts at each confidence value (None: without one), the largest share first.

    Examples:
        >>> tied_shares([0.5, 0.5, 0.5, 1.0])
        [(0.5, 0.75), (1.0, 0.25)]
    """
    if not confidences:
        return []
    counts = Counter(confidences)
    shares = sorted(counts.items(), key=lambda item: (-item[1], -math.inf if item[0] is None else -item[0]))
    return [(value, count / len(confidences)) for value, count in shares[:top]]


def agreement_lower_bound(agreeing: int, kept: int, delta: float) -> float:
    """The exact one-sided (Clopper-Pearson) lower bound on agreement at level ``delta`` (scipy's
    ``binomtest(...).proportion_ci(method="exact")``, one-sided at confidence ``1 - delta``): the lowest
    agreement ``p`` under which seeing ``agreeing`` or more of ``kept`` has probability at least
    ``delta``; 0 when nothing is kept or nothing agrees.

    Examples:
        >>> round(agreement_lower_bound(10, 10, 0.1), 4)  # 0.1 ** (1 / 10)
        0.7943
    """
    _check_delta(delta)
    if not 0 <= agreeing <= kept:
        raise ValueError(f"agreeing must be within 0..kept, got {agreeing} of {kept}")
    if kept == 0 or agreeing == 0:
        return 0.0
    from scipy import stats

    test = stats.binomtest(agreeing, kept, alternative="greater")
    return float(test.proportion_ci(confidence_level=1 - delta, method="exact").low)


@dataclass(frozen=True, slots=True)
class ThresholdTest:
    """One step of fixed-sequence testing: the verdicts at or above ``threshold``, and whether their
    lower bound reaches the target."""

    threshold: float
    kept: int
    agreeing: int
    lower_bound: float
    passed: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class FixedSequence:
    """The threshold fixed-sequence testing chose (see `fixed_sequence_threshold`).

    Attributes:
        target_agreement: The agreement asked for on the verdicts kept.
        delta: The chance allowed that it is not met.
        threshold: Keep a verdict whose confidence is at least this; None: no threshold passed, so
            every verdict is escalated.
        n: How many labelled verdicts calibrated it.
        kept: How many of them the threshold keeps.
        agreement: Their agreement with humans (None when none is kept).
        lower_bound: Its lower bound at level ``delta`` (0 when none is kept).
        tests: The thresholds tested, the highest first, up to the first that failed.
    """

    target_agreement: float
    delta: float
    threshold: float | None
    n: int
    kept: int
    agreement: float | None
    lower_bound: float
    tests: tuple[ThresholdTest, ...]

    @property
    def coverage(self) -> float:
        """The share of calibration verdicts kept."""
        return self.kept / self.n if self.n else 0.0

    def as_dict(self) -> dict[str, Any]:
        made = {name: getattr(self, name) for name in ("target_agreement", "delta", "threshold", "n", "kept")}
        return made | {
            "agreement": self.agreement,
            "lower_bound": self.lower_bound,
            "coverage": self.coverage,
            "tests": [test.as_dict() for test in self.tests],
        }


def labels_for_guarantee(target_agreement: float, delta: float) -> int:
    """The fewest kept, labelled verdicts that can pass calibration's test: even all agreeing, a
    Clopper-Pearson bound passes ``target_agreement`` at ``delta`` only from this many.

    Examples:
        >>> labels_for_guarantee(0.9, 0.1)
        22
    """
    if not 0 < target_agreement < 1 or not 0 < delta < 1:
        raise ValueError(
            f"target agreement and delta must be between 0 and 1, got {target_agreement!r}, {delta!r}"
        )
    return math.ceil(math.log(delta) / math.log(target_agreement))


def fixed_sequence_threshold(
    confidences: Confidences, agrees: Agrees, target_agreement: float, delta: float, *, min_kept: int = 1
) -> FixedSequence:
    """The lowest confidence threshold whose kept verdicts agree with humans at ``target_agreement``
    or more, with probability at least ``1 - delta``, by fixed-sequence testing.

    The candidate thresholds are the distinct confidences of the calibration verdicts, from the
    highest down, skipping those that keep fewer than ``min_kept``, and those that keep so few that
    even all of them agreeing could not show the target (``delta ** (1 / kept) < target_agreement``:
    22 verdicts at least for 0.9 at delta 0.1); both rules depend on the confidences alone, not on the
    labels, so the sequence stays fixed in advance and the guarantee holds. At each, the
    Clopper-Pearson lower bound of the kept verdicts' agreement (`agreement_lower_bound`) is compared
    with the target; the sequence stops at the first that falls short, and the last that passed is
    the threshold. A verdict without a confidence is never kept.

    Examples:
        >>> sure = [0.9] * 30 + [0.6] * 20
        >>> agrees = [True] * 30 + [True] * 10 + [False] * 10
        >>> chosen = fixed_sequence_threshold(sure, agrees, 0.9, 0.1)
        >>> chosen.threshold, chosen.kept, [test.passed for test in chosen.tests]
        (0.9, 30, [True, False])
    """
    _check_lengths(confidences, agrees)
    if not 0 < target_agreement <= 1:
        raise ValueError(f"target_agreement must be in (0, 1], got {target_agreement}")
    _check_delta(delta)
    if min_kept < 1:
        raise ValueError(f"min_kept must be at least 1, got {min_kept}")
    tests: list[ThresholdTest] = []
    kept = agreeing = 0
    chosen: ThresholdTest | None = None
    for value, size, group_agreeing in _groups(confidences, agrees):
        if value is None:
            break
        kept, agreeing = kept + size, agreeing + group_agreeing
        if kept < min_kept or delta ** (1 / kept) < target_agreement:
            continue  # too few to test: even all of them agreeing could not show the target
        bound = agreement_lower_bound(agreeing, kept, delta)
        test = ThresholdTest(value, kept, agreeing, bound, bound >= target_agreement)
        tests.append(test)
        if not test.passed:
            break
        chosen = test
    if chosen is None:
        return FixedSequence(target_agreement, delta, None, len(confidences), 0, None, 0.0, tuple(tests))
    return FixedSequence(
        target_agreement,
        delta,
        chosen.threshold,
        len(confidences),
        chosen.kept,
        chosen.agreeing / chosen.kept,
        chosen.lower_bound,
        tuple(tests),
    )


def _groups(confidences: Confidences, agrees: Agrees) -> list[tuple[float | None, int, int]]:
    """(confidence, verdicts, agreeing) per distinct confidence, the highest first, None last."""
    counts: dict[float | None, list[int]] = {}
    for value, agree in zip(confidences, agrees, strict=True):
        if value is not None and not math.isfinite(value):
            raise ValueError(f"a confidence must be finite, got {value}")
        entry = counts.setdefault(value, [0, 0])
        entry[0] += 1
        entry[1] += int(bool(agree))
    return sorted(
        ((value, size, agreeing) for value, (size, agreeing) in counts.items()),
        key=lambda group: math.inf if group[0] is None else -group[0],
    )


def _check_lengths(confidences: Confidences, agrees: Agrees) -> None:
    if len(confidences) != len(agrees):
        raise ValueError(f"confidences and agrees differ in length: {len(confidences)} != {len(agrees)}")


def _check_delta(delta: float) -> None:
    if not 0 < delta < 1:
        raise ValueError(f"delta (the chance the target may be missed) is between 0 and 1, got {delta!r}")
