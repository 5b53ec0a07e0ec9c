"""Finding runs: each kind of run by the files its command wrote, and read in one shape."""

from __future__ import annotations

import json
from pathlib import Path

from faceteval.core import Instance, Judgment
from faceteval.results import compute_result
from faceteval.viewer import read_record
from faceteval.viewer.internal import find_runs, run_at
from tests.support.view_runs import Runs


def test_every_kind_of_run_in_a_folder_is_found_once(made_runs: Runs) -> None:
    runs, problems = find_runs([made_runs.folder])

    found = {run.path.relative_to(made_runs.folder).as_posix(): run.command for run in runs}
    assert found == {
        "j.jsonl": "judge",
        "f.jsonl": "judge",
        "corrected.jsonl": "correct",
        "bridged/autoj-pairwise.jsonl": "bridge",
        "mtbench": "meta-eval",
        "sweep": "meta-eval",
        "sweep/aspects-1": "meta-eval",
        "sweep/aspects-2": "meta-eval",
        "evaluator": "hdeval train",
    }
    assert problems == []
    sweep_runs = [run.path.name for run in runs if run.parent == made_runs.sweep]
    assert sweep_runs == ["aspects-1", "aspects-2"]


def test_a_judge_run_is_its_judgments_or_its_record(made_runs: Runs) -> None:
    by_lines = run_at(made_runs.judge)
    by_record = run_at(made_runs.judge.with_name("j.run.json"))

    assert by_lines == by_record
    assert by_lines is not None and by_lines.lines == made_runs.judge and by_lines.record is not None
    assert run_at(made_runs.folder / "pairs.jsonl") is None  # an input, not a run


def test_a_path_that_is_no_run_and_holds_none_is_named_with_what_to_give(
    made_runs: Runs, tmp_path: Path
) -> None:
    runs, problems = find_runs([made_runs.folder / "pairs.jsonl", tmp_path / "missing", tmp_path])

    assert runs == []
    assert problems[0].startswith(f"{made_runs.folder / 'pairs.jsonl'}: is not a run: give a judge output")
    assert problems[1] == f"{tmp_path / 'missing'}: no such file or directory"
    assert problems[2].startswith(f"{tmp_path}: holds no run")


def test_the_records_of_every_command_are_read_in_one_shape(made_runs: Runs) -> None:
    runs = {run.path: run for run in find_runs([made_runs.folder])[0]}

    judge = runs[made_runs.judge].read_record()
    assert (judge.method, judge.model, judge.options["swap"]) == ("dna", "openai:judge", True)
    assert judge.summary["judgments"] == {"ok": 4, "parse_error": 1}
    assert judge.spend["calls"] > 0 and "calls" not in judge.summary
    correct = runs[made_runs.correct].read_record()
    assert (correct.command, correct.model, correct.summary["responses"]) == ("correct", "openai:judge", 6)
    bridge = runs[made_runs.bridge].read_record()
    assert bridge.options["judge"] == "recorded:auto-j-13b" and bridge.summary["records"] == 4
    measured = runs[made_runs.meta_eval].read_record()
    assert measured.summary["benchmark"] == "mtbench-human" and measured.summary["n"] == 40
    trained = runs[made_runs.evaluator].read_record()
    assert (trained.method, trained.summary["targets"]) == ("hdeval", ["Coherence"])


def test_a_typed_record_is_read_as_it_is(tmp_path: Path) -> None:
    pair = Instance(id="1", query="q", candidates=["x", "y"], systems=["A", "B"])
    result = compute_result([Judgment(id="1", method="dna", status="ok", verdict=2)], [pair])
    record = {
        "schema_version": 2,
        "command": "judge",
        "argv": ["faceteval", "judge"],
        "method": {"name": "dna", "params": {"aspects": 3}},
        "llm": {"model": "openai:m"},
        "spend": {"calls": 3},
        "summary": {"judgments": {"ok": 1}, "result": result.model_dump(mode="json")},
    }
    path = tmp_path / "j.run.json"
    path.write_text(json.dumps(record), encoding="utf-8")

    view = read_record(path, "judge")

    assert (view.method, view.params, view.model, view.spend) == (
        "dna",
        {"aspects": 3},
        "openai:m",
        {"calls": 3},
    )
    assert view.result == result.model_dump(mode="json")


def test_a_result_not_of_its_model_makes_the_record_a_problem_named_by_its_field(tmp_path: Path) -> None:
    record = {"schema_version": 2, "command": "judge", "summary": {"result": {"systems": {"A": 0.7}}}}
    path = tmp_path / "j.run.json"
    path.write_text(json.dumps(record), encoding="utf-8")

    view = read_record(path, "judge")

    assert view.problem is not None and "summary.result" in view.problem
    assert view.result is None


def test_an_unreadable_record_is_named_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "j.run.json"
    path.write_text('{"schema_version": 1,', encoding="utf-8")

    view = read_record(path, "judge")

    assert view.problem is not None and view.problem.startswith(f"{path}:1: not valid JSON")
    assert view.summary == {} and view.method is None


def test_an_older_records_api_key_is_not_shown(tmp_path: Path) -> None:
    path = tmp_path / "j.run.json"
    record = {"schema_version": 1, "command": ["faceteval", "judge", "--api-key", "sk-9"]}  # its argv
    path.write_text(json.dumps(record), encoding="utf-8")

    assert read_record(path, "judge").header["argv"] == ["faceteval", "judge", "--api-key", "***"]
