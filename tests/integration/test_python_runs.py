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
from faceteval.llm import ModelSpec, ScriptedProvider
from faceteval.store import JudgeRecord, read_record
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
