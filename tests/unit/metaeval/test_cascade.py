"""A cascade of judges on hand-made labelled sets, against the computation written out here: the
thresholds fixed-sequence testing chooses, who decides what, coverage, agreement and cost; and a
cascade whose thresholds skip the bound, whose violation rate exceeds delta."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from faceteval.metaeval import CascadeSettings
from faceteval.metaeval._cascade import CascadeJudge, cascade, one_split


def binomial_tail(p: float, agreeing: int, kept: int) -> float:
    """P(X >= agreeing) for X ~ Binomial(kept, p)."""
    return math.fsum(math.comb(kept, k) * p**k * (1 - p) ** (kept - k) for k in range(agreeing, kept + 1))


def lower_bound(agreeing: int, kept: int, delta: float) -> float:
    """The lowest p at which seeing ``agreeing`` of ``kept`` or more has chance ``delta`` (bisection)."""
    low, high = 0.0, 1.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if binomial_tail(middle, agreeing, kept) < delta else (low, middle)
    return high


T, F = True, False
# calibration items 0-7, test items 8-13
CHEAP = CascadeJudge(
    "cheap",
    confidences=[0.9, 0.9, 0.9, 0.9, 0.6, 0.6, 0.3, 0.3, 0.9, 0.9, 0.6, 0.3, 0.3, None],
    agrees=[T, T, T, T, T, F, F, T, T, F, T, T, F, F],
    cost=1.0,
)
STRONG = CascadeJudge(
    "strong",
    confidences=[0.5, 0.5, 0.5, 0.5, 0.8, 0.8, 0.8, 0.2, 0.1, 0.1, 0.8, 0.8, 0.2, 0.8],
    agrees=[T, T, T, T, T, T, F, F, T, T, T, F, T, T],
    cost=10.0,
)
SETTINGS = CascadeSettings(target_agreement=0.5, delta=0.1, splits=1)


def test_the_hand_computed_thresholds_bounds() -> None:
    # cheap, from the highest confidence down: 0.9 keeps 4 of 4 agreeing, 0.6 keeps 5 of 6, 0.3 keeps 6 of 8
    assert lower_bound(4, 4, 0.1) == pytest.approx(0.1 ** (1 / 4))  # 0.562: passes 0.5
    assert lower_bound(5, 6, 0.1) == pytest.approx(0.4897, abs=1e-4)  # fails 0.5: the sequence stops
    # strong, on what cheap left (items 4-7): 0.8 keeps 2 of 3 agreeing (4, 5 agree; 6 does not)
    assert lower_bound(2, 3, 0.1) == pytest.approx(0.1958, abs=1e-4)  # fails: strong keeps nothing
    # with target 0.15, strong's 0.8 passes (0.196) and 0.2 (2 of 4: bound 0.142) fails
    assert lower_bound(2, 4, 0.1) == pytest.approx(0.1426, abs=1e-4)


def test_one_split_against_the_hand_computation() -> None:
    split = one_split([CHEAP, STRONG], range(8), range(8, 14), SETTINGS)
    assert split["thresholds"] == [0.9, None]
    # test: cheap keeps 8 and 9 (0.9): one agrees; strong keeps nothing; 10-13 are abstained on
    assert split["decided"] == [2, 0]
    assert (split["kept"], split["coverage"], split["agreement"]) == (2, 2 / 6, 0.5)
    assert split["violated"] is False  # 0.5 is not below the target 0.5
    # cheap is asked for all 6, strong for the 4 cheap did not decide; strong alone: 6 x 10
    assert split["relative_cost"] == pytest.approx((6 * 1 + 4 * 10) / (6 * 10))


def test_a_later_judge_is_calibrated_on_what_the_earlier_left() -> None:
    settings = CascadeSettings(target_agreement=0.15, delta=0.1, splits=1)
    split = one_split([CHEAP, STRONG], range(8), range(8, 14), settings)
    # cheap: 0.9 (0.562), 0.6 (0.490), 0.3 (6 of 8: bound 0.462) all pass 0.15: threshold 0.3, keeping
    # all 8, so strong is calibrated on nothing and keeps nothing
    assert lower_bound(6, 8, 0.1) > 0.15
    assert split["thresholds"] == [0.3, None]
    # test: cheap keeps every item with a confidence (8-12), item 13 has none and escalates
    assert split["decided"] == [5, 0]
    assert split["agreement"] == pytest.approx(3 / 5)


def test_the_second_judge_decides_what_the_first_escalates() -> None:
    # cheap's 0.6 and 0.3 tiers all disagree on calibration: its 0.6 keeps 4 of 6 (bound 0.333)
    strict = CascadeJudge("cheap", CHEAP.confidences, [T, T, T, T, F, F, F, F, *CHEAP.agrees[8:]], cost=1.0)
    settings = CascadeSettings(target_agreement=0.55, delta=0.1, splits=1)
    assert lower_bound(4, 6, 0.1) < 0.55
    split = one_split([strict, STRONG], range(8), range(8, 14), settings)
    # strict: 0.9 passes (0.562), 0.6 fails; strong on 4-7: 0.8 keeps 2 of 3 (0.196), fails
    assert split["thresholds"] == [0.9, None]
    wide = CascadeJudge(
        "strong", [0.5] * 4 + [0.8] * 4 + STRONG.confidences[8:], [T] * 8 + STRONG.agrees[8:], cost=10.0
    )
    split = one_split([strict, wide], range(8), range(8, 14), settings)
    # wide on 4-7 (what strict left): 0.8 keeps 4 of 4 (0.562), passes: threshold 0.8
    assert split["thresholds"] == [0.9, 0.8]
    # test: strict keeps 8, 9 (0.9); wide then keeps 10, 11, 13 (0.8); 12 (0.2) is abstained on
    assert split["decided"] == [2, 3]
    assert split["coverage"] == pytest.approx(5 / 6)
    # agreeing: strict's 8 (T), 9 (F); wide's 10 (T), 11 (F), 13 (T)
    assert split["agreement"] == pytest.approx(3 / 5)
    assert split["relative_cost"] == pytest.approx((6 * 1 + 4 * 10) / 60)


def test_the_pooled_numbers_are_those_of_the_splits() -> None:
    settings = CascadeSettings(target_agreement=0.5, delta=0.2, splits=30, seed=3)
    block = cascade([CHEAP, STRONG], settings)
    splits = block["per_split"]
    assert (block["splits"], block["calibration_size"], block["test_size"]) == (30, 7, 7)
    assert block["violations"] == sum(s["violated"] for s in splits)
    assert block["violation_rate"] == block["violations"] / 30
    assert block["coverage"] == pytest.approx(statistics.fmean(s["coverage"] for s in splits))
    kept = [s["agreement"] for s in splits if s["agreement"] is not None]
    assert block["agreement"] == pytest.approx(statistics.fmean(kept))
    for k, judge in enumerate(block["judges"]):
        decided = sum(s["decided"][judge["judge"]] for s in splits)
        assert judge["share_decided"] == pytest.approx(decided / sum(s["kept"] for s in splits))
        ranked = sorted(math.inf if s["thresholds"][k] is None else s["thresholds"][k] for s in splits)
        median = ranked[14]  # the lower median of 30
        assert judge["threshold"] == (None if math.isinf(median) else median)
    # the same seed, the same splits
    assert cascade([CHEAP, STRONG], settings) == block


def empirical_threshold(
    values: list[float | None], agrees: list[bool], target: float, delta: float
) -> float | None:
    """The lowest threshold whose kept calibration verdicts agree at ``target`` or more, as counted,
    without a bound: from the highest confidence down, stopping at the first that falls short."""
    chosen = None
    kept = agreeing = 0
    for value in sorted({v for v in values if v is not None}, reverse=True):
        group = [a for v, a in zip(values, agrees, strict=True) if v == value]
        kept, agreeing = kept + len(group), agreeing + sum(group)
        if agreeing / kept < target:
            break
        chosen = value
    return chosen


def test_thresholds_chosen_without_the_bound_violate_more_often_than_delta() -> None:
    # a judge right 85% of the time whatever its confidence says: no threshold reaches 90%
    rng = random.Random(7)
    n = 200
    judge = CascadeJudge("judge", [rng.random() for _ in range(n)], [rng.random() < 0.85 for _ in range(n)])
    settings = CascadeSettings(target_agreement=0.9, delta=0.1, splits=200, seed=1)
    naive = cascade([judge], settings, choose=empirical_threshold)
    assert naive["violation_rate"] > 3 * settings.delta  # the check can fail
    bounded = cascade([judge], settings)
    assert bounded["violation_rate"] <= settings.delta
    assert bounded["coverage"] < naive["coverage"]


def test_a_target_the_data_cannot_reach_keeps_nothing() -> None:
    # 8 of 10 agree at one confidence: the bound of 8/10 at delta 0.1 is 0.55, under a target of 0.95
    assert lower_bound(8, 10, 0.1) < 0.95
    judge = CascadeJudge("judge", [0.7] * 20, [T, T, T, T, F] * 4)
    block = cascade([judge], CascadeSettings(target_agreement=0.95, delta=0.1, splits=5))
    assert block["coverage"] == 0 and block["agreement"] is None
    assert block["violation_rate"] == 0 and block["empty_splits"] == 5
    assert block["judges"][0]["threshold"] is None and block["judges"][0]["no_threshold"] == 5


@pytest.mark.parametrize(
    ("judges", "message"),
    [
        ([], "at least one judge"),
        ([CHEAP, CascadeJudge("short", [0.5], [T])], "same instances"),
        ([CascadeJudge("one", [0.5], [T])], "at least 2"),
    ],
)
def test_a_cascade_that_cannot_be_measured_is_refused(judges: list[CascadeJudge], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cascade(judges, SETTINGS)
