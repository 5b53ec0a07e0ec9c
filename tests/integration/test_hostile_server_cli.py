"""Commands against servers that misbehave: replies far too large, waits too long, and no server at all."""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import psutil
import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import read_jsonl
from tests.support.llm_server import HugeBody, LLMServer, Reply, Status
from tests.support.processes import run_to_end
from tests.support.rule_judge import RuleJudge

MB = 1_000_000
LLM_COMMANDS = [
    ["judge"],
    ["meta-eval"],
    ["correct"],
    ["bridge"],
    ["criteria", "generate"],
    ["hdeval", "decompose"],
    ["hdeval", "train"],
    ["hdeval", "apply"],
]
"""Every command that calls an LLM."""


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [*map(str, args)], catch_exceptions=False)


def judge(pairs: Path, base_url: str, *flags: str | Path) -> Result:
    """``faceteval judge`` with the direct method, against ``base_url``."""
    return invoke(
        "judge", pairs, "--method", "direct", "--model", "openai:judge", "--base-url", base_url, *flags
    )


def write_pairs(path: Path, pairs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    return path


@contextmanager
def peak_rss_growth() -> Iterator[list[int]]:
    """Samples resident memory during the block; yields [peak growth in bytes], filled in at its end."""
    process = psutil.Process()
    before = process.memory_info().rss
    peak = before
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.005):
            peak = max(peak, process.memory_info().rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    growth = [0]
    try:
        yield growth
    finally:
        done.set()
        sampler.join()
        growth[0] = max(peak, process.memory_info().rss) - before


@pytest.mark.parametrize("command", LLM_COMMANDS, ids=" ".join)
def test_every_command_that_calls_an_llm_takes_the_reply_and_wait_limits(command: list[str]) -> None:
    result = invoke(*command, "--help")
    assert result.exit_code == 0, result.output
    assert "--max-reply-bytes" in result.output and "--max-retry-after" in result.output


def test_replies_of_60_mb_keep_memory_output_and_cache_small(tmp_path: Path) -> None:
    # Half the instances get replies of 60 MB from a server that ignores max_tokens; the others are
    # judged as usual, so the run goes to its end rather than stopping at a streak of failures.
    rule = RuleJudge(quality={"good": 8, "poor": 3})

    def responder(body: dict[str, Any]) -> str | HugeBody:
        return HugeBody(60 * MB) if "flood" in json.dumps(body) else rule.respond(body["messages"])

    pairs = [
        {"id": str(i), "query": f"{'flood' if i % 2 else 'calm'} {i}", "candidates": ["good", "poor"]}
        for i in range(100)
    ]
    out, cache = tmp_path / "o.jsonl", tmp_path / "c.sqlite"
    with LLMServer(responder) as server, peak_rss_growth() as growth:
        path = write_pairs(tmp_path / "p.jsonl", pairs)
        result = judge(path, server.base_url, "--out", out, "--cache", cache, "--quiet")
        requests = server.request_count
    assert result.exit_code == 6, result.output  # some judgments failed (exit 6), the rest written
    judgments = {j["id"]: j for j in read_jsonl(out)}
    flooded = [judgments[str(i)] for i in range(1, 100, 2)]
    assert all(j["status"] == "ok" for i, j in judgments.items() if int(i) % 2 == 0)
    assert all(j["status"] == "error" for j in flooded)
    error = flooded[0]["error"]
    assert error.startswith("ReplyTooLargeError: openai at ") and "--max-reply-bytes" in error
    assert all(j["trace"][0]["attempts"] == 2 for j in flooded)  # retried once, not five times
    assert requests == 50 + 50 * 2
    # 50 replies of 60 MB (100 with the retries) would be gigabytes kept, written and cached.
    assert growth[0] < 150 * MB, f"resident memory grew by {growth[0] / MB:.0f} MB"
    assert out.stat().st_size < 2 * MB and cache.stat().st_size < 2 * MB
    assert "xxxxxxxxxx" not in out.read_text()


def test_a_smaller_limit_is_taken_from_the_flag(tmp_path: Path) -> None:
    pairs = [{"id": "1", "query": "q", "candidates": ["a", "b"]}]
    with LLMServer(lambda body: Reply("x" * 5000)) as server:
        path = write_pairs(tmp_path / "p.jsonl", pairs)
        flags = ("--out", tmp_path / "o.jsonl", "--no-cache", "--max-reply-bytes", "2000")
        result = judge(path, server.base_url, *flags)
        assert server.request_count == 2
    assert result.exit_code == 1
    (judgment,) = read_jsonl(tmp_path / "o.jsonl")
    assert "over the limit of 2,000 bytes (--max-reply-bytes" in judgment["error"]


def test_a_wrong_port_stops_the_run_at_once_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    pairs = [{"id": str(i), "query": f"Q{i}", "candidates": ["a", "b"]} for i in range(25)]
    out = tmp_path / "o.jsonl"
    result = judge(write_pairs(tmp_path / "p.jsonl", pairs), url, "--no-cache", "--out", out)
    assert result.exit_code == 1
    line = f"cannot connect to {url}: connection refused; is the server running?"
    assert f"error: {line}\n" in result.output
    assert result.output.count("cannot connect") == 1  # one line, no list of failed instances
    assert "in a row failed" not in result.output
    record = json.loads((tmp_path / "o.run.json").read_text())
    assert record["stopped_by"] == line
    assert result.output == f"error: {line}\n"  # no summary of a run that judged nothing
    # Each call sent at most once more (the default --retries is 5): seconds, not minutes.
    summary = record["spend"]  # schema 2: the LLM use is the record's spend
    assert summary["retries"] <= summary["calls"] <= 25, summary


def test_a_retry_after_past_the_cap_fails_the_call_at_once_with_the_servers_time(tmp_path: Path) -> None:
    # Each instance's server asks to be retried in 11 days or 30: not waited on (the default --retries
    # would otherwise wait about 50 minutes for each), but failed with the time it asked for.
    in_30_days = format_datetime(datetime.now(UTC) + timedelta(days=30), usegmt=True)
    asks = {
        "seconds": Status(429, headers={"retry-after": "999999"}),
        "date": Status(429, headers={"retry-after": in_30_days}),
        "ms": Status(429, headers={"retry-after-ms": "999999000"}),
        "unavailable": Status(503, headers={"retry-after": "999999"}),
    }
    rule = RuleJudge(quality={"good": 8, "poor": 3})

    def responder(body: dict[str, Any]) -> str | Status:
        asked = next((status for name, status in asks.items() if f"ask-{name}" in json.dumps(body)), None)
        return asked or rule.respond(body["messages"])

    names = [*asks, "calm"]
    pairs = [{"id": name, "query": f"ask-{name}", "candidates": ["good", "poor"]} for name in names]
    out = tmp_path / "o.jsonl"
    with LLMServer(responder) as server:
        path = write_pairs(tmp_path / "p.jsonl", pairs)
        command = [sys.executable, "-m", "faceteval", "judge", str(path), "--method", "direct"]
        command += ["--model", "openai:judge", "--base-url", server.base_url, "--out", str(out)]
        done = run_to_end([*command, "--no-cache", "--quiet"], timeout=300)  # a guard, not a measure
        requests = server.request_count
    assert done.returncode == 6, done.stderr  # some judgments failed (exit 6), the rest written
    assert "Traceback" not in done.stderr
    judgments = {j["id"]: j for j in read_jsonl(out)}
    assert judgments["calm"]["status"] == "ok"
    assert requests == len(names)  # each asked once: none retried
    waits = "more than the 60 s faceteval waits (--max-retry-after;"
    for name in ("seconds", "ms", "unavailable"):
        assert judgments[name]["status"] == "error"
        assert (
            f"the server asks to retry after 999,999 s (about 12 days), {waits}" in judgments[name]["error"]
        )
    assert judgments["unavailable"]["error"].startswith("ProviderServerError: ")
    assert "(about 30 days), " + waits in judgments["date"]["error"]
    assert judgments["date"]["error"].startswith("RateLimitError: ")
