"""``--otel`` on the command line: spans sent over OTLP/HTTP to a collector, as the OTEL_* variables say."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval import tracing
from faceteval._cli._app import cli
from tests.support.files import read_jsonl, write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.otlp_collector import Collector, running_collector
from tests.support.rule_judge import DEFAULT_ASPECTS, RuleJudge


@pytest.fixture
def collector() -> Iterator[Collector]:
    with running_collector() as running:
        yield running


RULES = RuleJudge(quality={"good": 8, "poor": 3})


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(RULES.for_server()) as running:
        yield running


def judge_command(tmp_path: Path, server: LLMServer, *flags: str, method: str = "direct") -> Result:
    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
            {"id": "b", "query": "Explain snow.", "candidates": ["poor", "good"]},
        ],
    )
    args = judge_args(pairs, server, method)
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


def traced_dna_run(tmp_path: Path, collector: Collector, monkeypatch: pytest.MonkeyPatch) -> tuple[int, Any]:
    """``judge --method dna --otel`` of the two pairs, to ``collector``: the server's port, and the run
    record's ``spend``."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url)
    with LLMServer(RULES.for_server(), prefix_cache=True) as server:  # it reports prompt-cache reads
        judge_command(tmp_path, server, "--otel", method="dna")
        assert len(server.requests) == 2 * (2 + len(DEFAULT_ASPECTS))
    return server.port, json.loads((tmp_path / "out.run.json").read_text())["spend"]


def test_a_viewer_that_adds_up_genai_usage_counts_the_runs_tokens_once(
    tmp_path: Path, collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    port, spend = traced_dna_run(tmp_path, collector, monkeypatch)
    spans = collector.spans()
    calls = [attributes for name, attributes, *_ in spans if name == "chat judge"]
    assert len(calls) == spend["calls"] == 2 * (2 + len(DEFAULT_ASPECTS))
    # A GenAI-aware viewer counts every span with gen_ai usage as an LLM call and adds up its tokens
    used = [attributes for _, attributes, *_ in spans if "gen_ai.usage.input_tokens" in attributes]
    viewed = sum(a["gen_ai.usage.input_tokens"] + a["gen_ai.usage.output_tokens"] for a in used)
    assert viewed == spend["input_tokens"] + spend["output_tokens"] > 0 and len(used) == len(calls)
    read = sum(a.get("gen_ai.usage.cache_read.input_tokens", 0) for a in calls)
    assert read == spend["cached_input_tokens"] > 0
    others = [(name, attributes) for name, attributes, *_ in spans if name != "chat judge"]
    assert len(others) == 1 + 2 and not [k for _, a in others for k in a if k.startswith("gen_ai.")]
    (run,) = [attributes for name, attributes in others if name == "judge dna"]
    totals = (run["faceteval.input_tokens"], run["faceteval.output_tokens"])
    assert totals == (spend["input_tokens"], spend["output_tokens"])
    assert run["faceteval.model"] == "openai:judge"
    assert {(a["server.address"], a["server.port"]) for a in calls} == {("127.0.0.1", port)}
    ids = [a["gen_ai.response.id"] for a in calls]
    assert len(set(ids)) == len(ids) and all(i.startswith("chatcmpl-") for i in ids)


def test_each_verdict_reaches_the_collector_as_evaluation_events_with_its_scores(
    tmp_path: Path, collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    traced_dna_run(tmp_path, collector, monkeypatch)
    judgments = {j["id"]: j for j in read_jsonl(tmp_path / "out.jsonl")}
    assert {i: j["verdict"] for i, j in judgments.items()} == {"a": 1, "b": 2}
    instances = {
        span_id: a["faceteval.instance_id"]
        for name, a, span_id, _ in collector.spans()
        if name.startswith("judge_i")
    }
    events = [(span_id, a) for span_id, name, a in collector.events() if name == "gen_ai.evaluation.result"]
    assert {span_id for span_id, _ in events} == set(instances)
    for span_id, instance_id in instances.items():
        judgment = judgments[instance_id]
        own = [a for on, a in events if on == span_id]
        overall = [a for a in own if a["gen_ai.evaluation.name"] == "dna"]
        scored = [(a["faceteval.candidate"], a["gen_ai.evaluation.score.value"]) for a in overall]
        assert scored == list(enumerate(judgment["scores"], 1))
        labels = [a["gen_ai.evaluation.score.label"] for a in overall]
        assert labels == {"a": ["win", "loss"], "b": ["loss", "win"]}[instance_id]
        facets = [
            (a["gen_ai.evaluation.name"], a["faceteval.candidate"], a["gen_ai.evaluation.score.value"])
            for a in own
            if "faceteval.facet" in a
        ]
        assert sorted(facets) == sorted(
            (f["name"], candidate, score)
            for f in judgment["facets"]
            for candidate, score in enumerate(f["scores"], 1)
        )
        assert len(own) == len(overall) + len(facets) == 2 * (1 + len(DEFAULT_ASPECTS))
        assert not [a for a in own if "gen_ai.evaluation.explanation" in a]  # the judge's words: opt-in


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


def judge_args(pairs: Path, server: LLMServer, method: str = "direct") -> list[str]:
    """``faceteval judge`` of ``pairs`` with ``method``, against the test server."""
    return [
        "judge",
        str(pairs),
        "--method",
        method,
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
    ]
