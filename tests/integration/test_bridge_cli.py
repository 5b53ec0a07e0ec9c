"""``faceteval bridge`` over a local OpenAI-compatible server: recorded judgments, files, a cached re-run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.fennec._bridge_sources import load_sources
from tests.support.bridge_judge import REFUSAL, BridgeJudge
from tests.support.llm_server import LLMServer


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    return Path(value)


def invoke(server: LLMServer, tmp_path: Path, data_dir: Path, *args: str) -> Result:
    common = [
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
        "--cache",
        str(tmp_path / "cache.sqlite"),
        "--retries",
        "0",
        "--data-dir",
        str(data_dir),
        "--out",
        str(tmp_path / "bridged"),
    ]
    return CliRunner().invoke(cli, ["bridge", *args, *common], catch_exceptions=False)


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_autoj_pairs_are_bridged_filtered_written_and_rerun_from_the_cache(
    tmp_path: Path, data_dir: Path
) -> None:
    sources = load_sources("autoj-pairwise", data_dir, limit=3)
    judge = BridgeJudge(
        mislead=[sources[2].responses[0]],  # both orders of autoj-pairwise:2
        refuse={"bridge.guideline": [sources[4].responses[0]]},  # both orders of autoj-pairwise:3
    )
    with LLMServer(judge.for_server()) as server:
        first = invoke(server, tmp_path, data_dir, "autoj-pairwise", "--limit", "3")
        assert first.exit_code == 0, first.output
        calls = len(server.requests)
        assert calls == 2 * 3 + 2 * 3 + 2 * (1 + 2)  # kept, inconsistent, re-asked guideline then stopped
        assert {r.body["model"] for r in server.requests} == {"judge"}
        assert all(r.body["temperature"] == 0 for r in server.requests)

        again = invoke(server, tmp_path, data_dir, "autoj-pairwise", "--limit", "3")
        assert again.exit_code == 0, again.output
        assert len(server.requests) == calls  # every reply, the refusals too, from the cache

    out = tmp_path / "bridged"
    assert (
        "Bridged 6 records of autoj-pairwise (recorded:auto-j-13b): 2 kept, 2 inconsistent, 2 parse errors"
        in (first.output)
    )
    assert f"LLM calls: {calls} (0 from cache)" in first.output
    assert f"LLM calls: {calls} ({calls} from cache)" in again.output
    assert "tokens of the calls made: 0 in, 0 out" in " ".join(again.output.split())
    assert "autoj-pairwise:3#1: parse_error:" in first.output
    records = jsonl(out / "autoj-pairwise.jsonl")
    assert [(r["id"], r["status"], r["consistent"]) for r in records] == [
        ("autoj-pairwise:1#1", "ok", True),
        ("autoj-pairwise:1#2", "ok", True),
        ("autoj-pairwise:2#1", "ok", False),
        ("autoj-pairwise:2#2", "ok", False),
        ("autoj-pairwise:3#1", "parse_error", None),
        ("autoj-pairwise:3#2", "parse_error", None),
    ]
    assert records[4]["raw"] == REFUSAL and records[4]["stage"] == "bridge.guideline"
    assert records[1]["order"] == [2, 1] and records[1]["responses"] == list(sources[1].responses)
    chats = jsonl(out / "autoj-pairwise.sft.jsonl")
    assert [[m["role"] for m in c["messages"]] for c in chats] == [["system", "user", "assistant"]] * 2
    assert [c["messages"][2]["content"] for c in chats] == [r["judgment"] for r in records[:2]]
    run = json.loads((out / "autoj-pairwise.run.json").read_text(encoding="utf-8"))
    assert (run["benchmark"], run["judge"], run["limit"]) == ("autoj-pairwise", "recorded:auto-j-13b", 3)
    assert run["llm"]["model"] == "openai:judge"
    summary = run["summary"]
    assert (summary["records"], summary["kept"], summary["inconsistent"], summary["parse_errors"]) == (
        6,
        2,
        2,
        2,
    )
    assert summary["usage"]["calls"] == summary["usage"]["cached_calls"] == calls  # the re-run's


def test_pandalm_with_its_recorded_reasons(tmp_path: Path, data_dir: Path) -> None:
    judge = BridgeJudge()
    with LLMServer(judge.for_server()) as server:
        result = invoke(server, tmp_path, data_dir, "pandalm", "--judge", "gpt-3.5-turbo", "--limit", "3")
        # Two of the three records show the judge the same pair: their three identical calls are
        # made once, whatever the timing (one waits for the other's reply, as from the cache).
        assert len(server.requests) == 6
    assert result.exit_code == 0, result.output
    assert "LLM calls: 9 (3 from cache)" in result.output
    assert "Bridged 3 records of pandalm (recorded:gpt-3.5-turbo): 3 kept, 0 inconsistent" in result.output
    records = jsonl(tmp_path / "bridged" / "pandalm.jsonl")
    assert all(r["judge"] == "gpt-3.5-turbo" and r["judgment"].startswith("Response ") for r in records)
    assert [c["messages"][2]["content"] for c in jsonl(tmp_path / "bridged" / "pandalm.sft.jsonl")] == [
        r["judgment"] for r in records
    ]
    first_prompt = server.requests[0].body["messages"][1]["content"]
    assert "So, the final decision is" in first_prompt and "[The Start of Judge Result]" in first_prompt


def test_prometheus_single_eval_with_the_gpt4_feedback(tmp_path: Path, data_dir: Path) -> None:
    sources = load_sources("prometheus-mtbench", data_dir, limit=2)
    judge = BridgeJudge(mislead=[sources[0].responses[0]])
    with LLMServer(judge.for_server()) as server:
        result = invoke(server, tmp_path, data_dir, "prometheus-mtbench", "--limit", "2")
    assert result.exit_code == 0, result.output
    assert "1 kept, 1 inconsistent, 0 parse errors" in result.output
    records = jsonl(tmp_path / "bridged" / "prometheus-mtbench.jsonl")
    assert [(r["kind"], r["judge"], r["consistent"]) for r in records] == [
        ("single", "gpt-4-run1", False),
        ("single", "gpt-4-run1", True),
    ]
    assert records[0]["regenerated_score"] != records[0]["score"]
    (chat,) = jsonl(tmp_path / "bridged" / "prometheus-mtbench.sft.jsonl")
    assert chat["messages"][2]["content"] == records[1]["judgment"]
    assert records[1]["judgment"].startswith(f"Response Score: {records[1]['score']:g}\nExplanation: ")
    assert "Single-Score Evaluations" in chat["messages"][0]["content"]


def test_a_benchmark_without_recorded_judgments_is_refused(tmp_path: Path, data_dir: Path) -> None:
    result = CliRunner().invoke(
        cli, ["bridge", "summeval", "--model", "openai:judge", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2 and "'summeval' is not one of" in result.output
