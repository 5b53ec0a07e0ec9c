"""Selective accuracy on hand-made judgments: who is abstained on first, ties in confidence, coverages."""

from __future__ import annotations

from typing import Any

import pytest

from faceteval.core import Instance, Judgment, OrderResult
from faceteval.metaeval import Settings, Target, join, summarize


def selective_of(instances: list[Instance], judgments: list[Judgment]) -> dict[str, Any] | None:
    target = Target(name="toy", kind="pairwise", instances=tuple(instances))
    summary = summarize(target, join(instances, judgments), judge="toy", settings=Settings(0))
    return summary.get("selective_accuracy")


def pairs(n: int) -> list[Instance]:
    return [Instance(id=f"i{k}", query="q", candidates=("a", "b"), label=1) for k in range(n)]


def test_the_least_confident_are_abstained_on_first() -> None:
    instances = pairs(10)
    # confidence k/10 on instance k; the five least confident (0..4) are wrong
    judgments = [
        Judgment(id=f"i{k}", method="toy", status="ok", verdict=1 if k >= 5 else 2, confidence=k / 10)
        for k in range(10)
    ]
    selective = selective_of(instances, judgments)
    assert selective is not None
    rows = {row["coverage"]: row for row in selective["coverages"]}
    assert list(rows) == [0.5, 0.75, 0.9, 1.0]
    assert [rows[c]["kept"] for c in rows] == [5, 8, 9, 10]  # ceil(coverage * n)
    assert [rows[c]["agreement"]["value"] * rows[c]["kept"] for c in rows] == pytest.approx([5, 5, 5, 5])
    assert all(rows[c]["agreement"]["low"] == rows[c]["agreement"]["high"] for c in rows)  # no tie cut
    assert rows[0.5]["agreement"]["value"] == 1.0 and rows[1.0]["agreement"]["value"] == 0.5
    assert rows[0.5]["min_confidence"] == 0.5
    assert selective["with_confidence"] == 10 and selective["mean_confidence"] == pytest.approx(0.45)


def test_failed_judgments_go_first_and_equal_confidences_count_in_expectation() -> None:
    instances = pairs(6)
    judgments = [Judgment(id=f"i{k}", method="toy", status="ok", verdict=1, confidence=1.0) for k in range(4)]
    judgments += [Judgment(id="i4", method="toy", status="error", error="down")]  # i5: no judgment at all
    selective = selective_of(instances, judgments)
    assert selective is not None and selective["with_confidence"] == 4
    rows = {row["coverage"]: row for row in selective["coverages"]}
    assert rows[0.5]["kept"] == 3 and rows[0.5]["agreement"]["value"] == 1.0
    assert rows[0.75]["kept"] == 5 and rows[0.75]["agreement"]["value"] == 4 / 5  # one failure kept, a miss
    assert rows[1.0]["agreement"] == {"value": 4 / 6, "low": 4 / 6, "high": 4 / 6, "n": 6}


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_equal_confidences_give_the_expectation_over_their_orders_whatever_the_ids(order: int) -> None:
    # one right and one wrong verdict tied at 0.5: keeping one of them agrees 0 or 1, 0.5 in expectation
    ids = [("i0", "i1"), ("i1", "i0"), ("zz", "aa"), ("aa", "zz")][order]
    two = [Instance(id=ident, query="q", candidates=("a", "b"), label=1) for ident in ids]
    right_wrong = [
        Judgment(id=ids[0], method="toy", status="ok", verdict=1, confidence=0.5),
        Judgment(id=ids[1], method="toy", status="ok", verdict=2, confidence=0.5),
    ]
    half = selective_of(two, right_wrong)
    assert half is not None
    row = half["coverages"][0]
    assert row["kept"] == 1 and row["tied_at_cut"] == 2 and row["min_confidence"] == 0.5
    assert row["agreement"] == {"value": 0.5, "low": 0.0, "high": 1.0, "n": 1}
    assert selective_of(two[::-1], right_wrong[::-1]) == half  # nor on the order of the file


def test_a_judgment_without_a_stored_confidence_gets_one_over_the_runs_score_range() -> None:
    instances = pairs(3)
    judgments = [
        Judgment(id="i0", method="toy", status="ok", verdict=1, scores=[9.0, 1.0]),  # margin 8/8
        Judgment(id="i1", method="toy", status="ok", verdict=2, scores=[3.0, 5.0]),  # margin 2/8, wrong
        Judgment(
            id="i2",
            method="toy",
            status="ok",
            verdict=1,
            scores=[6.0, 4.0],  # margin 2/8
            orders=[OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=1)],
        ),
    ]
    selective = selective_of(instances, judgments)
    assert selective is not None
    assert selective["mean_confidence"] == pytest.approx((1.0 + 0.25 + (0.25 + 1.0) / 2) / 3)
    rows = {row["coverage"]: row for row in selective["coverages"]}
    assert rows[0.5]["kept"] == 2 and rows[0.5]["agreement"]["value"] == 1.0  # i0 and i2, both right


def test_no_selective_accuracy_without_any_confidence() -> None:
    instances = pairs(2)
    judgments = [Judgment(id=f"i{k}", method="toy", status="ok", verdict=1) for k in range(2)]
    assert selective_of(instances, judgments) is None
