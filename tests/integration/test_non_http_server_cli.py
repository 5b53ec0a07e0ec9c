"""Commands against a server that does not speak HTTP (another service on the port, a broken proxy):
one line naming the server and what came back, never a traceback."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import read_jsonl, write_jsonl
from tests.support.processes import run_to_end
from tests.support.raw_server import GARBAGE, RawServer, http_reply
from tests.support.rule_judge import RuleJudge

PAIRS = [{"id": str(i), "query": f"Question {i}", "candidates": ["good", "poor"]} for i in range(8)]
RULE = RuleJudge(quality={"good": 8, "poor": 3})
CASES = [("openai", kind) for kind in sorted(GARBAGE)] + [
    ("anthropic", kind) for kind in ("garbage-then-close", "garbage-forever", "broken-headers", "bad-chunk")
]


def judge_args(pairs: Path, provider: str, server: RawServer, out: Path, *flags: str) -> list[str]:
    url = server.root_url if provider == "anthropic" else server.base_url
    return [
        "judge", str(pairs), "--method", "direct", "--model", f"{provider}:judge", "--base-url", url,
        "--no-cache", "--out", str(out), *flags,
    ]  # fmt: skip


def invoke(args: list[str]) -> Result:
    return CliRunner().invoke(cli, args, catch_exceptions=False)  # an exception that escapes fails here


def answer_first(later: Iterable[bytes] | None) -> Any:
    """A server that answers its first request as a judge would, and every later one with ``later``."""

    def answer(index: int, request: bytes) -> Iterable[bytes]:
        if index > 0:
            return later or []
        body = json.loads(request.partition(b"\r\n\r\n")[2])
        text = RULE.respond(body["messages"])
        if b"/v1/messages" in request.split(b"\r\n", 1)[0]:  # Anthropic's API
            usage = {"input_tokens": 10, "output_tokens": 5}
            content = [{"type": "text", "text": text}]
            return http_reply(
                {"type": "message", "id": "m1", "role": "assistant", "model": "judge", "content": content}
                | {"stop_reason": "end_turn", "usage": usage}
            )
        message = {"role": "assistant", "content": text}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return http_reply({"model": "judge", "choices": [choice]})

    return answer


@pytest.mark.parametrize(("provider", "kind"), CASES, ids=[f"{p}-{k}" for p, k in CASES])
def test_a_server_that_does_not_speak_http_stops_the_run_at_once_with_one_line(
    tmp_path: Path, provider: str, kind: str
) -> None:
    pairs, out = write_jsonl(tmp_path / "p.jsonl", PAIRS), tmp_path / "o.jsonl"
    with RawServer(lambda index, request: GARBAGE[kind]()) as server:
        result = invoke(judge_args(pairs, provider, server, out))
        asked = len(server.requests)
    url = server.root_url if provider == "anthropic" else server.base_url
    assert result.exit_code == 1
    (line,) = result.output.splitlines()  # one line: no list of failed instances, no traceback
    assert line.startswith(
        f"error: {provider} at {url} (model 'judge') answered with something that is not HTTP ("
    )
    assert line.isprintable()  # what came back is escaped
    record = json.loads((tmp_path / "o.run.json").read_text())
    assert record["stopped_by"] == line.removeprefix("error: ")
    # Taken for a wrong port, as a refused connection is: each call sent at most once more.
    assert asked <= 2 * len(PAIRS)
    assert not out.exists() or read_jsonl(out) == []


def test_the_command_line_prints_no_traceback(tmp_path: Path) -> None:
    pairs, out = write_jsonl(tmp_path / "p.jsonl", PAIRS), tmp_path / "o.jsonl"
    with RawServer(lambda index, request: GARBAGE["garbage-then-close"]()) as server:
        command = [sys.executable, "-m", "faceteval", *judge_args(pairs, "openai", server, out)]
        done = run_to_end(command, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    line = f"openai at {server.base_url} (model 'judge') answered with something that is not HTTP "
    line += r"(Bad status line: Expected HTTP/, RTSP/ or ICE/: b'\x00\x01garbage\x1b[31m\x07'); "
    assert done.stderr == f"error: {line}is that an LLM server's host and port?\n"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_server_that_stops_speaking_http_mid_run_fails_its_calls_as_a_dropped_connection_does(
    tmp_path: Path, provider: str
) -> None:
    # The first call is answered (one at a time: it is the first to arrive), so the server is there:
    # the later replies that are not HTTP are retried and written as error judgments, as replies
    # cut off by a dropped connection are, and the run ends as such a run ends.
    pairs = write_jsonl(tmp_path / "p.jsonl", PAIRS[:4])
    outcomes = {}
    for name, later in (("garbage", GARBAGE["broken-headers"]()), ("dropped", None)):
        out = tmp_path / f"{name}.jsonl"
        with RawServer(answer_first(later)) as server:
            result = invoke(judge_args(pairs, provider, server, out, "--concurrency", "1", "--retries", "1"))
            asked = len(server.requests)
        assert "Traceback" not in result.output
        judgments = read_jsonl(out)
        assert [j["status"] for j in judgments].count("ok") == 1
        outcomes[name] = (result.exit_code, [j["status"] for j in judgments], asked)
        errors = [j["error"] for j in judgments if j["status"] == "error"]
        assert len(errors) == 3 and all(e.isprintable() for e in errors)
        if name == "garbage":
            where = f"{provider} at {server.root_url if provider == 'anthropic' else server.base_url}"
            assert all(
                e.startswith(f"ProviderProtocolError: {where} (model 'judge') answered with something")
                and "Content-Type application/json" in e
                for e in errors
            )
    assert outcomes["garbage"] == outcomes["dropped"]
    assert outcomes["garbage"][2] == 1 + 3 * 2  # each failed call retried once (--retries 1)
