"""Judgments and run records as pandas DataFrames: recorded runs, failed judgments, facets long, bad files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from faceteval import Instance, Judgment, judgments_to_pandas, read_instances, read_run
from faceteval.core import FacetScore, Usage
from faceteval.errors import InputError, MissingDependencyError
from faceteval.frames import summary_to_pandas
from faceteval.store import JudgeRecord, MetaEvalRecord, read_record

RECORDS = Path(__file__).parents[2] / "fixtures" / "records" / "v1"
JUDGE = RECORDS / "judge"
META_EVAL = RECORDS / "meta-eval"


def judgments(path: Path) -> list[Judgment]:
    return [Judgment.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_recorded_runs_judgments_are_one_row_each_as_written() -> None:
    table = judgments_to_pandas(JUDGE / "j.jsonl")
    written = judgments(JUDGE / "j.jsonl")
    assert table["id"].tolist() == [j.id for j in written]
    assert table["verdict"].tolist() == [j.verdict for j in written]
    assert table[["score_1", "score_2"]].to_numpy().tolist() == [j.scores for j in written]
    assert table[["rank_1", "rank_2"]].to_numpy().tolist() == [j.ranks for j in written]
    assert table["consistent"].tolist() == [j.consistent for j in written]
    assert table["calls"].tolist() == [j.usage.calls for j in written]
    assert table["input_tokens"].sum() == sum(j.usage.input_tokens for j in written)
    for j, (_, row) in zip(written, table.iterrows(), strict=True):
        for facet in j.facets:
            assert row[f"weight/{facet.name}"] == facet.weight
            assert [row[f"facet/{facet.name}/{k}"] for k in (1, 2)] == facet.scores
    assert str(table["verdict"].dtype) == "Int64" and str(table["consistent"].dtype) == "boolean"
    assert "system_1" not in table and "label" not in table and "trace" not in table


def test_instances_add_systems_the_winner_and_the_label() -> None:
    instances = [
        Instance(id="a", query="q", candidates=["x", "y"], systems=["base", "tuned"], label=1),
        Instance(id="b", query="q", candidates=["x", "y"], label=2),
    ]
    table = judgments_to_pandas(JUDGE / "j.jsonl", instances=instances, systems=["left", "right"])
    rows = table.set_index("id")
    assert rows.loc["a", ["system_1", "system_2", "winner", "label"]].tolist() == ["base", "tuned", "base", 1]
    # b's instance names no systems: the given ones; c has no instance: no label
    assert rows.loc["b", ["system_1", "winner", "label"]].tolist() == ["left", "right", 2]
    assert rows.loc["c", "winner"] == "right" and pd.isna(rows.loc["c", "label"])


def test_instances_read_from_their_file_match_by_id() -> None:
    table = judgments_to_pandas(
        META_EVAL / "measured" / "judgments.jsonl",
        instances=read_instances(META_EVAL / "measured" / "instances.jsonl"),
    )
    labels = [
        json.loads(line)["label"]
        for line in (META_EVAL / "measured" / "instances.jsonl").read_text().splitlines()
    ]
    assert table["label"].tolist() == labels
    assert (table["verdict"] == table["label"]).mean() == 1.0  # the fixture's judge agreed every time


def test_a_failed_judgment_keeps_its_row_with_its_scores_missing() -> None:
    ok = Judgment(id="1", method="direct", status="ok", verdict=0, scores=[5.0, 5.0], usage=Usage(calls=1))
    failed = Judgment(
        id="2", method="direct", status="parse_error", error="no score line", usage=Usage(calls=2)
    )
    single = Judgment(id="3", method="direct", status="ok", scores=[7.0], usage=Usage(calls=1, cost_usd=None))
    table = judgments_to_pandas([ok, failed, single], systems=["a", "b"])
    assert table["status"].tolist() == ["ok", "parse_error", "ok"]
    assert table.loc[1, "error"] == "no score line"
    assert pd.isna(table.loc[1, "verdict"]) and pd.isna(table.loc[1, "score_1"])
    assert pd.isna(table.loc[2, "score_2"]) and pd.isna(table.loc[2, "cost_usd"])
    assert table.loc[0, "winner"] == "tie" and pd.isna(table.loc[1, "winner"])
    assert table["score_1"].mean() == 6.0  # missing scores are left out, never counted as 0


def test_facets_long_is_one_row_per_judgment_facet_and_candidate() -> None:
    long = judgments_to_pandas(JUDGE / "j.jsonl", facets=True)
    written = judgments(JUDGE / "j.jsonl")
    assert len(long) == sum(len(f.scores) for j in written for f in j.facets)
    assert long.columns.tolist() == [
        "id",
        "method",
        "status",
        "facet",
        "description",
        "weight",
        "candidate",
        "score",
        "explanation",
    ]
    first = written[0].facets[0]
    rows = long[(long["id"] == written[0].id) & (long["facet"] == first.name)]
    assert rows["candidate"].tolist() == [1, 2] and rows["score"].tolist() == first.scores
    assert set(long["weight"].dropna()) == {f.weight for j in written for f in j.facets}
    means = long.pivot_table(index="facet", columns="candidate", values="score")
    assert means.shape == (len(written[0].facets), 2)


def test_per_candidate_explanations_and_systems_in_the_long_table() -> None:
    facet = FacetScore(name="Accuracy", scores=[8.0, None], explanations=["right", "unscored"])
    judgment = Judgment(id="1", method="fennec", status="ok", verdict=1, scores=[8.0, 2.0], facets=[facet])
    long = judgments_to_pandas([judgment], systems=["gpt", "llama"], facets=True)
    assert long[["candidate", "system", "explanation"]].to_numpy().tolist() == [
        [1, "gpt", "right"],
        [2, "llama", "unscored"],
    ]
    assert pd.isna(long.loc[1, "score"])


def test_no_judgments_is_an_empty_table_with_its_columns() -> None:
    assert judgments_to_pandas([]).columns[:5].tolist() == ["id", "method", "status", "error", "verdict"]
    assert judgments_to_pandas([], facets=True).empty


def test_a_bad_line_is_named_by_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(
        '{"id": "1", "method": "m", "status": "ok"}\n\n{"id": "2", "method": "m", "status": "great"}\n'
    )
    with pytest.raises(InputError) as caught:
        judgments_to_pandas(path)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 3, "status")
    with pytest.raises(InputError, match="cannot open"):
        judgments_to_pandas(tmp_path / "missing.jsonl")


def test_anything_but_judgments_is_refused() -> None:
    with pytest.raises(TypeError, match="got a dict"):
        judgments_to_pandas([{"id": "1"}])  # type: ignore[list-item]


def test_a_run_record_gives_its_judgments_and_its_summary(tmp_path: Path) -> None:
    shutil.copytree(JUDGE, tmp_path / "run")
    record = read_run(tmp_path / "run" / "j.jsonl")
    assert record.location == tmp_path / "run" / "j.run.json"
    pd.testing.assert_frame_equal(record.to_pandas(), judgments_to_pandas(tmp_path / "run" / "j.jsonl"))
    long = record.to_pandas(facets=True)
    assert set(long["id"]) == {"a", "b", "c", "d"}
    summary = record.to_pandas("summary")  # an old record, without a result: its summary in one row
    assert len(summary) == 1 and summary.loc[0, "judgments.ok"] == 4
    (tmp_path / "run" / "j.jsonl").unlink()
    with pytest.raises(InputError, match=r"no judgments file beside the run record j\.run\.json"):
        record.to_pandas()


def test_a_meta_evaluation_record_gives_its_judgments_and_a_sweeps_runs() -> None:
    measured = read_record(META_EVAL / "measured" / "summary.json", MetaEvalRecord)
    assert measured.to_pandas()["id"].tolist() == ["a", "b", "c", "d"]
    assert measured.to_pandas("summary").loc[0, "agreement.value"] == measured.summary.agreement["value"]  # type: ignore[index]
    sweep = read_record(META_EVAL / "sweep" / "summary.json", MetaEvalRecord)
    runs = sweep.to_pandas("summary")
    assert runs["dir"].tolist() == [run["dir"] for run in sweep.summary.runs or []]
    assert {"aspects", "agreement.value", "agreement.ci", "usage.calls"} <= set(runs.columns)


def test_a_record_made_in_memory_says_how_to_read_one() -> None:
    with pytest.raises(InputError, match=r"read it with read_run\(path\)"):
        JudgeRecord().to_pandas()
    with pytest.raises(ValueError, match="'judgments' or 'summary'"):
        JudgeRecord().to_pandas("totals")  # type: ignore[arg-type]


def test_records_are_equal_wherever_they_were_read_from(tmp_path: Path) -> None:
    shutil.copytree(JUDGE, tmp_path / "copy")
    assert read_run(JUDGE / "j.jsonl") == read_run(tmp_path / "copy" / "j.jsonl")


def test_summary_rows_flatten_nested_fields() -> None:
    table = summary_to_pandas([{"dir": "a", "agreement": {"value": 0.5}}, {"dir": "b"}])
    assert table["dir"].tolist() == ["a", "b"] and pd.isna(table.loc[1, "agreement.value"])


def test_without_pandas_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # importing it now fails as if absent
    with pytest.raises(MissingDependencyError, match=r"pip install 'faceteval\[pandas\]'"):
        judgments_to_pandas(JUDGE / "j.jsonl")
    with pytest.raises(MissingDependencyError, match=r"pip install 'faceteval\[pandas\]'"):
        read_run(JUDGE / "j.jsonl").to_pandas("summary")


def test_importing_faceteval_imports_no_pandas() -> None:
    code = "import sys, faceteval, faceteval.store; print('pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
