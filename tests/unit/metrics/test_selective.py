"""Selective judging: exact tie expectations, AUROC, calibration error and fixed-sequence testing,
each checked against an independent computation."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import binom
from sklearn.metrics import roc_auc_score

from faceteval import metrics


def _brute_force(confidences, agrees, coverage):
    """Agreement on the top ``ceil(coverage * n)`` over every order of the ties (every permutation that
    sorts by confidence, descending): its mean, lowest and highest."""
    n = len(confidences)
    kept = math.ceil(coverage * n)
    values = []
    for order in itertools.permutations(range(n)):
        ranked = sorted(order, key=lambda k: -confidences[k])  # stable: ties in this permutation's order
        values.append(sum(agrees[k] for k in ranked[:kept]) / kept)
    return sum(values) / len(values), min(values), max(values)


@pytest.mark.parametrize("seed", range(6))
def test_selective_agreement_is_the_exact_expectation_over_tie_orders(seed):
    rng = random.Random(seed)
    confidences = [rng.choice([0.2, 0.5, 0.5, 0.9]) for _ in range(7)]
    agrees = [rng.random() < 0.6 for _ in range(7)]
    for coverage in (0.3, 0.5, 0.75, 1.0):
        got = metrics.selective_agreement(confidences, agrees, coverage)
        mean, low, high = _brute_force(confidences, agrees, coverage)
        assert got.agreement == pytest.approx(mean)
        assert (got.low, got.high) == (pytest.approx(low), pytest.approx(high))


def test_verdicts_without_a_confidence_are_kept_last():
    got = metrics.selective_agreement([None, 0.1, None], [True, False, True], 1 / 3)
    assert (got.agreement, got.min_confidence) == (0.0, 0.1)


@pytest.mark.parametrize("seed", range(5))
def test_auroc_matches_scikit_learn_with_ties(seed):
    rng = np.random.default_rng(seed)
    confidences = rng.choice([0.0, 0.25, 0.5, 1.0], size=200).tolist()
    agrees = (rng.random(200) < np.array(confidences) * 0.6 + 0.2).tolist()
    assert metrics.confidence_auroc(confidences, agrees) == pytest.approx(roc_auc_score(agrees, confidences))


def test_auroc_needs_both_outcomes():
    assert metrics.confidence_auroc([0.1, 0.9], [True, True]) is None


def test_calibration_error_by_hand():
    got = metrics.calibration_error([0.05, 0.05, 0.55, 0.95, None], [False, True, True, True, False], bins=2)
    # bin [0, 0.5): conf 0.05, agreement 0.5 -> gap 0.45 x 2; bin [0.5, 1]: conf 0.75, agreement 1 -> 0.25 x 2
    assert got.ece == pytest.approx((2 * 0.45 + 2 * 0.25) / 4)
    assert [b.n for b in got.bins] == [2, 2] and got.n == 4


def test_a_perfectly_calibrated_confidence_has_a_small_error():
    rng = np.random.default_rng(3)
    confidences = rng.random(20000)
    agrees = rng.random(20000) < confidences
    assert metrics.calibration_error(confidences.tolist(), agrees.tolist()).ece < 0.02


def _upper_risk_by_root(errors: int, kept: int, delta: float) -> float:
    """The Clopper-Pearson upper bound on the error rate as Trust or Escalate computes it: the rate r
    at which seeing ``errors`` or fewer has probability ``delta``."""
    if errors == kept:
        return 1.0
    return brentq(lambda r: binom.cdf(errors, kept, r) - delta, 1e-12, 1 - 1e-12)


@pytest.mark.parametrize(("agreeing", "kept"), [(30, 30), (45, 50), (12, 20), (1, 9), (199, 250)])
@pytest.mark.parametrize("delta", [0.05, 0.1, 0.2])
def test_the_lower_bound_is_the_binomial_root(agreeing, kept, delta):
    bound = metrics.agreement_lower_bound(agreeing, kept, delta)
    assert bound == pytest.approx(1 - _upper_risk_by_root(kept - agreeing, kept, delta), abs=1e-9)


def _by_hand(confidences, agrees, target, delta):
    """Fixed-sequence testing written out: thresholds from the highest down, stop at the first whose
    binomial bound misses the target."""
    chosen = None
    for threshold in sorted(set(confidences), reverse=True):
        kept = [a for c, a in zip(confidences, agrees, strict=True) if c >= threshold]
        if 1 - _upper_risk_by_root(0, len(kept), delta) < target:
            continue  # too few: even all agreeing would not pass
        if 1 - _upper_risk_by_root(len(kept) - sum(kept), len(kept), delta) < target:
            break
        chosen = threshold
    return chosen


@pytest.mark.parametrize("seed", range(8))
def test_fixed_sequence_matches_a_computation_by_hand(seed):
    rng = np.random.default_rng(seed)
    confidences = rng.choice(np.linspace(0.5, 1, 11), size=300).round(3).tolist()
    agrees = (rng.random(300) < np.array(confidences)).tolist()
    chosen = metrics.fixed_sequence_threshold(confidences, agrees, 0.85, 0.1)
    assert chosen.threshold == _by_hand(confidences, agrees, 0.85, 0.1)
    if chosen.threshold is not None:
        kept = [a for c, a in zip(confidences, agrees, strict=True) if c >= chosen.threshold]
        assert (chosen.kept, chosen.agreement) == (len(kept), pytest.approx(sum(kept) / len(kept)))
        assert chosen.lower_bound >= 0.85


def test_no_threshold_when_even_the_most_confident_miss_the_target():
    chosen = metrics.fixed_sequence_threshold([0.9] * 10 + [0.1] * 10, [False] * 20, 0.9, 0.1)
    assert chosen.threshold is None and chosen.kept == 0 and chosen.coverage == 0.0


def _population_agreement(threshold: float) -> float:
    """In the simulation below a verdict of confidence c agrees with probability c, confidences uniform
    on [0.5, 1]: agreement on those at or above t is the mean of c over [t, 1]."""
    return (threshold + 1) / 2


def _naive_threshold(confidences, agrees, target):
    """The lowest threshold whose *observed* agreement reaches the target (no bound): what a user
    picking a cut-off by eye does."""
    chosen = None
    for threshold in sorted(set(confidences), reverse=True):
        kept = [a for c, a in zip(confidences, agrees, strict=True) if c >= threshold]
        if sum(kept) / len(kept) >= target:
            chosen = threshold
    return chosen


def test_the_guarantee_holds_where_a_threshold_picked_by_eye_violates_it():
    target, delta, trials = 0.9, 0.1, 400
    rng = np.random.default_rng(11)
    guaranteed = naive = 0
    for _ in range(trials):
        confidences = rng.uniform(0.5, 1, size=150).round(2)
        agrees = rng.random(150) < confidences
        chosen = metrics.fixed_sequence_threshold(confidences.tolist(), agrees.tolist(), target, delta)
        if chosen.threshold is not None and _population_agreement(chosen.threshold) < target:
            guaranteed += 1
        by_eye = _naive_threshold(confidences.tolist(), agrees.tolist(), target)
        if by_eye is not None and _population_agreement(by_eye) < target:
            naive += 1
    assert guaranteed / trials <= delta
    assert naive / trials > 2 * delta  # the check can fail: without the bound the target is missed often


def test_tied_shares_and_checks():
    assert metrics.tied_shares([None, None, 0.5]) == [(None, 2 / 3), (0.5, 1 / 3)]
    with pytest.raises(ValueError, match="delta"):
        metrics.fixed_sequence_threshold([0.5], [True], 0.9, 1.5)
    with pytest.raises(ValueError, match="length"):
        metrics.selective_agreement([0.5], [True, False], 0.5)


def test_thresholds_too_few_to_pass_are_skipped_not_stopped_at() -> None:
    # three verdicts sure of themselves, all right, cannot show 90% at delta 0.1 (0.1 ** (1 / 3) < 0.9):
    # they are passed over, and the 40 at or above the next threshold are tested
    confidences = [0.99] * 3 + [0.8] * 37 + [0.2] * 20
    agrees = [True] * 40 + [False] * 20
    chosen = metrics.fixed_sequence_threshold(confidences, agrees, 0.9, 0.1)
    assert chosen.threshold == 0.8 and chosen.kept == 40
    assert [test.threshold for test in chosen.tests] == [0.8, 0.2]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_calibration_bins_are_scikit_learns_off_their_edges(seed):
    """Away from the bins' edges (where scikit-learn puts a value in the bin below, we in the bin
    above), each bin's agreement and mean confidence are scikit-learn's ``calibration_curve``'s."""
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(seed)
    confidences = (rng.integers(0, 10, 300) + rng.uniform(0.05, 0.95, 300)) / 10
    agrees = rng.random(300) < confidences
    calibration = metrics.calibration_error(confidences.tolist(), agrees.tolist(), bins=10)
    agreement, mean_confidence = calibration_curve(agrees, confidences, n_bins=10, strategy="uniform")
    filled = [b for b in calibration.bins if b.n]
    assert [b.agreement for b in filled] == pytest.approx(agreement.tolist())
    assert [b.mean_confidence for b in filled] == pytest.approx(mean_confidence.tolist())
    sizes = np.array([b.n for b in filled])
    expected = float(np.sum(sizes * np.abs(agreement - mean_confidence)) / sizes.sum())
    assert calibration.ece == pytest.approx(expected)
