"""From Python, the same runs as from the command line: the same outputs and run records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import faceteval
from faceteval import LLM, DnA, JudgeOptions, read_instances
from faceteval._cli._app import cli
from faceteval.datasets import read_judgments
from faceteval.errors import ConfigError, InputError
from faceteval.llm import ModelSpec, ScriptedProvider
from faceteval.store import JudgeRecord, MetaEvalRecord, read_record
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

OLD = Path(__file__).parents[1] / "fixtures" / "records" / "v1"
PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1},
    {"id": "b", "query": "Explain rain.", "candidates": ["poor", "good"], "label": 2},
    {"id": "c", "query": "Name a prime.", "candidates": ["good", "fair"], "label": 1},
    {"id": "d", "query": "Name a prime.", "candidates": ["fair", "good"], "label": 0},
]
TIMES = ("started_at", "finished_at", "argv")


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with LLMServer(RuleJudge(quality={"good": 9, "fair": 6, "poor": 3}).for_server()) as running:
        yield running


def write_pairs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "pairs.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    return path


def timeless(record: dict[str, Any]) -> dict[str, Any]:
    """A run record without what differs between two runs of one job: times, and where its files are."""
    out = {key: value for key, value in record.items() if key not in TIMES}
    out["spend"] = {k: v for k, v in record["spend"].items() if k != "seconds"}
    out["summary"] = {k: v for k, v in record["summary"].items() if k != "start_seconds"}
    out["inputs"] = {role: {**given, "absolute": None} for role, given in record["inputs"].items()}
    return out


def test_judge_from_python_writes_the_output_and_record_the_command_writes(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for folder in ("cli", "python"):
        write_pairs(tmp_path / folder)
    monkeypatch.chdir(tmp_path / "cli")
    # one call at a time: judgments that share a query's work then share it as in the other run
    flags = ["--method", "dna", "--aspects", "2", "--swap", "--no-cache", "--quiet", "--concurrency", "1"]
    local = ["--model", "openai:judge", "--base-url", server.base_url]
    result = CliRunner().invoke(cli, ["judge", "pairs.jsonl", *flags, *local, "--out", "j.jsonl"])
    assert result.exit_code == 0, result.output

    monkeypatch.chdir(tmp_path / "python")
    llm = LLM.from_spec("openai:judge", base_url=server.base_url, concurrency=1)
    judgments = faceteval.judge(
        read_instances("pairs.jsonl"), DnA(aspects=2), llm, options=JudgeOptions(swap=True), out="j.jsonl"
    )

    cli_out, python_out = tmp_path / "cli", tmp_path / "python"
    assert (python_out / "j.jsonl").read_text() == (cli_out / "j.jsonl").read_text()
    assert [j.model_dump_json() + "\n" for j in judgments] == (python_out / "j.jsonl").read_text().splitlines(
        True
    )
    cli_record = json.loads((cli_out / "j.run.json").read_text())
    python_record = json.loads((python_out / "j.run.json").read_text())
    assert timeless(python_record) == timeless(cli_record)
    assert python_record["inputs"]["input"]["absolute"] == str(python_out / "pairs.jsonl")
    assert python_record["spend"]["calls"] == 2 * 2 + 4 * 2 * 2 and python_record["summary"]["judgments"] == {
        "ok": 4
    }


def test_instances_not_read_from_a_file_are_judged_into_a_file_with_a_record(tmp_path: Path) -> None:
    llm = LLM(ScriptedProvider.sequence(["8 3\nThe first."]), ModelSpec("scripted", "demo"))
    instances = [faceteval.Instance(id="1", query="2+2?", candidates=["4", "5"])]
    faceteval.judge(instances, faceteval.Direct(), llm, out=tmp_path / "j.jsonl")
    record = read_record(tmp_path / "j.run.json", JudgeRecord)
    assert record.inputs == {} and record.summary.judgments == {"ok": 1} and record.spend is not None
    assert record.method is not None and record.method.name == "direct"
    assert record.written["j.jsonl"].lines == 1


def test_a_run_reuses_the_judgments_an_earlier_version_wrote_with_its_record(tmp_path: Path) -> None:
    """An output and its schema-1 run record (written by the faceteval before the typed record): a run
    of the same job without a cache asks nothing, and writes a record of this schema."""
    for name in ("pairs.jsonl", "j.jsonl", "j.run.json"):
        shutil.copyfile(OLD / "judge" / name, tmp_path / name)
    earlier = json.loads((tmp_path / "j.run.json").read_text())
    nothing = ScriptedProvider.sequence([])  # any call would fail the run
    spec = ModelSpec.parse(earlier["llm"]["model"])
    llm = LLM(nothing, spec, identity=earlier["llm"]["identity"])
    judgments = faceteval.judge(
        read_instances(tmp_path / "pairs.jsonl"),
        DnA(aspects=2),
        llm,
        options=JudgeOptions(swap=True),
        out=tmp_path / "j.jsonl",
    )
    assert [j.status for j in judgments] == ["ok"] * 4 and llm.spent.calls == 0
    record = read_record(tmp_path / "j.run.json", JudgeRecord)
    assert record.schema_version == 2 and record.summary.reused == 4
    assert (tmp_path / "j.jsonl").read_text() == (OLD / "judge" / "j.jsonl").read_text()


def timeless_file(path: Path) -> Any:
    """A run directory's file as two runs of one job write it alike: records without their times."""
    if path.suffix != ".json":
        return path.read_bytes()
    record = json.loads(path.read_text())
    if "spend" in record and record["spend"] is not None:
        record["spend"] = {k: v for k, v in record["spend"].items() if k != "seconds"}
    summary = record.get("summary") or {}
    record["summary"] = {k: v for k, v in summary.items() if k != "start_seconds"}
    inputs = record.get("inputs") or {}
    record["inputs"] = {role: {**given, "absolute": None} for role, given in inputs.items()}  # another cwd
    return {key: value for key, value in record.items() if key not in TIMES}


def run_directory(root: Path) -> dict[str, Any]:
    return {path.relative_to(root).as_posix(): timeless_file(path) for path in sorted(root.rglob("*.*"))}


def test_meta_evaluate_from_python_writes_the_run_directory_the_command_writes(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep of two aspect counts, each repeated with two provider seeds: four runs and their summary."""
    write_pairs(tmp_path / "cli")
    write_pairs(tmp_path / "py")
    monkeypatch.chdir(tmp_path / "cli")
    local = ["--model", "openai:judge", "--base-url", server.base_url, "--concurrency", "1", "--no-cache"]
    flags = ["--method", "dna", "--aspects", "1,2", "--seeds", "1,2", "--resamples", "50", "-q"]
    result = CliRunner().invoke(cli, ["meta-eval", "pairs.jsonl", *flags, *local, "--out", "run"])
    assert result.exit_code == 0, result.output
    requests = len(server.requests)

    monkeypatch.chdir(tmp_path / "py")
    llm = LLM.from_spec("openai:judge", base_url=server.base_url, concurrency=1)
    options = faceteval.MetaEvalOptions(resamples=50, seeds=(1, 2))
    summary = faceteval.meta_evaluate(
        "pairs.jsonl", [DnA(aspects=1), DnA(aspects=2)], llm, out="run", options=options
    )

    assert len(server.requests) == 2 * requests  # no cache: every call made again
    assert [run["dir"] for run in summary.runs or ()] == [
        "aspects-1_seed-1",
        "aspects-1_seed-2",
        "aspects-2_seed-1",
        "aspects-2_seed-2",
    ]
    python_files, cli_files = run_directory(tmp_path / "py" / "run"), run_directory(tmp_path / "cli" / "run")
    assert sorted(python_files) == sorted(cli_files)
    assert (
        "aspects-2_seed-1/report.html" in python_files
        and "aspects-2_seed-1/judgments.run.json" in python_files
    )
    for name, content in python_files.items():
        assert content == cli_files[name], name
    inner = json.loads((tmp_path / "py" / "run" / "aspects-2_seed-1" / "summary.json").read_text())
    assert inner["summary"]["variant"] == {"aspects": 2, "seed": 1} and inner["llm"]["config"]["seed"] == 1
    assert summary == read_record(tmp_path / "py" / "run" / "summary.json", MetaEvalRecord).summary
    judged = faceteval.read_run(tmp_path / "py" / "run" / "aspects-2_seed-1" / "judgments.jsonl")
    assert judged.summary.result is not None and judged.summary.result.judgments == len(PAIRS)


def test_meta_evaluate_of_recorded_judgments_writes_the_run_directory_the_command_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Judgments measured as ``meta-eval --judgments`` measures them: from a file, and given in Python."""
    for folder in ("cli", "py", "given"):
        categorised = [pair | {"category": "x" if pair["id"] in "ac" else "y"} for pair in PAIRS]
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "pairs.jsonl").write_text("".join(json.dumps(p) + "\n" for p in categorised))
        replies = ScriptedProvider.sequence(
            ["8 3\nThe first.", "2 7\nThe second.", "5 5\nAlike.", "1 9\nNo."]
        )
        llm = LLM(replies, ModelSpec("scripted", "demo"), concurrency=1)
        faceteval.judge(read_instances(tmp_path / folder / "pairs.jsonl"), faceteval.Direct(), llm,
                        out=tmp_path / folder / "judged.jsonl")  # fmt: skip
    monkeypatch.chdir(tmp_path / "cli")
    flags = ["--judgments", "judged.jsonl", "--resamples", "50", "--category", "x", "--out", "run"]
    result = CliRunner().invoke(cli, ["meta-eval", "pairs.jsonl", *flags])
    assert result.exit_code == 0, result.output

    monkeypatch.chdir(tmp_path / "py")
    options = faceteval.MetaEvalOptions(resamples=50, categories=("x",))
    summary = faceteval.meta_evaluate("pairs.jsonl", judgments="judged.jsonl", out="run", options=options)
    monkeypatch.chdir(tmp_path / "given")
    given = faceteval.meta_evaluate(
        read_instances("pairs.jsonl"), judgments=read_judgments("judged.jsonl"), out="run",
        options=options,
    )  # fmt: skip

    cli_files, python_files = run_directory(tmp_path / "cli" / "run"), run_directory(tmp_path / "py" / "run")
    assert sorted(python_files) == sorted(cli_files) == [
        "instances.jsonl", "judgments.jsonl", "report.html", "report.md", "summary.json",
    ]  # fmt: skip
    for name, content in python_files.items():
        assert content == cli_files[name], name
    assert summary == read_record(tmp_path / "cli" / "run" / "summary.json", MetaEvalRecord).summary
    assert summary.n == 2 and summary.status == {"ok": 2, "parse_error": 0, "error": 0, "missing": 0}
    numbers = {key: value for key, value in given.model_dump().items() if key not in ("benchmark", "judge")}
    assert numbers == {
        key: value for key, value in summary.model_dump().items() if key not in ("benchmark", "judge")
    }
    assert (given.benchmark, given.judge) == ("instances", "judgments")


def test_meta_evaluate_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    pairs = write_pairs(tmp_path)
    llm = LLM(ScriptedProvider.sequence([]), ModelSpec("scripted", "demo"))
    refused = [
        ({}, "give either a method"),
        ({"method": DnA(), "judgments": pairs}, "give either a method"),
        ({"method": DnA()}, "judging with a method takes an llm"),
        ({"method": [DnA(), faceteval.Direct()], "llm": llm}, "a sweep is of one method, got direct, dna"),
        ({"method": [DnA(aspects=2), DnA(aspects=2)], "llm": llm}, r"repeats a value"),
        ({"judgments": pairs, "llm": llm}, "no LLM is asked"),
        ({"judgments": pairs, "options": faceteval.MetaEvalOptions(seeds=(1, 2))}, "seeds repeat"),
        ({"judgments": pairs, "judging": JudgeOptions(swap=True)}, "judging options apply"),
    ]
    for arguments, message in refused:
        with pytest.raises(ConfigError, match=message):
            faceteval.meta_evaluate(pairs, out=tmp_path / "run", **arguments)  # type: ignore[arg-type]
    assert not (tmp_path / "run").exists()


def test_a_bad_line_of_the_instances_measured_is_named(tmp_path: Path) -> None:
    pairs = write_pairs(tmp_path)
    pairs.write_text(pairs.read_text() + '{"id": "e", "query": "?"}\n')
    with pytest.raises(InputError, match=r"pairs\.jsonl:5: field 'candidates'"):
        faceteval.meta_evaluate(read_instances(pairs), judgments=[], out=tmp_path / "run")
