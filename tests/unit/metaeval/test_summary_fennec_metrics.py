"""Fennec's numbers in the summary: swap consistency and agreement without human ties (Section 6.1,
Fig. 3), and each system's mean score and rank by the judge and by the reference (Section 6.3, Fig. 4)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from faceteval.core import Instance, Judgment, OrderResult
from faceteval.datasets import Benchmark
from faceteval.metaeval import Settings, Target, join, load_judgments, load_target, summarize

RATE_KEYS = {"value", "hits", "n", "missing", "excluded", "ci", "ci_method"}

# (human label, verdict in the original order, verdict in the swapped order mapped back); None: no judgment.
PAIRS: tuple[tuple[int, tuple[int | None, int | None] | None], ...] = (
    (1, (1, 1)),  # consistent and right
    (2, (2, 1)),  # inconsistent
    (0, (0, 0)),  # a human tie, consistent and right: counted only with ties
    (1, (2, 2)),  # consistent and wrong
    (2, (2, None)),  # unreadable swapped order: missing, inconsistent
    (0, (1, 2)),  # a human tie, inconsistent
    (1, (0, 0)),  # a consistent tie on a preference: wrong
    (2, None),  # never judged: missing, inconsistent
)


def data_dir() -> Path:
    """The staged data; a missing directory fails the test (it is never skipped)."""
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    root = Path(value)
    assert root.is_dir(), f"FACETEVAL_DATA_DIR={value} is not a directory"
    return root


def both_orders(instance_id: str, first: int | None, second: int | None) -> Judgment:
    consistent = first is not None and first == second
    return Judgment(
        id=instance_id,
        method="toy",
        status="ok" if first is not None and second is not None else "parse_error",
        verdict=first if consistent else 0,
        consistent=consistent,
        orders=[OrderResult(order=[1, 2], verdict=first), OrderResult(order=[2, 1], verdict=second)],
    )


def pairwise_summary(
    pairs: tuple[tuple[int, tuple[int | None, int | None] | None], ...] = PAIRS, resamples: int = 0
) -> dict[str, Any]:
    instances = [
        Instance(id=f"p{k}", query="q", candidates=("a", "b"), label=label)
        for k, (label, _) in enumerate(pairs)
    ]
    judgments = [both_orders(f"p{k}", *orders) for k, (_, orders) in enumerate(pairs) if orders is not None]
    target = Target(name="toy-pairs", kind="pairwise", instances=tuple(instances))
    joined = join(instances, judgments)
    return summarize(target, joined, judge="toy", settings=Settings(resamples=resamples))


def test_consistency_and_agreement_consistent_leave_human_ties_out() -> None:
    summary = pairwise_summary()
    assert summary["consistency_without_ties"] == {
        "value": 0.5,
        "hits": 3,
        "n": 6,
        "missing": 2,
        "excluded": 2,
        "ci": None,
        "ci_method": None,
    }
    assert summary["agreement_consistent_without_ties"] == {
        "value": 1 / 6,
        "hits": 1,
        "n": 6,
        "missing": 2,
        "excluded": 2,
        "ci": None,
        "ci_method": None,
    }
    # With ties, the tie that both orders agree on counts for both.
    assert (summary["consistency"]["hits"], summary["consistency"]["n"]) == (4, 8)
    assert (summary["agreement_consistent"]["hits"], summary["agreement_consistent"]["n"]) == (2, 8)


def test_the_new_entries_have_the_shape_and_cis_of_their_neighbours() -> None:
    summary = pairwise_summary(resamples=200)
    for key in ("consistency_without_ties", "agreement_consistent_without_ties"):
        entry = summary[key]
        assert set(entry) == RATE_KEYS == set(summary["consistency"])
        low, high = entry["ci"]
        assert 0.0 <= low <= entry["value"] <= high <= 1.0
    assert summary["consistency_without_ties"]["value"] == 0.5


def test_without_human_ties_the_numbers_equal_the_ones_with_ties() -> None:
    summary = pairwise_summary(tuple(pair for pair in PAIRS if pair[0] != 0))
    assert "agreement_without_ties" not in summary
    for key in ("consistency", "agreement_consistent"):
        assert summary[f"{key}_without_ties"] == summary[key] | {"excluded": 0}


def test_one_order_only_gives_neither_entry() -> None:
    instances = [Instance(id="x", query="q", candidates=("a", "b"), label=1)]
    judgments = [Judgment(id="x", method="toy", status="ok", verdict=1)]
    target = Target(name="toy-pairs", kind="pairwise", instances=tuple(instances))
    summary = summarize(target, join(instances, judgments), judge="toy", settings=Settings(resamples=0))
    assert "consistency" not in summary
    assert "consistency_without_ties" not in summary
    assert "agreement_consistent_without_ties" not in summary


def test_autoj_recorded_without_ties_counts_the_1019_preferences() -> None:
    """Auto-J 13B on its own test set: the counts recomputed from the instances and recorded orders."""
    root = data_dir()
    target = load_target("autoj-pairwise", root)
    source = load_judgments("recorded:auto-j-13b", target, root)
    summary = summarize(
        target, join(target.instances, source.judgments), judge=source.name, settings=Settings(resamples=0)
    )
    by_id = {judgment.id: judgment for judgment in source.judgments}
    preferences = [instance for instance in target.instances if instance.label != 0]
    agreed = consistent = 0
    for instance in preferences:
        verdicts = {tuple(result.order): result.verdict for result in by_id[instance.id].orders}
        first, second = verdicts[(1, 2)], verdicts[(2, 1)]
        consistent += first is not None and first == second
        agreed += first is not None and first == second == instance.label
    assert len(preferences) == 1019
    assert summary["consistency_without_ties"] == {
        "value": consistent / 1019,
        "hits": consistent,
        "n": 1019,
        "missing": 0,
        "excluded": 373,
        "ci": None,
        "ci_method": None,
    }
    assert summary["agreement_consistent_without_ties"] == {
        "value": agreed / 1019,
        "hits": agreed,
        "n": 1019,
        "missing": 0,
        "excluded": 373,
        "ci": None,
        "ci_method": None,
    }
    assert summary["consistency"]["n"] == summary["agreement_consistent"]["n"] == 1392
    assert summary["consistency_without_ties"]["value"] != summary["consistency"]["value"]


# -- pointwise: the system table ----------------------------------------------------------------------

TOY_BENCHMARK = Benchmark(
    name="toy-systems",
    title="Four systems scored 1-5",
    kind="pointwise",
    labels="a 1-5 score per output",
    license="none",
    path="toy",
    load=lambda _: (),
    size=0,
    url="",
    aspects=("quality",),
    system_by="system",
    reference="GPT-4",
)

# (system, judge score or None for a failed judgment, reference score or None for no reference score)
OUTPUTS: tuple[tuple[str, float | None, float | None], ...] = (
    ("alpha", 4.0, 5.0),
    ("alpha", 5.0, 4.0),
    ("beta", 3.0, 2.0),
    ("beta", 3.0, 3.0),
    ("beta", 3.0, 4.0),
    ("gamma", 4.0, 3.0),
    ("gamma", 5.0, 3.0),
    ("delta", 1.0, 1.0),
    ("delta", 2.0, 2.0),
    ("delta", None, 5.0),  # the judge failed: not in the table
    ("delta", 5.0, None),  # no reference score: not in the table
)


def pointwise_target(benchmark: Benchmark | None) -> tuple[Target, list[Judgment]]:
    instances, judgments = [], []
    for k, (system, judged, reference) in enumerate(OUTPUTS):
        scores = None if reference is None else {"quality": reference}
        instances.append(
            Instance(id=f"o{k}", query="q", candidates=("out",), scores=scores, metadata={"system": system})
        )
        judgments.append(
            Judgment(id=f"o{k}", method="toy", status="ok", scores=[judged])
            if judged is not None
            else Judgment(id=f"o{k}", method="toy", status="error", error="timeout")
        )
    target = Target(name="toy-systems", kind="pointwise", instances=tuple(instances), benchmark=benchmark)
    return target, judgments


def measured(target: Target, judgments: list[Judgment]) -> dict[str, Any]:
    return summarize(target, join(target.instances, judgments), judge="toy", settings=Settings(resamples=0))


def test_system_table_has_means_and_ranks_with_ties_sharing_the_best_rank() -> None:
    target, judgments = pointwise_target(TOY_BENCHMARK)
    summary = measured(target, judgments)
    assert summary["systems"] == {
        "quality": [
            {"system": "alpha", "n": 2, "judge": 4.5, "reference": 4.5, "judge_rank": 1, "reference_rank": 1},
            {"system": "beta", "n": 3, "judge": 3.0, "reference": 3.0, "judge_rank": 3, "reference_rank": 2},
            {"system": "gamma", "n": 2, "judge": 4.5, "reference": 3.0, "judge_rank": 1, "reference_rank": 2},
            {"system": "delta", "n": 2, "judge": 1.5, "reference": 1.5, "judge_rank": 4, "reference_rank": 4},
        ]
    }
    assert summary["correlations"]["quality"]["system"]["pearson"]["n"] == 4


def test_no_system_table_without_a_system_key() -> None:
    target, judgments = pointwise_target(None)
    summary = measured(target, judgments)
    assert "system" not in summary["correlations"]["quality"]
    assert "systems" not in summary


def test_prometheus_mtbench_recorded_gpt4_run_ranks_its_four_responders() -> None:
    root = data_dir()
    target = load_target("prometheus-mtbench", root)
    source = load_judgments("recorded:gpt-4-run1", target, root)
    summary = summarize(
        target, join(target.instances, source.judgments), judge=source.name, settings=Settings(resamples=0)
    )
    (aspect,) = target.aspects
    table = summary["systems"][aspect]
    assert [row["n"] for row in table] == [80, 80, 80, 80]
    assert [row["reference_rank"] for row in table] == [1, 2, 3, 4]
    references = [row["reference"] for row in table]
    assert references == sorted(references, reverse=True)
    by_system: dict[str, list[float]] = {}
    for instance in target.instances:
        assert instance.scores is not None
        by_system.setdefault(instance.metadata["response_source"], []).append(instance.scores[aspect])
    assert {row["system"]: row["reference"] for row in table} == {
        name: pytest.approx(sum(values) / len(values)) for name, values in by_system.items()
    }
