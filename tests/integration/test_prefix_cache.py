"""``--prefix-cache``: per-facet scoring prompts ordered for a server's prefix cache (the facet last),
the same judgments, a larger shared-prefix share in the run record, and the cached input tokens a
prefix-caching server reports counted in the run's spend, over HTTP through the official SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
    {"id": "b", "query": "Name a prime.", "candidates": ["poor", "good"]},
]


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    return path


def judge(pairs: Path, tmp_path: Path, name: str, *extra: str) -> tuple[Result, LLMServer]:
    judge = RuleJudge(quality={"good": {"Is it clear?": 9}, "poor": 3})
    with LLMServer(judge.for_server(), prefix_cache=True) as server:
        args = ["judge", pairs, "--method", "dna", "--model", "openai:judge", "--base-url", server.base_url]
        args += ["--out", tmp_path / f"{name}.jsonl", "--no-cache", "--swap", *extra]
        result = CliRunner().invoke(cli, [*map(str, args)], catch_exceptions=False)
    return result, server


def outcome(path: Path) -> list[tuple[Any, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [(row["verdict"], [f["scores"] for f in row["facets"]]) for row in rows]


def test_the_facet_goes_last_and_the_shared_prefix_grows(tmp_path: Path, pairs: Path) -> None:
    papers, plain = judge(pairs, tmp_path, "papers")
    ordered, server = judge(pairs, tmp_path, "prefix", "--prefix-cache")
    assert (papers.exit_code, ordered.exit_code) == (0, 0), ordered.output
    assert outcome(tmp_path / "papers.jsonl") == outcome(tmp_path / "prefix.jsonl")
    scoring = [r.body["messages"][-1]["content"] for r in server.requests if "[Aspect]" in str(r.body)]
    assert scoring and all(text.rsplit("\n[Aspect]\n", 1)[1].startswith("> ") for text in scoring)
    assert not any("[Aspect]" in str(r.body) for r in plain.requests)
    before = json.loads((tmp_path / "papers.run.json").read_text())
    after = json.loads((tmp_path / "prefix.run.json").read_text())
    assert 0 < before["summary"]["prefix_share"] < after["summary"]["prefix_share"] < 1
    assert after["options"]["prefix_cache"] is True and "prefix_cache" not in before["options"]
    assert 0 < before["spend"]["cached_input_tokens"] < after["spend"]["cached_input_tokens"]
    assert after["spend"]["cached_input_tokens"] < after["spend"]["input_tokens"]
    assert "shared prefix" not in papers.stderr and "(--prefix-cache)" in " ".join(ordered.stderr.split())
    assert "from the provider's prompt cache" in " ".join(ordered.stderr.split())


def test_a_job_written_in_python_orders_its_prompts_as_the_command_does(tmp_path: Path, pairs: Path) -> None:
    from faceteval import DnA, FileInstances, JobOutputs, JudgeJob, JudgeOptions, JudgeSpec, run_job
    from faceteval.prompts.internal import prefix_cache_on

    ordered, _ = judge(pairs, tmp_path, "cli", "--prefix-cache")
    assert ordered.exit_code == 0, ordered.output
    rules = RuleJudge(quality={"good": {"Is it clear?": 9}, "poor": 3})
    with LLMServer(rules.for_server(), prefix_cache=True) as server:
        job = JudgeJob(
            FileInstances(pairs),
            DnA(),
            JudgeSpec("openai:judge", base_url=server.base_url, api_key="test"),
            options=JudgeOptions(swap=True, prefix_cache=True),
            outputs=JobOutputs(out=tmp_path / "python.jsonl"),
        )
        result = run_job(job)
    assert result.stats.statuses == {"ok": len(PAIRS)} and not prefix_cache_on()  # nothing left in use
    scoring = [r.body["messages"][-1]["content"] for r in server.requests if "[Aspect]" in str(r.body)]
    assert scoring and all(text.rsplit("\n[Aspect]\n", 1)[1].startswith("> ") for text in scoring)
    assert outcome(tmp_path / "python.jsonl") == outcome(tmp_path / "cli.jsonl")
    python = json.loads((tmp_path / "python.run.json").read_text())
    command = json.loads((tmp_path / "cli.run.json").read_text())
    assert python["options"] == command["options"] and python["prompts"] == command["prompts"]
    assert python["summary"]["prefix_share"] == command["summary"]["prefix_share"]
