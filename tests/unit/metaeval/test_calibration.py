"""The summary's ``calibration`` block and selective accuracy on a hand-made labelled set, values worked
out by hand."""

from __future__ import annotations

from typing import Any

import pytest

from faceteval.core import Instance, Judgment, OrderResult
from faceteval.metaeval import Settings, Target, join, summarize

# label 1 everywhere; (verdict, confidence): three at 0.9 (two right), three at 0.6 (one right), one at
# 0.2 (right), and one failed judgment (no verdict, no confidence: a miss, the least confident)
JUDGED = [(1, 0.9), (1, 0.9), (2, 0.9), (1, 0.6), (2, 0.6), (2, 0.6), (1, 0.2)]


def summary_of(instances: list[Instance], judgments: list[Judgment]) -> dict[str, Any]:
    target = Target(name="toy", kind="pairwise", instances=tuple(instances))
    return summarize(target, join(instances, judgments), judge="toy", settings=Settings(0))


def labelled(estimator: str | None = None) -> dict[str, Any]:
    instances = [Instance(id=f"i{k}", query="q", candidates=("a", "b"), label=1) for k in range(8)]
    judgments = [
        Judgment(
            id=f"i{k}",
            method="toy",
            status="ok",
            verdict=verdict,
            confidence=value,
            confidence_estimator=estimator,
        )
        for k, (verdict, value) in enumerate(JUDGED)
    ]
    judgments.append(Judgment(id="i7", method="toy", status="parse_error", error="no verdict"))
    return summary_of(instances, judgments)


def test_the_calibration_block_of_a_hand_made_set() -> None:
    calibration = labelled()["calibration"]
    assert calibration["estimator"] == "signals"  # unset: the signals' confidence
    assert calibration["estimators"] == {"signals": 7}
    assert calibration["n"] == 8 and calibration["with_confidence"] == 7
    # right verdicts (0.9, 0.9, 0.6, 0.2) against wrong ones (0.9, 0.6, 0.6, failed: lowest), ties half:
    # 3.5 + 3.5 + 2 + 1 of 16 pairs
    assert calibration["auroc"] == pytest.approx(10 / 16)
    # |2/3 - 0.9| * 3 + |1/3 - 0.6| * 3 + |1 - 0.2| * 1, over the 7 verdicts with a confidence
    assert calibration["ece"] == pytest.approx(2.3 / 7)
    bins = {round(b["low"], 1): b for b in calibration["bins"]}
    assert len(calibration["bins"]) == 10
    assert bins[0.9]["n"] == 3 and bins[0.9]["agreement"] == pytest.approx(2 / 3)
    assert bins[0.6]["n"] == 3 and bins[0.6]["mean_confidence"] == pytest.approx(0.6)
    assert bins[0.2]["n"] == 1 and bins[0.2]["agreement"] == 1.0
    assert bins[0.0]["n"] == 0 and bins[0.0]["agreement"] is None
    assert calibration["tied_shares"] == [
        {"confidence": 0.9, "n": 3, "share": 3 / 8},
        {"confidence": 0.6, "n": 3, "share": 3 / 8},
        {"confidence": None, "n": 1, "share": 1 / 8},
        {"confidence": 0.2, "n": 1, "share": 1 / 8},
    ]
    assert calibration["largest_tied_share"] == 3 / 8


def test_selective_accuracy_of_the_hand_made_set_is_exact_over_tie_orders() -> None:
    rows = {row["coverage"]: row for row in labelled()["selective_accuracy"]["coverages"]}
    # half: the three at 0.9 (two right) and one of the three at 0.6 (one right): (2 + 1/3) / 4
    assert rows[0.5]["kept"] == 4 and rows[0.5]["tied_at_cut"] == 3 and rows[0.5]["min_confidence"] == 0.6
    assert rows[0.5]["agreement"] == pytest.approx({"value": 7 / 12, "low": 2 / 4, "high": 3 / 4, "n": 4})
    assert rows[0.75]["kept"] == 6 and rows[0.75]["agreement"]["value"] == pytest.approx(3 / 6)
    assert rows[0.75]["agreement"]["low"] == rows[0.75]["agreement"]["high"]  # the cut splits no tie
    assert rows[0.9]["kept"] == 8 and rows[0.9]["min_confidence"] is None  # the failure kept: a miss
    assert rows[1.0]["agreement"] == {"value": 0.5, "low": 0.5, "high": 0.5, "n": 8}


@pytest.mark.parametrize("estimator", ["verdict-logprobs", "simulated-annotators", "strategies"])
def test_the_estimator_is_the_judgments_own(estimator: str) -> None:
    calibration = labelled(estimator)["calibration"]
    assert calibration["estimator"] == estimator and calibration["estimators"] == {estimator: 7}


def test_judgments_of_several_estimators_are_named_mixed() -> None:
    instances = [Instance(id=f"i{k}", query="q", candidates=("a", "b"), label=1) for k in range(3)]
    judgments = [
        Judgment(
            id="i0", method="toy", status="ok", verdict=1, confidence=0.8, confidence_estimator="strategies"
        ),
        Judgment(id="i1", method="toy", status="ok", verdict=2, confidence=0.4),
        Judgment(id="i2", method="toy", status="ok", verdict=1, confidence=0.4),
    ]
    calibration = summary_of(instances, judgments)["calibration"]
    assert calibration["estimator"] == "mixed"
    assert calibration["estimators"] == {"signals": 2, "strategies": 1}
    assert calibration["auroc"] == pytest.approx(0.75)  # 0.8 beats the wrong 0.4; 0.4 ties it


def test_a_confidence_computed_from_the_evidence_is_the_signals() -> None:
    instances = [Instance(id=f"i{k}", query="q", candidates=("a", "b"), label=1) for k in range(2)]
    both = [OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=1)]
    split = [OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=2)]
    judgments = [
        Judgment(id="i0", method="toy", status="ok", verdict=1, orders=both),  # orders agree: 1
        Judgment(id="i1", method="toy", status="ok", verdict=1, orders=split),  # half of them: 0.5
    ]
    calibration = summary_of(instances, judgments)["calibration"]
    assert calibration["estimator"] == "signals" and calibration["with_confidence"] == 2
    assert calibration["auroc"] is None  # every verdict agrees: nothing to rank
    assert calibration["ece"] == pytest.approx((0.0 + 0.5) / 2)
    assert calibration["largest_tied_share"] == 0.5


def test_no_calibration_without_any_confidence() -> None:
    instances = [Instance(id=f"i{k}", query="q", candidates=("a", "b"), label=1) for k in range(2)]
    judgments = [Judgment(id=f"i{k}", method="toy", status="ok", verdict=1) for k in range(2)]
    summary = summary_of(instances, judgments)
    assert "calibration" not in summary and "selective_accuracy" not in summary
