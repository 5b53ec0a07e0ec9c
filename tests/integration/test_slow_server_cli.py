"""`faceteval judge` against a server too slow for its timeout: each judgment's error says why every
attempt failed, and what to change (a longer --timeout, a lower --concurrency)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import read_jsonl
from tests.support.llm_server import Hang, LLMServer, Reply, Status


def pairs_file(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    rows = [{"id": k, "query": "Explain rain.", "candidates": ["good", "poor"]} for k in "abc"]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def judge(server: LLMServer, tmp_path: Path, out: Path, *flags: str) -> Result:
    """``faceteval judge`` of the three pairs, direct, against ``server``, into ``out``, with ``flags``."""
    flags = ("--method", "direct", "--model", "openai:judge", "--base-url", server.base_url, *flags)
    return CliRunner().invoke(
        cli,
        ["judge", str(pairs_file(tmp_path)), *flags, "--no-cache", "--out", str(out)],
        catch_exceptions=False,
    )


def test_timed_out_calls_say_so_and_suggest_fewer_at_once(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    with LLMServer(lambda _body: Hang(3)) as server:
        result = judge(server, tmp_path, out, "--timeout", "0.2", "--retries", "1", "--concurrency", "3")
    judgments = read_jsonl(out)
    assert {j["status"] for j in judgments} == {"error"}, result.output
    for judgment in judgments:
        assert "set --timeout to wait longer, or lower --concurrency (now 3)" in judgment["error"]
        assert "(after 2 attempts: timed out after 0.2 s; timed out after 0.2 s)" in judgment["error"]


def test_a_call_retried_after_a_server_error_says_which(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    with LLMServer(lambda _body: Status(503)) as server:
        server.enqueue(Reply("8 6"), Reply("6 8"))  # two instances answered, the third never
        result = judge(server, tmp_path, out, "--retries", "1", "--concurrency", "1")
    (failed,) = [j for j in read_jsonl(out) if j["status"] == "error"]
    assert failed["error"].endswith("(after 2 attempts: HTTP 503; HTTP 503)"), result.output
