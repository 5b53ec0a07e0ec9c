"""The order metrics of a --swap run: two candidates in both orders, three or more in rotations, and
LLMBar's positional agreement (which counts only unreadable replies as agreeing)."""

from __future__ import annotations

from typing import Any

from faceteval.core import Instance, Judgment, OrderResult
from faceteval.metaeval import Settings, Target, join, summarize
from faceteval.report import render_markdown


def summary_of(instances: list[Instance], judgments: list[Judgment]) -> dict[str, Any]:
    target = Target(name="toy", kind="pairwise", instances=tuple(instances))
    return summarize(target, join(instances, judgments), judge="toy", settings=Settings(resamples=0))


def pair(k: int, label: int) -> Instance:
    return Instance(id=f"p{k}", query="q", candidates=("a", "b"), label=label)


def swapped(instance_id: str, first: int, second: int) -> Judgment:
    agreed = first == second
    return Judgment(
        id=instance_id,
        method="toy",
        status="ok",
        verdict=first if agreed else 0,
        consistent=agreed,
        orders=[OrderResult(order=[1, 2], verdict=first), OrderResult(order=[2, 1], verdict=second)],
    )


def rotated(instance_id: str, verdicts: tuple[int, int, int]) -> Judgment:
    agreed = len(set(verdicts)) == 1
    orders = ([1, 2, 3], [2, 3, 1], [3, 1, 2])
    return Judgment(
        id=instance_id,
        method="toy",
        status="ok",
        verdict=verdicts[0] if agreed else 0,
        consistent=agreed,
        orders=[OrderResult(order=list(order), verdict=v) for order, v in zip(orders, verdicts, strict=True)],
    )


def test_three_candidates_are_measured_by_their_rotations_not_counted_as_unjudged_pairs() -> None:
    instances = [pair(0, 1), pair(1, 2)] + [
        Instance(id=f"t{k}", query="q", candidates=("a", "b", "c"), label=1) for k in range(3)
    ]
    judgments = [
        swapped("p0", 1, 1),
        swapped("p1", 1, 2),
        rotated("t0", (1, 1, 1)),
        rotated("t1", (1, 2, 1)),
        Judgment(id="t2", method="toy", status="error", error="ProviderServerError: 500"),
    ]
    summary = summary_of(instances, judgments)
    consistency = summary["consistency"]
    assert (consistency["hits"], consistency["n"], consistency["missing"]) == (1, 2, 0)
    assert (summary["agreement_order1"]["hits"], summary["agreement_order1"]["n"]) == (1, 2)
    assert summary["order_metrics_leave_out"] == 3
    rotations = summary["rotation_consistency"]
    assert (rotations["hits"], rotations["n"], rotations["missing"]) == (1, 3, 1)

    report = render_markdown(summary)
    assert "Consistency across rotations (3+ candidates)" in report
    assert "cover the two-candidate instances; 3 with three or more candidates" in report


def test_rotations_alone_give_their_consistency_and_no_order_metrics() -> None:
    instances = [Instance(id=f"t{k}", query="q", candidates=("a", "b", "c"), label=2) for k in range(2)]
    summary = summary_of(instances, [rotated("t0", (2, 2, 2)), rotated("t1", (2, 2, 3))])
    assert summary["rotation_consistency"]["value"] == 0.5
    assert "consistency" not in summary and "order_metrics_leave_out" not in summary


def test_positional_agreement_counts_unreadable_replies_as_agreeing_but_not_failed_calls() -> None:
    unreadable = Judgment(
        id="p2",
        method="toy",
        status="parse_error",
        error="no verdict in either order",
        orders=[OrderResult(order=[1, 2], verdict=None), OrderResult(order=[2, 1], verdict=None)],
    )
    failed = Judgment(id="p3", method="toy", status="error", error="ProviderServerError: 400")
    instances = [pair(k, 1) for k in range(5)]
    judgments = [swapped("p0", 1, 1), swapped("p1", 1, 2), unreadable, failed]  # p4 never judged
    summary = summary_of(instances, judgments)
    positional = summary["positional_agreement"]
    assert (positional["hits"], positional["n"], positional["missing"]) == (2, 5, 3)
    assert summary["consistency"]["hits"] == 1  # the strict version: unreadable never agrees
