"""Credentials inside a base URL (``http://user:pass@host/v1``, ``?api-key=...``): sent as the user
means, and kept out of everything a run writes, traces or prints."""

from __future__ import annotations

import base64
import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from unittest.mock import patch

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import read_jsonl, write_jsonl
from tests.support.llm_server import LLMServer, Status
from tests.support.otlp_collector import Collector, running_collector
from tests.support.raw_server import GARBAGE, RawServer
from tests.support.rule_judge import RuleJudge

SECRET = "s3cr3t-Key_0123456789"
PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
    {"id": "b", "query": "Explain snow.", "candidates": ["poor", "good"]},
]


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(RuleJudge(quality={"good": 8, "poor": 3}).for_server()) as running:
        yield running


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[Collector]:
    with running_collector() as running:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", running.url)
        yield running


def judge(tmp_path: Path, model: str, url: str, *flags: str, out: str = "out.jsonl") -> Result:
    """``faceteval judge`` with ``url``, its command line as the process's arguments (the record's argv)."""
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    args = ["judge", str(pairs), "--method", "direct", "--model", model, "--base-url", url]
    args += ["--out", str(tmp_path / out), "--cache", str(tmp_path / "cache.sqlite"), *flags]
    with patch.object(sys, "argv", ["faceteval", *args]):
        return CliRunner().invoke(cli, args, catch_exceptions=False)


def written(tmp_path: Path) -> bytes:
    """Every byte the runs wrote: outputs, run records, the cache (with its ledger)."""
    return b"".join(path.read_bytes() for path in sorted(tmp_path.rglob("*")) if path.is_file())


def traced(collector: Collector) -> bytes:
    """Every span sent, whole: names, attributes, events (exceptions) and statuses."""
    return b"".join(request.SerializeToString() for request in collector.received)


def assert_kept_out(secret: str, *places: bytes | str) -> None:
    for place in places:
        text = place.decode("utf-8", "replace") if isinstance(place, bytes) else place
        assert secret not in text
        assert secret.replace("_", "%5F") not in text  # nor percent-encoded


def record(tmp_path: Path, out: str = "out") -> dict[str, object]:
    return json.loads((tmp_path / f"{out}.run.json").read_text())


def test_a_user_and_password_in_the_url_are_sent_as_basic_auth_and_kept_out_of_every_record(
    tmp_path: Path, server: LLMServer, collector: Collector
) -> None:
    host = server.base_url.removeprefix("http://")
    url = f"http://judge-user:{SECRET}@{host}"
    result = judge(tmp_path, "openai:judge", url, "--otel")
    assert result.exit_code == 0, result.output
    assert [j["status"] for j in read_jsonl(tmp_path / "out.jsonl")] == ["ok", "ok"]
    expected = "Basic " + base64.b64encode(f"judge-user:{SECRET}".encode()).decode()
    assert [r.headers["authorization"] for r in server.requests] == [expected] * 2
    run = record(tmp_path)
    shown = f"http://***@{host}"
    assert shown in run["argv"]  # type: ignore[operator]
    identity = run["llm"]["identity"]  # type: ignore[index]
    assert identity.startswith(f"openai@{shown} ")
    assert_kept_out(SECRET, written(tmp_path), traced(collector), result.output)
    # The identity is the same for the same URL (the cache answers a second run) and differs for
    # another password (whose server may not be the same: no cached reply answers it).
    again = judge(tmp_path, "openai:judge", url, out="again.jsonl")
    assert again.exit_code == 0 and len(server.requests) == 2
    assert record(tmp_path, "again")["llm"]["identity"] == identity  # type: ignore[index]
    other = judge(tmp_path, "openai:judge", url.replace(SECRET, "another-password"), out="other.jsonl")
    assert other.exit_code == 0 and len(server.requests) == 4
    assert record(tmp_path, "other")["llm"]["identity"] != identity  # type: ignore[index]


@pytest.mark.parametrize("name", ["api-key", "API_KEY", "key", "token", "access_token", "sig", "code"])
def test_a_key_in_the_query_is_sent_with_every_request_and_kept_out_of_every_record(
    tmp_path: Path, server: LLMServer, collector: Collector, name: str
) -> None:
    url = f"{server.base_url}?api-version=2024-06-01&{name}={SECRET}"
    result = judge(tmp_path, "openai:judge", url, "--otel")
    assert result.exit_code == 0, result.output
    assert [(r.path, r.query) for r in server.requests] == [
        ("/v1/chat/completions", f"api-version=2024-06-01&{name}={SECRET}")
    ] * 2
    shown = f"{server.base_url}?api-version=2024-06-01&{name}=***"
    run = record(tmp_path)
    assert shown in run["argv"]  # type: ignore[operator]
    assert run["llm"]["identity"].startswith(f"openai@{shown} ")  # type: ignore[index]
    assert_kept_out(SECRET, written(tmp_path), traced(collector), result.output)


def test_the_anthropic_provider_sends_them_too(
    tmp_path: Path, server: LLMServer, collector: Collector
) -> None:
    host = server.root_url.removeprefix("http://")
    result = judge(tmp_path, "anthropic:judge", f"http://u:{SECRET}@{host}?key={SECRET}", "--otel")
    assert result.exit_code == 0, result.output
    (first, *_) = server.requests
    assert (first.path, first.query) == ("/v1/messages", f"key={SECRET}")
    assert first.headers["authorization"] == "Basic " + base64.b64encode(f"u:{SECRET}".encode()).decode()
    assert record(tmp_path)["llm"]["identity"].startswith(f"anthropic@http://***@{host}?key=*** ")  # type: ignore[index]
    assert_kept_out(SECRET, written(tmp_path), traced(collector), result.output)


def test_failures_name_the_url_without_its_secrets(tmp_path: Path, collector: Collector) -> None:
    # A server answering 503, one that does not speak HTTP (whose parser's error quotes the request's
    # URL), and none at all: every message, record and span names the URL with its secrets hidden.
    with LLMServer(lambda body: Status(503, body=f"no, {SECRET}")) as failing:
        url = f"{failing.base_url}?api-key={SECRET}"
        result = judge(tmp_path, "openai:judge", url, "--otel", "--retries", "0", out="failing.jsonl")
    assert result.exit_code == 1
    errors = [j["error"] for j in read_jsonl(tmp_path / "failing.jsonl")]
    assert errors == [f"ProviderServerError: openai at {failing.base_url}?api-key=*** (model 'judge') "
                      "answered HTTP 503: no, ***"] * 2  # fmt: skip
    with RawServer(lambda index, request: GARBAGE["garbage-then-close"]()) as garbage:
        url = f"http://u:{SECRET}@127.0.0.1:{garbage.base_url.rsplit(':', 1)[1]}?api-key={SECRET}"
        result = judge(tmp_path, "openai:judge", url, "--otel", out="garbage.jsonl")
    assert result.exit_code == 1 and "answered with something that is not HTTP" in result.output
    assert "http://***@127.0.0.1:" in result.output and "api-key=***" in result.output
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        url = f"http://u:{SECRET}@127.0.0.1:{probe.getsockname()[1]}/v1"
    result = judge(tmp_path, "openai:judge", url, "--otel", out="refused.jsonl")
    assert result.exit_code == 1
    assert result.output.startswith("error: cannot connect to http://***@127.0.0.1:")
    assert_kept_out(SECRET, written(tmp_path), traced(collector), result.output)


def test_a_dry_run_and_a_bad_url_show_it_without_its_secrets(tmp_path: Path) -> None:
    result = judge(tmp_path, "openai:judge", f"http://u:{SECRET}@127.0.0.1:9/v1?token={SECRET}", "--dry-run")
    assert result.exit_code == 0, result.output
    assert_kept_out(SECRET, written(tmp_path), result.output)
    result = judge(tmp_path, "openai:judge", f"http://u:{SECRET}@127.0.0.1:99999/v1", out="bad.jsonl")
    assert result.exit_code != 0 and "is not a valid URL" in result.output
    assert_kept_out(SECRET, written(tmp_path), result.output)
