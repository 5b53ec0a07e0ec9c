"""``--otel`` on the command line: spans sent over OTLP/HTTP to a collector, as the OTEL_* variables say."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from faceteval import tracing
from faceteval._cli._app import cli
from tests.support.files import read_jsonl, write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.otlp_collector import Collector, running_collector
from tests.support.rule_judge import RuleJudge


@pytest.fixture
def collector() -> Iterator[Collector]:
    with running_collector() as running:
        yield running


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(RuleJudge(quality={"good": 8, "poor": 3}).for_server()) as running:
        yield running


def judge_command(tmp_path: Path, server: LLMServer, *flags: str) -> Result:
    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
            {"id": "b", "query": "Explain snow.", "candidates": ["poor", "good"]},
        ],
    )
    args = judge_args(pairs, server)
    args += ["--no-cache", "--out", str(tmp_path / "out.jsonl"), *flags]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert not tracing.enabled()  # the command turned it off again
    return result


def test_otel_sends_the_runs_spans_to_the_otlp_endpoint(
    tmp_path: Path, server: LLMServer, collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url)
    judge_command(tmp_path, server, "--otel")
    assert set(collector.paths) == {"/v1/traces"} and collector.services() == {"faceteval"}
    spans = collector.spans()
    (run,) = [s for s in spans if s[0] == "judge direct"]
    instances = [s for s in spans if s[0] == "judge_instance direct"]
    calls = [s for s in spans if s[0] == "chat judge"]
    assert len(spans) == 1 + len(instances) + len(calls) and len(calls) == len(server.requests) == 2
    assert [parent for *_, parent in instances] == [run[2]] * 2
    assert {c[3] for c in calls} == {i[2] for i in instances}
    assert sorted(i[1]["faceteval.instance_id"] for i in instances) == ["a", "b"]
    for _, attributes, *_ in calls:
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.request.model"] == "judge"
        assert attributes["faceteval.stage"] == "direct"
        assert attributes["gen_ai.response.finish_reasons"] == ["stop"]
        assert attributes["faceteval.cache_hit"] is False


def test_the_variable_turns_it_on_and_the_sdk_switch_off(
    tmp_path: Path, server: LLMServer, collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"{collector.url}/custom/traces")
    monkeypatch.setenv("FACETEVAL_OTEL", "1")
    judge_command(tmp_path, server)
    assert set(collector.paths) == {"/custom/traces"} and len(collector.spans()) == 1 + 2 + 2
    collector.received.clear()
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    judge_command(tmp_path, server, "--otel", "--force")
    assert collector.received == []


def test_a_run_without_the_flag_sends_nothing(
    tmp_path: Path, server: LLMServer, collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url)
    judge_command(tmp_path, server)
    assert collector.received == []


def test_the_console_exporter_writes_spans_to_stderr(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    result = judge_command(tmp_path, server, "--otel")
    assert '"name": "chat judge"' in result.stderr
    assert '"name": "chat judge"' not in result.stdout


def test_an_exporter_there_is_not_is_a_one_line_error(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [{"id": "a", "query": "Q", "candidates": ["good", "poor"]}])
    args = judge_args(pairs, server)
    result = CliRunner().invoke(cli, [*args, "--no-cache", "--otel"])
    assert result.exit_code != 0
    assert "OTEL_TRACES_EXPORTER names zipkin" in result.output
    assert "Traceback" not in result.output


def test_an_endpoint_that_is_not_there_costs_the_run_nothing_but_a_warning(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with running_collector() as gone:
        url = gone.url
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    judge_command(tmp_path, server, "--otel")
    assert read_jsonl(tmp_path / "out.jsonl")[0]["status"] == "ok"
    assert any("Failed to export spans" in r.getMessage() for r in caplog.records), caplog.text


def judge_args(pairs: Path, server: LLMServer) -> list[str]:
    """``faceteval judge`` of ``pairs`` with the direct method, against the test server."""
    return [
        "judge",
        str(pairs),
        "--method",
        "direct",
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
    ]
