"""Fennec end to end over a local OpenAI-compatible server: judge, single-eval, meta-eval, branch sweep."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.datasets import read_judgments
from tests.support.fennec_judge import FennecJudge, guideline_for
from tests.support.files import write_jsonl
from tests.support.llm_server import LLMServer


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


def by_length(text: str, criterion: str) -> float:
    """Longer responses score higher (1-5), a little lower on conciseness: a judge with a view."""
    score = 1.0 + min(4.0, len(text) / 400)
    return round(max(1.0, score - (1.0 if criterion == "Conciseness" else 0.0)))


@pytest.fixture
def rule() -> FennecJudge:
    return FennecJudge(quality={"plot": 4, "author": {"Accuracy": 1, "Coherence": 2}}, scorer=by_length)


@pytest.fixture
def server(rule: FennecJudge) -> Iterator[LLMServer]:
    with LLMServer(rule.for_server()) as running:
        yield running


def local(server: LLMServer, tmp_path: Path) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url, "--cache", str(tmp_path / "c.sqlite")]


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_judge_pairs_with_fennec_and_swap(tmp_path: Path, server: LLMServer, rule: FennecJudge) -> None:
    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id": "g1", "query": "Summarise The Great Gatsby.", "candidates": ["plot", "author"]},
            {"id": "g2", "query": "Summarise The Great Gatsby.", "candidates": ["author", "plot"]},
        ],
    )
    out = tmp_path / "j.jsonl"
    args = ["judge", pairs, "--method", "fennec", "--criteria-count", "3", "--swap", "--out", out, "-q"]
    result = invoke(*args, *local(server, tmp_path))
    assert result.exit_code == 0, result.output
    first, second = read_judgments(out)
    assert (first.verdict, second.verdict) == (1, 2)
    assert first.consistent is True and len(first.orders) == 2
    assert first.scores == [12.0, 6.0]  # 4 + 4 + 4 against 1 + 3 + 2, summed over three criteria
    assert [f.guideline for f in first.facets] == [
        guideline_for(f"{name}: {description}") for name, description in rule.criteria[:3]
    ]
    # one criteria call, three guidelines (same query), and 2 orders x 3 criteria judgments: g2 is
    # g1 swapped, so its two orders are g1's, and their identical calls are made once
    assert sorted(set(rule.calls)) == ["fennec.criteria", "fennec.guideline", "fennec.pairwise"]
    assert (rule.calls.count("fennec.criteria"), rule.calls.count("fennec.guideline")) == (1, 3)
    assert rule.calls.count("fennec.pairwise") == 6
    record = json.loads((tmp_path / "j.run.json").read_text())
    assert record["method"] == {
        "name": "fennec",
        "params": {"criteria_count": 3, "criteria": None, "aggregate": "sum", "single": False},
    }
    assert "fennec/pairwise" in record["prompts"]
    calls = server.request_count
    again = invoke(*args, *local(server, tmp_path))
    assert again.exit_code == 0 and server.request_count == calls  # all from the cache


def test_single_eval_of_outputs_with_one_response_each(tmp_path: Path, server: LLMServer) -> None:
    outputs = write_jsonl(
        tmp_path / "outputs.jsonl",
        [
            {"id": "o1", "query": "Summarise it.", "candidates": ["plot"]},
            {"id": "o2", "query": "Q", "candidates": ["x"]},
        ],
    )
    out = tmp_path / "s.jsonl"
    result = invoke(
        "judge", outputs, "--method", "fennec", "--single", "--aggregate", "mean", "--out", out, "-q",
        *local(server, tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    plot, short = read_judgments(out)
    assert plot.scores == [4.0] and plot.verdict is None
    assert short.scores == pytest.approx([(1 + 1 + 1 + 1 + 1) / 5])
    stages = {entry.stage for entry in plot.trace}
    assert stages == {"fennec.criteria", "fennec.guideline", "fennec.single"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "dna", "--single"], "--single only applies to --method fennec"),
        (["--method", "direct", "--criteria-count", "3"], "--criteria-count only applies to --method fennec"),
        (
            ["--method", "fennec", "--aggregate", "prompted"],
            "--aggregate prompted does not apply to --method fennec",
        ),
        (["--method", "dna", "--aggregate", "sum"], "--aggregate sum does not apply to --method dna"),
        (["--method", "fennec", "--aspects", "3"], "--aspects only applies to --method dna"),
    ],
)
def test_method_flags_are_checked(tmp_path: Path, args: list[str], message: str) -> None:
    pairs = write_jsonl(tmp_path / "p.jsonl", [{"id": "1", "query": "Q", "candidates": ["a", "b"]}])
    result = CliRunner().invoke(cli, ["judge", str(pairs), *args, "--model", "openai:judge", "--dry-run"])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def record_of(out: Path) -> dict[str, Any]:
    """A run's summary.json: its run record (schema 2)."""
    return dict(json.loads((out / "summary.json").read_text(encoding="utf-8")))


def summary_of(out: Path) -> dict[str, Any]:
    """The numbers of a run's summary.json (schema 2: its record's summary)."""
    return dict(record_of(out)["summary"])


def meta_eval(data_dir: Path, *args: str | Path) -> Result:
    return invoke("meta-eval", *args, "--data-dir", data_dir, "--resamples", "0", "--no-report", "-q")


def test_meta_eval_autoj_pairwise_with_fennec_and_swap(
    data_dir: Path, tmp_path: Path, server: LLMServer
) -> None:
    out = tmp_path / "fennec"
    args = ["autoj-pairwise", "--method", "fennec", "--swap", "--limit", "24", "--out", out]
    result = meta_eval(data_dir, *args, *local(server, tmp_path))
    assert result.exit_code == 0, result.output
    summary = summary_of(out)
    assert summary["n"] == 24 and summary["status"]["ok"] == 24
    record = record_of(out)  # schema 2: the method and the options are the record's
    assert record["method"]["name"] == "fennec" and record["options"]["swap"] is True
    assert summary["consistency"]["value"] == 1.0  # this judge has no position bias
    judgments = {j.id: j for j in read_judgments(out / "judgments.jsonl")}
    instances = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    hits = sum(judgments[i["id"]].verdict == i["label"] for i in instances)
    assert summary["agreement_consistent"]["hits"] == hits  # every order agreed
    untied = [i for i in instances if i["label"] != 0]
    assert summary["consistency_without_ties"]["n"] == len(untied)
    untied_hits = sum(judgments[i["id"]].verdict == i["label"] for i in untied)
    assert summary["agreement_consistent_without_ties"]["hits"] == untied_hits
    assert "consistency (orders agree)" in result.output


def test_branch_number_sweep(data_dir: Path, tmp_path: Path, server: LLMServer) -> None:
    out = tmp_path / "sweep"
    args = [
        "autoj-pairwise",
        "--method",
        "fennec",
        "--swap",
        "--criteria-count",
        "1,3",
        "--limit",
        "8",
        "--out",
        out,
    ]
    result = meta_eval(data_dir, *args, *local(server, tmp_path))
    assert result.exit_code == 0, result.output
    summary = summary_of(out)
    assert [row["dir"] for row in summary["sweep"]] == ["criteria-1", "criteria-3"]
    assert [row["aspects"] for row in summary["sweep"]] == [1, 3]
    for row in summary["sweep"]:
        assert {"consistency", "agreement_consistent", "consistency_without_ties"} <= set(row)
    calls = {row["dir"]: row["usage"]["calls"] for row in summary["sweep"]}
    assert calls["criteria-3"] > calls["criteria-1"]
    inner = summary_of(out / "criteria-3")
    assert inner["variant"] == {"criteria_count": 3, "seed": None}
    refused = meta_eval(
        data_dir, "autoj-pairwise", "--method", "dna", "--criteria-count", "1,3", "--out", out
    )
    assert refused.exit_code == 2


def test_system_level_ranking_from_single_eval(data_dir: Path, tmp_path: Path, server: LLMServer) -> None:
    out = tmp_path / "systems"
    args = ["prometheus-mtbench", "--method", "fennec", "--single", "--criteria-count", "2", "--out", out]
    result = meta_eval(data_dir, *args, "--limit", "40", *local(server, tmp_path))
    assert result.exit_code == 0, result.output
    summary = summary_of(out)
    (aspect,) = summary["correlations"]
    assert set(summary["correlations"][aspect]["system"]) == {"pearson", "spearman", "kendall"}
    judged = {j.id: j.scores[0] for j in read_judgments(out / "judgments.jsonl") if j.scores}
    means: dict[str, list[float]] = {}
    for line in (out / "instances.jsonl").read_text().splitlines():
        instance = json.loads(line)
        means.setdefault(instance["metadata"]["response_source"], []).append(judged[instance["id"]])
    rows = {row["system"]: row for row in summary["systems"][aspect]}
    assert set(rows) == set(means)
    for system, scores in means.items():
        assert rows[system]["judge"] == pytest.approx(sum(scores) / len(scores))
        better = sum(sum(other) / len(other) > sum(scores) / len(scores) for other in means.values())
        assert rows[system]["judge_rank"] == better + 1


def test_single_eval_accuracy_on_pairs(data_dir: Path, tmp_path: Path, server: LLMServer) -> None:
    out = tmp_path / "single"
    args = ["autoj-pairwise", "--method", "fennec", "--single", "--criteria-count", "2", "--limit", "16"]
    result = meta_eval(data_dir, *args, "--out", out, *local(server, tmp_path))
    assert result.exit_code == 0, result.output
    summary = summary_of(out)
    judgments = {j.id: j for j in read_judgments(out / "judgments.jsonl")}
    assert all(entry.stage != "fennec.pairwise" for j in judgments.values() for entry in j.trace)
    instances = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    hits = 0
    for instance in instances:
        first, second = judgments[instance["id"]].scores or []
        verdict = 1 if first > second else 2 if second > first else 0
        hits += verdict == instance["label"]
    assert summary["agreement"]["hits"] == hits and summary["agreement"]["n"] == 16  # Table 3's accuracy
