"""An evaluator directory: saving, loading, refusing what it cannot read, and scoring new outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from faceteval.core import Instance
from faceteval.errors import FacetevalError
from faceteval.store import RECORD_SCHEMA, TrainRecord, read_record
from faceteval.workflows.hdeval._evaluator import (
    EVALUATOR,
    SUMMARY,
    Evaluator,
    load_evaluator,
    read_features,
    read_summary,
    save_evaluator,
    score,
)
from faceteval.workflows.hdeval._results import evaluator_info, evaluator_summary
from faceteval.workflows.hdeval._train import TrainConfig, Trained, train
from tests.support import hdeval_synthetic as synthetic

TARGETS = ("coherence", "fluency")


def fitted(kind: str) -> Trained:
    instances = synthetic.instances(64)
    config = TrainConfig(targets=TARGETS, layers=3, children=2, expand=2, aggregator=kind, group_by="doc")
    judge = synthetic.Judge(ids=[i.id for i in instances])
    return train(synthetic.tree(), instances, config, judge, synthetic.Decomposer())


def saved(out: Path, trained: Trained) -> Path:
    options: dict[str, Any] = {"benchmark": "synthetic", "origin": "rule judge", "group_by": "doc"}
    summary = evaluator_summary(trained, **options, system_by="system", resamples=0)
    save_evaluator(out, trained, summary=summary, info=evaluator_info(trained, **options, system_by="system"))
    return out


@pytest.fixture(scope="module")
def trained() -> Trained:
    return fitted("lr")


@pytest.fixture
def directory(tmp_path: Path, trained: Trained) -> Path:
    return saved(tmp_path / "evaluator", trained)


def criterion_scores(evaluator: Evaluator, instances: list[Instance]) -> dict[str, dict[str, float]]:
    return {
        i.id: {node.id: synthetic.criterion_score(i.id, node.criterion.name) for node in evaluator.nodes()}
        for i in instances
    }


OLD_FORMAT = {"format", "version"}
"""What the evaluator file had before it was the training's run record (schema 2)."""


def rewrite(path: Path, **changes: Any) -> None:
    """Change the evaluator file's fields: those of its record's summary (targets, features ...); to
    change ``format`` or ``version``, the file is first written in the format before the record."""
    record = json.loads(path.read_text())
    if OLD_FORMAT & changes.keys():
        old = {"format": "faceteval-hdeval-evaluator", "version": 1, "faceteval": record["faceteval_version"]}
        path.write_text(json.dumps({**old, **record["summary"], **changes}))
    else:
        path.write_text(json.dumps({**record, "summary": {**record["summary"], **changes}}))


# -- saving and loading -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["lr", "dt"])
def test_a_loaded_evaluator_predicts_identically(tmp_path: Path, kind: str) -> None:
    original = fitted(kind)
    loaded = load_evaluator(saved(tmp_path / kind, original))
    assert type(loaded.aggregator) is type(original.aggregator)
    np.testing.assert_array_equal(
        loaded.aggregator.predict(original.x), original.aggregator.predict(original.x)
    )
    assert loaded.targets == TARGETS
    assert loaded.features == tuple(original.features)
    assert [node.id for node in loaded.nodes()] == original.features
    assert loaded.tree == original.tree
    np.testing.assert_allclose(loaded.background, original.x[original.train].mean(axis=0))
    assert loaded.info["aggregator"] == kind
    record = read_record(tmp_path / kind / EVALUATOR, TrainRecord)  # schema 2: the training's run record
    assert (record.schema_version, record.command) == (RECORD_SCHEMA, "hdeval train")
    assert (loaded.info["group_by"], loaded.info["system_by"], loaded.info["level"]) == (
        "doc",
        "system",
        "summary",
    )
    assert not {"targets", "features", "background"} & set(loaded.info)


def test_features_jsonl_holds_every_row_it_was_trained_and_tested_on(
    directory: Path, trained: Trained
) -> None:
    rows = read_features(directory)
    assert [row["id"] for row in rows] == trained.ids
    assert [row["split"] == "train" for row in rows] == trained.train.tolist()
    assert rows[5]["features"] == dict(zip(trained.features, trained.x[5].tolist(), strict=True))
    assert rows[5]["targets"] == {"coherence": trained.y[5, 0], "fluency": trained.y[5, 1]}
    assert rows[5]["metadata"] == {"doc": "d1", "system": "s1"}
    assert read_summary(directory)["split"] == {"train": 32, "test": 32, "left_out": 0}


def test_an_evaluator_file_written_before_the_run_record_is_read(directory: Path, trained: Trained) -> None:
    current = load_evaluator(directory)
    rewrite(directory / EVALUATOR, version=1)
    assert "schema_version" not in json.loads((directory / EVALUATOR).read_text())
    old = load_evaluator(directory)
    assert (old.targets, old.features, old.background, old.info) == (
        current.targets,
        current.features,
        current.background,
        current.info,
    )
    assert read_record(directory / EVALUATOR, TrainRecord).schema_version is None


def test_the_evaluator_file_is_the_trainings_run_record(directory: Path, trained: Trained) -> None:
    record = read_record(directory / EVALUATOR, TrainRecord)
    assert record.options["layers"] == 3 and record.options["aggregator"] == "lr"
    assert record.summary.targets == list(TARGETS) and record.summary.features == trained.features
    assert record.summary.source == "rule judge" and record.started_at is not None


def test_a_newer_format_version_is_refused(directory: Path) -> None:
    rewrite(directory / EVALUATOR, version=2)
    with pytest.raises(FacetevalError, match="evaluator format version 2; this faceteval reads up to 1"):
        load_evaluator(directory)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"version": "1"}, "format version '1'"),
        ({"version": None}, "format version None"),
        ({"format": "something-else"}, "not an HD-Eval evaluator file .format 'something-else'"),
        ({"features": ["coherence", "nonsense"]}, "features not in tree.yaml: nonsense"),
        ({"targets": None}, r"evaluator.json: field 'targets': missing"),
        ({"targets": []}, r"evaluator.json: field 'targets': expected a non-empty list of names"),
        ({"features": "coherence"}, r"evaluator.json: field 'features': expected a non-empty list of names"),
        ({"background": None}, r"evaluator.json: field 'background': missing"),
        ({"background": ["3.1"]}, r"evaluator.json: field 'background': expected a list of numbers"),
        ({"background": [float("nan")]}, r"evaluator.json: field 'background': expected a list of numbers"),
        ({"targets": ["coherence", "fluency", "relevance"]}, r"aggregator.skops predicts 2 targets, but"),
    ],
)
def test_an_unreadable_evaluator_file_is_refused(
    directory: Path, changes: dict[str, Any], message: str
) -> None:
    rewrite(directory / EVALUATOR, **changes)
    with pytest.raises(FacetevalError, match=message):
        load_evaluator(directory)


def test_repeated_features_are_refused(directory: Path) -> None:
    features = json.loads((directory / EVALUATOR).read_text())["summary"]["features"]  # schema 2
    rewrite(directory / EVALUATOR, features=[features[0], *features[:-1]])
    with pytest.raises(FacetevalError, match=f"field 'features': repeats '{features[0]}'"):
        load_evaluator(directory)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda row: row["features"].pop("coherence"),
            r"features.jsonl:4: field 'features.coherence': missing",
        ),
        (
            lambda row: row["targets"].update(fluency="high"),
            r":4: field 'targets.fluency': expected a number",
        ),
        (
            lambda row: row["features"].update(coherence=float("inf")),
            r":4: field 'features.coherence': expected a number",
        ),
        (lambda row: row.pop("targets"), r"features.jsonl:4: field 'targets': missing"),
        (
            lambda row: row.update(split="held out"),
            r":4: field 'split': expected 'train' or 'test', got 'held",
        ),
    ],
)
def test_a_damaged_features_jsonl_names_its_line_and_field(
    directory: Path, change: Any, message: str
) -> None:
    from faceteval.workflows.hdeval._experiments import run_experiments

    path = directory / "features.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    change(rows[3])
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(FacetevalError, match=message):
        run_experiments(directory, ["ablations"])


def test_a_directory_that_is_not_an_evaluator(tmp_path: Path) -> None:
    with pytest.raises(FacetevalError, match=r"not an HD-Eval evaluator \(no evaluator.json\)"):
        load_evaluator(tmp_path)
    with pytest.raises(FacetevalError, match=r"no features.jsonl"):
        read_features(tmp_path)


def test_a_directory_without_summary_json(directory: Path) -> None:
    (directory / SUMMARY).unlink()
    with pytest.raises(FacetevalError, match=r"not an HD-Eval evaluator \(no summary.json\)"):
        read_summary(directory)
    assert load_evaluator(directory).targets == TARGETS  # the model itself does not need it


def test_saving_removes_analyses_of_an_earlier_evaluator(tmp_path: Path, trained: Trained) -> None:
    out = tmp_path / "evaluator"
    out.mkdir()
    for name in ("experiments.json", "report.md", "report.html", "notes.txt"):
        (out / name).write_text("old")
    saved(out, trained)
    assert sorted(p.name for p in out.iterdir()) == [
        "aggregator.skops",
        "evaluator.json",
        "features.jsonl",
        "notes.txt",
        "summary.json",
        "tree.yaml",
    ]


def test_the_model_that_scored_the_criteria_is_read_back(tmp_path: Path, trained: Trained) -> None:
    options: dict[str, Any] = {"benchmark": "synthetic", "origin": "openai:judge"}
    summary = evaluator_summary(trained, **options, resamples=0)
    info = evaluator_info(trained, **options, model="openai:judge")
    save_evaluator(tmp_path, trained, summary=summary, info=info)

    assert load_evaluator(tmp_path).model == "openai:judge"


@pytest.mark.parametrize(
    ("source", "model"),
    [("openai:judge", "openai:judge"), ("chatgpt (recorded criterion scores)", None)],
)
def test_an_evaluator_written_before_it_named_its_model_has_it_as_its_source(
    directory: Path, source: str, model: str | None
) -> None:
    record = json.loads((directory / EVALUATOR).read_text())
    del record["summary"]["model"]  # schema 2: the evaluator's fields are its record's summary
    record["summary"]["source"] = source
    (directory / EVALUATOR).write_text(json.dumps(record))

    assert load_evaluator(directory).model == model


def test_a_model_that_is_not_a_name_is_refused(directory: Path) -> None:
    rewrite(directory / EVALUATOR, model=3)
    with pytest.raises(FacetevalError, match="field 'model': expected provider:model or null"):
        load_evaluator(directory)


# -- scoring new outputs ----------------------------------------------------------------------------


def test_score_gives_each_target_and_additive_contributions(directory: Path) -> None:
    evaluator = load_evaluator(directory)
    fresh = synthetic.instances(8, prefix="new")
    scores = criterion_scores(evaluator, fresh)
    rows = score(evaluator, fresh, scores)
    x = np.array([[scores[i.id][f] for f in evaluator.features] for i in fresh])
    predicted = evaluator.aggregator.predict(x)
    at_background = evaluator.aggregator.predict(np.array([evaluator.background]))[0]
    assert [row["id"] for row in rows] == [i.id for i in fresh]
    for row, expected, criteria in zip(rows, predicted, x, strict=True):
        assert row["status"] == "ok"
        assert row["scores"] == {  # as rounded to 6 significant digits
            "coherence": pytest.approx(expected[0], rel=1e-5),
            "fluency": pytest.approx(expected[1], rel=1e-5),
        }
        assert row["criteria"] == dict(zip(evaluator.features, criteria.tolist(), strict=True))
        for t, target in enumerate(TARGETS):
            parts = row["contributions"][target]
            assert list(parts) == list(evaluator.features)
            assert sum(parts.values()) == pytest.approx(expected[t] - at_background[t], abs=1e-5)
        # Human coherence follows transitions: it moves coherence, and fluency hardly at all.
        transitions = "coherence / flow / transitions"
        assert abs(row["contributions"]["fluency"][transitions]) < 0.2 * max(
            1.0, abs(row["contributions"]["coherence"][transitions])
        )


def test_scores_and_contributions_are_rounded_to_six_significant_digits(directory: Path) -> None:
    evaluator = load_evaluator(directory)
    fresh = synthetic.instances(8, prefix="new")
    rows = score(evaluator, fresh, criterion_scores(evaluator, fresh))
    numbers = [v for row in rows for v in row["scores"].values()]
    numbers += [v for row in rows for parts in row["contributions"].values() for v in parts.values()]
    assert all(value == float(f"{value:.6g}") for value in numbers)
    assert any(value != float(f"{value:.5g}") for value in numbers)  # and no further


def test_score_ranks_outputs_within_their_query(directory: Path) -> None:
    evaluator = load_evaluator(directory)
    fresh = synthetic.instances(8, prefix="new")  # two queries of four outputs
    rows = {row["id"]: row for row in score(evaluator, fresh, criterion_scores(evaluator, fresh))}
    for query in {i.query for i in fresh}:
        members = [rows[i.id] for i in fresh if i.query == query]
        assert all(row["outputs_of_query"] == 4 for row in members)
        for target in TARGETS:
            by_rank = sorted(members, key=lambda row: row["ranks"][target])
            assert [row["ranks"][target] for row in by_rank] == [1, 2, 3, 4]
            ordered = [row["scores"][target] for row in by_rank]
            assert ordered == sorted(ordered, reverse=True)


def test_tied_outputs_share_the_best_rank_and_incomplete_ones_are_not_scored(directory: Path) -> None:
    evaluator = load_evaluator(directory)
    fresh = synthetic.instances(4, prefix="new")
    scores = criterion_scores(evaluator, fresh)
    scores["new1"] = dict(scores["new0"])
    incomplete = dict(scores["new3"])
    del incomplete["fluency / grammar / tense"]
    scores["new3"] = incomplete
    rows = {row["id"]: row for row in score(evaluator, fresh, scores)}
    assert rows["new3"] == {
        "id": "new3",
        "status": "incomplete",
        "missing_criteria": ["fluency / grammar / tense"],
        "error": f"no score on 1 of the {len(evaluator.features)} criteria: 'fluency / grammar / tense'",
    }
    assert rows["new0"]["scores"] == rows["new1"]["scores"]
    for target in TARGETS:
        assert rows["new0"]["ranks"][target] == rows["new1"]["ranks"][target]
        assert sorted(rows[i]["ranks"][target] for i in ("new0", "new1", "new2")) in ([1, 1, 3], [1, 2, 2])
    assert rows["new0"]["outputs_of_query"] == 3


def test_score_with_no_complete_output(directory: Path) -> None:
    evaluator = load_evaluator(directory)
    fresh = synthetic.instances(2, prefix="new")
    rows = score(evaluator, fresh, {})
    assert [row["status"] for row in rows] == ["incomplete", "incomplete"]
    assert rows[0]["missing_criteria"] == list(evaluator.features)
    assert rows[0]["error"].startswith(
        f"no score on {len(evaluator.features)} of the {len(evaluator.features)}"
    )
    assert rows[0]["error"].endswith(f"and {len(evaluator.features) - 5} more")
