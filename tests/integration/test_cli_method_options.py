"""The methods' options on the command line, from their specs: ``-M key=value`` beside the flags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import read_jsonl, write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)


@pytest.fixture
def rule() -> RuleJudge:
    return RuleJudge(quality={"good": 8, "poor": 3})


@pytest.fixture
def server(rule: RuleJudge):  # type: ignore[no-untyped-def]
    with LLMServer(rule.for_server()) as running:
        yield running


def local(server: LLMServer) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url, "--no-cache"]


def pairs(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1},
            {"id": "b", "query": "Explain snow.", "candidates": ["poor", "good"], "label": 2},
        ],
    )


def record(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out.with_suffix(".run.json").read_text())
    return data


def test_m_sets_an_option_by_its_name_as_its_flag_does(tmp_path: Path, server: LLMServer) -> None:
    by_m, by_flag = tmp_path / "m.jsonl", tmp_path / "flag.jsonl"
    assert run("judge", pairs(tmp_path), *local(server), "-M", "aspects=2", "--out", by_m).exit_code == 0
    assert run("judge", pairs(tmp_path), *local(server), "--aspects", "2", "--out", by_flag).exit_code == 0
    assert record(by_m)["method"] == record(by_flag)["method"]
    assert record(by_m)["method"]["params"]["aspects"] == 2
    assert [len(j["facets"]) for j in read_jsonl(by_m)] == [2, 2]
    assert [j["verdict"] for j in read_jsonl(by_m)] == [1, 2]


def test_m_sets_an_option_that_has_no_flag(tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    with LLMServer(lambda body: "4") as server:  # coeval-direct: the overall score on the first line
        task = ["-M", "task=Explain the weather to a child"]
        result = run(
            "judge", pairs(tmp_path), "--method", "coeval-direct", *task, *local(server), "--out", out
        )
        prompts = [m["content"] for r in server.requests for m in r.body["messages"] if m["role"] == "user"]
    assert result.exit_code == 0, result.output
    assert record(out)["method"]["params"]["task"] == "Explain the weather to a child"
    assert len(prompts) == 4 and all("Explain the weather to a child." in p for p in prompts)
    assert [j["scores"] for j in read_jsonl(out)] == [[4.0, 4.0], [4.0, 4.0]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-M", "nope=1"], "-M nope: --method dna has no option 'nope' (its options: aspects, aggregate)"),
        (["-M", "aspects"], "-M aspects: give KEY=VALUE, such as -M aspects=5"),
        (["-M", "aspects=2", "--aspects", "3"], "-M aspects and --aspects both set aspects: give one"),
        (["-M", "aspects=2", "-M", "aspects=3"], "-M aspects is given twice"),
        (["-M", "aspects=0"], "-M aspects=0: 0 is not in the range 1<=x<=20"),
        (["-M", "aggregate=sum"], "-M aggregate=sum: 'sum' is not one of 'weighted', 'mean', 'prompted'"),
        (
            ["--criteria", "c.yaml", "-M", "aspects=2"],
            "-M aspects sets how many criteria to generate, but --criteria gives every instance its own",
        ),
        (["--method", "cot", "-M", "aspects=2"], "-M aspects: --method cot has no option 'aspects'"),
    ],
)
def test_m_is_refused_where_it_could_only_be_a_mistake(
    tmp_path: Path, server: LLMServer, args: list[str], message: str
) -> None:
    (tmp_path / "c.yaml").write_text("criteria:\n  - Clarity\n")
    result = run(
        "judge", pairs(tmp_path), *local(server), *[str(tmp_path / a) if a == "c.yaml" else a for a in args]
    )
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert server.requests == []


def test_a_sweep_by_m_runs_as_by_its_flag(tmp_path: Path, server: LLMServer) -> None:
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1},
            {"id": "b", "query": "Explain snow.", "candidates": ["poor", "good"], "label": 2},
        ],
    )
    out = tmp_path / "sweep"
    result = run(
        "meta-eval",
        labels,
        "--method",
        "dna",
        "-M",
        "aspects=1,2",
        *local(server),
        "--out",
        out,
        "--no-report",
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())["summary"]  # schema 2: the record's summary
    assert [(row["dir"], row["aspects"]) for row in summary["sweep"]] == [("aspects-1", 1), ("aspects-2", 2)]
    inner = json.loads((out / "aspects-2" / "summary.json").read_text())["summary"]
    assert inner["variant"] == {"aspects": 2, "seed": None}
    refused = run("meta-eval", labels, "--method", "dna", "-M", "aspects=1,x", *local(server), "--out", out)
    assert refused.exit_code == 2 and "'1,x' is not a comma-separated list of integers" in refused.output
