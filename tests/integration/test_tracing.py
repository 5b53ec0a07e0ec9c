"""OpenTelemetry spans of judge runs: a real judge against the local server, exported to the SDK's memory.

One span per run, one per instance under it, one per LLM call under its instance, with the GenAI
semantic conventions' attributes and faceteval's own (stage, facet, cache hits, attempts).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from faceteval import Direct, DnA, Instance, JudgeOptions, judge, tracing
from faceteval.llm import LLM, RetryPolicy
from faceteval.store import SQLiteCache
from tests.support import example_judge
from tests.support.llm_server import LLMServer, Reply, Status
from tests.support.markdown import ROOT
from tests.support.otlp_collector import running_collector
from tests.support.processes import SRC
from tests.support.rule_judge import DEFAULT_ASPECTS, RuleJudge

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

EXAMPLES = ROOT / "examples"
FAST = RetryPolicy(max_retries=3, initial_delay=0.01, max_delay=0.02)


@pytest.fixture
def exported() -> Iterator[InMemorySpanExporter]:
    """Tracing on, into an SDK TracerProvider that keeps the finished spans in memory."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider)
    try:
        yield exporter
    finally:
        tracing.disable()
        provider.shutdown()


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(RuleJudge(quality={"good": 8, "bad": 3}).for_server()) as running:
        yield running


def llm_for(server: LLMServer, **options: object) -> LLM:
    return LLM.from_spec("openai:judge", base_url=server.base_url, env={}, **options)  # type: ignore[arg-type]


def pairs(n: int) -> list[Instance]:
    return [Instance(id=f"p{i}", query=f"Question {i}?", candidates=("good", "bad")) for i in range(n)]


def named(spans: Sequence[ReadableSpan], prefix: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name.startswith(prefix)]


def parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def test_a_run_is_a_span_over_its_instances_over_their_llm_calls(
    exported: InMemorySpanExporter, server: LLMServer
) -> None:
    judgments = judge(pairs(2), DnA(), llm_for(server))
    spans = exported.get_finished_spans()
    (run,) = named(spans, "judge dna")
    instances = named(spans, "judge_instance dna")
    calls = named(spans, "chat ")
    assert len(spans) == 1 + len(instances) + len(calls)
    assert parent_of(run) is None
    assert {s.context.trace_id for s in spans} == {run.context.trace_id}  # one trace
    assert [parent_of(s) for s in instances] == [run.context.span_id] * 2
    by_id = {s.attributes["faceteval.instance_id"]: s for s in instances}
    assert sorted(by_id) == ["p0", "p1"]
    for judgment in judgments:
        span = by_id[judgment.id]
        assert span.attributes["faceteval.status"] == "ok"
        assert span.attributes["faceteval.verdict"] == judgment.verdict == 1
        assert span.attributes["faceteval.method"] == "dna"
        assert span.attributes["faceteval.calls"] == judgment.usage.calls
        assert list(span.attributes["faceteval.scores"]) == judgment.scores
        own = [c for c in calls if parent_of(c) == span.context.span_id]
        # aspects, weights, and one score per aspect: each call under its own instance, named by it
        assert len(own) == judgment.usage.calls == 2 + len(DEFAULT_ASPECTS)
        assert {c.attributes["faceteval.instance_id"] for c in own} == {judgment.id}
    assert len(calls) == len(server.requests)
    assert run.attributes["faceteval.judgments"] == 2
    assert run.attributes["faceteval.calls"] == len(calls)
    assert run.attributes["faceteval.status.ok"] == 2
    assert run.attributes["faceteval.model"] == "openai:judge"


def test_only_the_llm_calls_carry_genai_usage_and_the_totals_above_them_are_facetevals(
    exported: InMemorySpanExporter, server: LLMServer
) -> None:
    judgments = judge(pairs(2), DnA(), llm_for(server))
    spans = exported.get_finished_spans()
    (run,) = named(spans, "judge dna")
    calls = named(spans, "chat ")
    for span in [run, *named(spans, "judge_instance")]:  # a GenAI-aware viewer would count them as calls
        assert not [key for key in span.attributes or {} if key.startswith("gen_ai.")]
    used = [
        (c.attributes["gen_ai.usage.input_tokens"], c.attributes["gen_ai.usage.output_tokens"]) for c in calls
    ]
    assert (run.attributes["faceteval.input_tokens"], run.attributes["faceteval.output_tokens"]) == (
        sum(i for i, _ in used),
        sum(o for _, o in used),
    )
    by_id = {s.attributes["faceteval.instance_id"]: s for s in named(spans, "judge_instance")}
    for judgment in judgments:
        span = by_id[judgment.id]
        assert span.attributes["faceteval.input_tokens"] == judgment.usage.input_tokens > 0
        assert span.attributes["faceteval.output_tokens"] == judgment.usage.output_tokens > 0


def test_an_llm_call_span_follows_the_genai_conventions(
    exported: InMemorySpanExporter, server: LLMServer
) -> None:
    from opentelemetry.trace import SpanKind

    judge(pairs(1), DnA(), llm_for(server))
    calls = named(exported.get_finished_spans(), "chat ")
    for call in calls:
        attributes = call.attributes
        assert call.name == "chat judge"
        assert call.kind is SpanKind.CLIENT
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.request.model"] == "judge"
        assert attributes["gen_ai.provider.name"] == attributes["gen_ai.system"] == "openai"
        assert attributes["gen_ai.request.temperature"] == 0.0
        assert attributes["gen_ai.response.model"] == "judge"
        assert list(attributes["gen_ai.response.finish_reasons"]) == ["stop"]
        assert attributes["gen_ai.usage.input_tokens"] > 0
        assert attributes["gen_ai.usage.output_tokens"] > 0
        assert attributes["faceteval.cache_hit"] is False
        assert (attributes["faceteval.attempts"], attributes["faceteval.retries"]) == (1, 0)
        assert (attributes["server.address"], attributes["server.port"]) == ("127.0.0.1", server.port)
        assert str(attributes["gen_ai.response.id"]).startswith("chatcmpl-")
        assert "gen_ai.usage.cache_read.input_tokens" not in attributes  # the server reported none
        assert "gen_ai.input.messages" not in attributes  # message contents are opt-in
    assert len({c.attributes["gen_ai.response.id"] for c in calls}) == len(calls)
    stages = sorted(str(c.attributes["faceteval.stage"]) for c in calls)
    assert stages == ["dna.aspects", *["dna.score"] * len(DEFAULT_ASPECTS), "dna.weights"]
    facets = {
        c.attributes.get("faceteval.facet") for c in calls if c.attributes["faceteval.stage"] == "dna.score"
    }
    assert facets == set(DEFAULT_ASPECTS)
    assert all(
        "faceteval.facet" not in c.attributes for c in calls if c.attributes["faceteval.stage"] != "dna.score"
    )


def test_an_anthropic_call_names_its_server_and_the_messages_id(
    exported: InMemorySpanExporter, server: LLMServer
) -> None:
    server.enqueue(Reply("8 3\nResponse 1 is better.", input_tokens=50, cached_tokens=30))
    llm = LLM.from_spec("anthropic:judge", base_url=server.root_url, env={})
    (judgment,) = judge(pairs(1), Direct(), llm)
    assert judgment.status == "ok"
    (call,) = named(exported.get_finished_spans(), "chat ")
    attributes = call.attributes
    assert attributes["gen_ai.provider.name"] == "anthropic"
    assert (attributes["server.address"], attributes["server.port"]) == ("127.0.0.1", server.port)
    assert str(attributes["gen_ai.response.id"]).startswith("msg_")
    # Anthropic counts cache reads apart from its input tokens; the conventions count them in
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 30
    assert attributes["gen_ai.usage.input_tokens"] == 50


def test_each_candidates_result_is_an_evaluation_event_on_its_instance(
    exported: InMemorySpanExporter, server: LLMServer
) -> None:
    (judgment,) = judge(pairs(1), DnA(), llm_for(server))
    (instance,) = named(exported.get_finished_spans(), "judge_instance")
    events = [e.attributes for e in instance.events if e.name == "gen_ai.evaluation.result"]
    assert len(events) == len(instance.events) == 2 * (1 + len(DEFAULT_ASPECTS))
    overall = [e for e in events if e["gen_ai.evaluation.name"] == "dna"]
    assert [e["gen_ai.evaluation.score.value"] for e in overall] == judgment.scores
    assert [e["gen_ai.evaluation.score.label"] for e in overall] == ["win", "loss"]
    facets = [e for e in events if "faceteval.facet" in e]
    assert {e["gen_ai.evaluation.name"] for e in facets} == set(DEFAULT_ASPECTS)
    weights = {f.name: f.weight for f in judgment.facets}
    for event in facets:
        facet = next(f for f in judgment.facets if f.name == event["faceteval.facet"])
        assert event["gen_ai.evaluation.score.value"] == facet.scores[event["faceteval.candidate"] - 1]
        assert event["faceteval.weight"] == weights[facet.name]
    assert not [e for e in events if "gen_ai.evaluation.explanation" in e]  # the judge's words: opt-in


def test_cache_hits_are_marked_and_use_no_tokens(
    exported: InMemorySpanExporter, server: LLMServer, tmp_path: Path
) -> None:
    with SQLiteCache(tmp_path / "cache.sqlite") as cache:
        llm = llm_for(server, cache=cache)
        judge(pairs(1), DnA(), llm)
        first = len(exported.get_finished_spans())
        exported.clear()
        judge(pairs(1), DnA(), llm)
    spans = exported.get_finished_spans()
    calls = named(spans, "chat ")
    assert len(spans) == first and len(calls) == 2 + len(DEFAULT_ASPECTS)
    assert all(c.attributes["faceteval.cache_hit"] is True for c in calls)
    assert all(c.attributes["faceteval.attempts"] == 0 for c in calls)
    assert not any("gen_ai.usage.input_tokens" in c.attributes for c in calls)
    assert not any("gen_ai.response.id" in c.attributes for c in calls)  # no reply came for them
    (instance,) = named(spans, "judge_instance")
    assert instance.attributes["faceteval.cached_calls"] == len(calls)


def test_retries_are_counted_on_the_call_and_each_one_is_an_event(
    exported: InMemorySpanExporter, server: LLMServer
) -> None:
    server.enqueue(Status(500), Status(429), Reply("8 3\nResponse 1 is better."))
    (judgment,) = judge(pairs(1), Direct(), llm_for(server, retry=FAST))
    assert judgment.status == "ok"
    (call,) = named(exported.get_finished_spans(), "chat ")
    assert (call.attributes["faceteval.attempts"], call.attributes["faceteval.retries"]) == (3, 2)
    assert call.attributes["faceteval.stage"] == "direct"
    retries = [e for e in call.events if e.name == "faceteval.retry"]
    assert [e.attributes["faceteval.attempt"] for e in retries] == [1, 2]
    assert [e.attributes["error.type"] for e in retries] == ["ProviderServerError", "RateLimitError"]


def test_a_call_that_fails_for_good_is_an_error_span_and_so_is_its_instance(
    exported: InMemorySpanExporter, server: LLMServer
) -> None:
    from opentelemetry.trace import StatusCode

    server.enqueue(*[Status(503)] * 2)
    (judgment,) = judge(
        pairs(1), Direct(), llm_for(server, retry=RetryPolicy(max_retries=1, initial_delay=0.01))
    )
    assert judgment.status == "error"
    spans = exported.get_finished_spans()
    (call,) = named(spans, "chat ")
    assert call.status.status_code is StatusCode.ERROR
    assert call.attributes["error.type"] == "ProviderServerError"
    assert (call.attributes["faceteval.attempts"], call.attributes["faceteval.retries"]) == (2, 1)
    (instance,) = named(spans, "judge_instance")
    assert instance.status.status_code is StatusCode.ERROR
    assert instance.attributes["faceteval.status"] == "error"
    assert parent_of(call) == instance.context.span_id
    (event,) = instance.events
    assert event.name == "gen_ai.evaluation.result"
    assert dict(event.attributes or {}) == {"gen_ai.evaluation.name": "direct", "error.type": "error"}


def test_swapped_orders_share_their_instance_span(exported: InMemorySpanExporter, server: LLMServer) -> None:
    (judgment,) = judge(pairs(1), Direct(), llm_for(server), options=JudgeOptions(swap=True))
    spans = exported.get_finished_spans()
    (instance,) = named(spans, "judge_instance")
    calls = named(spans, "chat ")
    assert len(calls) == 2 and {parent_of(c) for c in calls} == {instance.context.span_id}
    assert instance.attributes["faceteval.consistent"] is judgment.consistent is True


def test_message_contents_are_in_the_spans_only_when_asked(server: LLMServer) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider, capture_content=True)
    try:
        judge(pairs(1), Direct(), llm_for(server))
    finally:
        tracing.disable()
        provider.shutdown()
    spans = exporter.get_finished_spans()
    (call,) = named(spans, "chat ")
    assert "Question 0?" in str(call.attributes["gen_ai.input.messages"])
    assert '"role": "assistant"' in str(call.attributes["gen_ai.output.messages"])
    (instance,) = named(spans, "judge_instance")
    explained = {e.attributes["gen_ai.evaluation.explanation"] for e in instance.events}
    assert explained == {"Scored by rule on overall quality."}


def test_nothing_is_exported_once_tracing_is_off(exported: InMemorySpanExporter, server: LLMServer) -> None:
    tracing.disable()
    judge(pairs(1), DnA(), llm_for(server))
    assert exported.get_finished_spans() == ()
    assert len(server.requests) == 2 + len(DEFAULT_ASPECTS)


def test_a_run_without_tracing_imports_no_opentelemetry(server: LLMServer, tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        import faceteval, faceteval._cli._app
        from faceteval import DnA, Instance, judge
        from faceteval.llm import LLM
        llm = LLM.from_spec("openai:judge", base_url={server.base_url!r}, env={{}})
        pair = Instance(id="1", query="Why?", candidates=["good", "bad"])
        assert judge([pair], DnA(), llm)[0].verdict == 1
        print(sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_example_nests_the_run_under_the_applications_span(tmp_path: Path) -> None:
    with LLMServer(example_judge.respond) as server, running_collector() as collector:
        done = subprocess.run(
            [sys.executable, str(EXAMPLES / "tracing.py"), server.base_url, "openai:judge"],
            env={**os.environ, "PYTHONPATH": str(SRC), "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.count(": ok, verdict") == 8
        (pipeline,) = collector.spans("nightly-eval")
        spans = collector.spans()
    assert collector.services() == {"nightly-eval"}
    assert pipeline[0] == "nightly eval" and pipeline[1]["eval.ok"] == 8 and pipeline[3] == b""
    (run,) = [s for s in spans if s[0] == "judge dna"]
    assert run[3] == pipeline[2]  # the run is a child of the application's span
    instances = [s for s in spans if s[0] == "judge_instance dna"]
    calls = [s for s in spans if s[0].startswith("chat ")]
    assert len(instances) == 8 and {i[3] for i in instances} == {run[2]}
    assert len(calls) == len(server.requests) and {c[3] for c in calls} <= {i[2] for i in instances}
