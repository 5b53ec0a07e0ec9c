"""Held-out correlations of a trained evaluator and its baselines, and the summary written with it."""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from scipy import stats

from faceteval.core import Criterion
from faceteval.methods.hdeval._tree import CriteriaTree
from faceteval.workflows.hdeval._results import (
    describe_split,
    evaluator_info,
    evaluator_summary,
    headline_level,
    held_out,
    tree_summary,
)
from faceteval.workflows.hdeval._train import TrainConfig, Trained, fit, train
from tests.support import hdeval_synthetic as synthetic

TARGETS = ("coherence", "fluency")
SCIPY = {
    "pearson": stats.pearsonr,
    "spearman": stats.spearmanr,
    "kendall": lambda x, y: stats.kendalltau(x, y, variant="b"),
}


def fitted(tree: CriteriaTree, layers: int = 3, n: int = 64, **options: Any) -> Trained:
    instances = synthetic.instances(n)
    config = TrainConfig(
        targets=TARGETS, layers=layers, children=2, expand=2, aggregator="lr", group_by="doc"
    )
    judge = synthetic.Judge(ids=[i.id for i in instances], **options)
    return train(tree, instances, config, judge, synthetic.Decomposer() if layers > 1 else None)


@pytest.fixture(scope="module")
def trained() -> Trained:
    # Layer-1 criteria spelled unlike the targets: the judge-on-aspect baseline matches case-blind.
    return fitted(
        CriteriaTree(task=synthetic.TASK, criteria=(Criterion(name="Coherence"), Criterion(name="Fluency")))
    )


@pytest.fixture(scope="module")
def results(trained: Trained) -> dict[str, Any]:
    return held_out(trained, group_by="doc", system_by="system", resamples=0)


def held_out_rows(trained: Trained) -> tuple[np.ndarray, np.ndarray, list[str]]:
    test = ~trained.train
    ids = [i for i, keep in zip(trained.ids, test, strict=True) if keep]
    return trained.x[test], trained.y[test], ids


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_sample_level_values_are_scipy_on_the_held_out_rows(
    trained: Trained, results: dict[str, Any], method: str
) -> None:
    x, y, _ = held_out_rows(trained)
    learned = trained.aggregator.predict(x)
    for t, target in enumerate(TARGETS):
        got = results[target]["aggregator"]["sample"][method]
        assert got["value"] == pytest.approx(SCIPY[method](learned[:, t], y[:, t]).statistic, abs=1e-12)
        assert got["n"] == len(y) == 32
        assert got["ci"] is None  # resamples=0


def test_the_learned_aggregator_beats_the_baselines(results: dict[str, Any]) -> None:
    for target in TARGETS:
        rows = results[target]
        learned = rows["aggregator"]["sample"]["pearson"]["value"]
        assert learned > 0.8
        assert learned > rows["mean_of_criteria"]["sample"]["pearson"]["value"]
        assert learned > rows["judge_on_aspect"]["sample"]["pearson"]["value"]


def test_the_mean_of_criteria_baseline_correlates_like_the_plain_mean(
    trained: Trained, results: dict[str, Any]
) -> None:
    x, y, _ = held_out_rows(trained)
    for t, target in enumerate(TARGETS):
        for method in ("pearson", "spearman"):
            expected = SCIPY[method](x.mean(axis=1), y[:, t]).statistic
            assert results[target]["mean_of_criteria"]["sample"][method]["value"] == pytest.approx(expected)


def test_the_mean_of_criteria_baseline_is_not_reversed_by_training_rows_that_disagree_with_it() -> None:
    # On the training rows the mean of the criteria falls as the human score rises; held out, it rises.
    x = np.array([[1, 1], [2, 2], [3, 3], [4, 4], [1, 2], [2, 3], [4, 4], [5, 5]], dtype=np.float64)
    y = np.array([[4], [3], [2], [1], [1], [2], [3], [5]], dtype=np.float64)
    split = np.array([True] * 4 + [False] * 4)
    ids = [f"i{k}" for k in range(8)]
    trained = Trained(
        config=TrainConfig(targets=("quality",), layers=1, aggregator="lr"),
        tree=CriteriaTree(task="t", criteria=(Criterion(name="a"), Criterion(name="b"))),
        features=["a", "b"],
        aggregator=fit("lr", x[split], y[split]),
        ids=ids,
        x=x,
        y=y,
        train=split,
        importance=np.zeros((1, 2)),
        layers=[],
        failed={},
        metadata={i: {} for i in ids},
    )
    got = held_out(trained, resamples=0)["quality"]["mean_of_criteria"]["sample"]["pearson"]["value"]
    assert got == pytest.approx(stats.pearsonr(x[~split].mean(axis=1), y[~split, 0]).statistic)
    assert got > 0.9


def test_judge_on_aspect_is_the_criterion_named_like_the_target(
    trained: Trained, results: dict[str, Any]
) -> None:
    x, y, _ = held_out_rows(trained)
    for t, (target, name) in enumerate(zip(TARGETS, ["Coherence", "Fluency"], strict=True)):
        column = trained.features.index(name)
        got = results[target]["judge_on_aspect"]["sample"]["pearson"]["value"]
        assert got == pytest.approx(stats.pearsonr(x[:, column], y[:, t]).statistic)


def test_no_judge_on_aspect_without_a_criterion_of_that_name() -> None:
    other = fitted(
        CriteriaTree(task="t", criteria=(Criterion(name="clarity"), Criterion(name="style"))), layers=1
    )
    results = held_out(other, resamples=0)
    assert set(results) == set(TARGETS)
    for rows in results.values():
        assert set(rows) == {"aggregator", "mean_of_criteria"}
        assert set(rows["aggregator"]) == {"sample"}  # no groups, no systems: sample level only


def test_summary_level_averages_the_correlation_within_each_document(
    trained: Trained, results: dict[str, Any]
) -> None:
    x, y, ids = held_out_rows(trained)
    learned = trained.aggregator.predict(x)
    by_doc: dict[str, list[int]] = defaultdict(list)
    for row, instance_id in enumerate(ids):
        by_doc[trained.metadata[instance_id]["doc"]].append(row)
    assert len(by_doc) == 8
    for t, target in enumerate(TARGETS):
        within = [stats.pearsonr(learned[rows, t], y[rows, t]).statistic for rows in by_doc.values()]
        got = results[target]["aggregator"]["summary"]["pearson"]
        assert got["value"] == pytest.approx(statistics.fmean(within))
        assert got["n"] == 8
        assert got["value"] != pytest.approx(results[target]["aggregator"]["sample"]["pearson"]["value"])


def test_system_level_correlates_the_system_means(trained: Trained, results: dict[str, Any]) -> None:
    x, y, ids = held_out_rows(trained)
    learned = trained.aggregator.predict(x)
    systems = sorted({trained.metadata[i]["system"] for i in ids})
    for t, target in enumerate(TARGETS):
        means = [
            [values[[trained.metadata[i]["system"] == s for i in ids]].mean() for s in systems]
            for values in (learned[:, t], y[:, t])
        ]
        got = results[target]["aggregator"]["system"]["pearson"]
        assert got["n"] == 4
        assert got["value"] == pytest.approx(stats.pearsonr(*means).statistic)


def test_confidence_intervals_when_resampling(trained: Trained) -> None:
    results = held_out(trained, group_by="doc", resamples=50, seed=1)
    for level in ("sample", "summary"):
        got = results["coherence"]["aggregator"][level]["pearson"]
        low, high = got["ci"]
        assert low <= got["value"] <= high
    assert "system" not in results["coherence"]["aggregator"]


@pytest.mark.parametrize(
    ("group_by", "level", "expected"),
    [
        (None, None, "sample"),
        ("doc", None, "summary"),
        ("doc", "sample", "sample"),
        (None, "system", "system"),
    ],
)
def test_headline_level(group_by: str | None, level: str | None, expected: str) -> None:
    assert headline_level(group_by, level) == expected


def test_evaluator_summary(trained: Trained) -> None:
    summary = evaluator_summary(
        trained, benchmark="synthetic", origin="rule judge", group_by="doc", system_by="system", resamples=0
    )
    assert set(summary) == {
        "benchmark",
        "targets",
        "level",
        "group_by",
        "criteria_scores_from",
        "config",
        "split",
        "held_out",
        "tree",
        "layers",
        "left_out",
    }
    assert summary["benchmark"] == "synthetic" and summary["criteria_scores_from"] == "rule judge"
    assert summary["targets"] == list(TARGETS) and summary["level"] == "summary"
    assert summary["config"] == {
        "layers": 3,
        "children": 2,
        "expand": 2,
        "aggregator": "lr",
        "importance": "permutation",
        "train_frac": 0.5,
        "seed": 0,
    }
    assert summary["split"] == {"train": 32, "test": 32, "left_out": 0}
    assert summary["held_out"] == held_out(trained, group_by="doc", system_by="system", resamples=0)
    assert summary["tree"] == tree_summary(trained)
    assert [layer["layer"] for layer in summary["layers"]] == [1, 2, 3]
    assert summary["layers"][0]["expanded"] == ["Coherence", "Fluency"]
    assert set(summary["layers"][1]["expanded"]) == {"Coherence / flow", "Fluency / grammar"}
    assert summary["layers"][2]["expanded"] == []
    assert summary["layers"][1]["nodes"] == trained.layers[1].nodes
    assert summary["layers"][1]["importance"] == trained.layers[1].importance
    assert summary["left_out"] == {}


@pytest.mark.parametrize(
    ("group_by", "level", "expected"),
    [("doc", "sample", "sample"), ("doc", None, "summary"), (None, None, "sample")],
)
def test_summary_and_info_honour_the_level(
    trained: Trained, group_by: str | None, level: str | None, expected: str
) -> None:
    summary = evaluator_summary(
        trained, benchmark="b", origin="o", group_by=group_by, level=level, resamples=0
    )
    assert summary["level"] == expected
    assert ("summary" in summary["held_out"]["coherence"]["aggregator"]) == (group_by is not None)
    info = evaluator_info(trained, benchmark="b", origin="o", group_by=group_by, level=level)
    assert info["level"] == expected


def test_evaluator_info(trained: Trained) -> None:
    info = evaluator_info(
        trained, benchmark="synthetic", origin="rule judge", group_by="doc", system_by="system"
    )
    assert info == {
        "task": synthetic.TASK,
        "benchmark": "synthetic",
        "source": "rule judge",
        "model": None,
        "group_by": "doc",
        "system_by": "system",
        "level": "summary",
    }


def test_tree_summary_lists_every_criterion_the_aggregator_reads(trained: Trained) -> None:
    rows = tree_summary(trained)
    assert [row["id"] for row in rows] == trained.features
    overall = trained.importance.mean(axis=0)
    for column, row in enumerate(rows):
        assert row["importance"] == pytest.approx(overall[column])
        assert row["importance_by_target"] == {
            "coherence": pytest.approx(trained.importance[0, column]),
            "fluency": pytest.approx(trained.importance[1, column]),
        }
        assert row["layer"] == row["id"].count(" / ") + 1
        assert row["name"] == row["id"].rsplit(" / ", 1)[-1]
    assert {row["id"] for row in rows if row["expanded"]} == {
        "Coherence",
        "Fluency",
        "Coherence / flow",
        "Fluency / grammar",
    }


def test_tree_summary_leaves_out_criteria_deeper_than_training_went() -> None:
    deep = synthetic.Decomposer()(synthetic.tree(), ["coherence", "fluency"], 2)
    shallow = fitted(deep, layers=1)
    assert len(shallow.tree.nodes()) == 6
    assert [row["id"] for row in tree_summary(shallow)] == ["coherence", "fluency"]
    assert not any(row["expanded"] for row in tree_summary(shallow))


def test_describe_split_counts_what_was_left_out() -> None:
    partial = fitted(synthetic.tree(), layers=1, fail={1: {"i0", "i1", "i50"}})
    split = describe_split(partial)
    assert split == {"train": int(partial.train.sum()), "test": int((~partial.train).sum()), "left_out": 3}
    assert split["train"] + split["test"] == 61
