"""The tracing switch: off by default, labels set only while on, a clear error without the extra."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import anyio
import pytest

from faceteval import tracing
from faceteval.errors import MissingDependencyError
from faceteval.llm import LLM, Exchange, ModelSpec, ScriptedProvider, user
from faceteval.tracing.internal import labelled, tracer


@pytest.fixture(autouse=True)
def _off_afterwards() -> Iterator[None]:
    yield
    tracing.disable()


def test_tracing_is_off_until_enabled_and_labels_are_then_ignored() -> None:
    assert not tracing.enabled() and tracer() is None and not tracing.capture_content()
    with labelled(stage="dna.score"):
        assert dict(tracing.labels()) == {}


def test_labels_nest_and_are_undone_at_the_end_of_their_block() -> None:
    from opentelemetry.sdk.trace import TracerProvider

    tracing.enable(TracerProvider(), capture_content=True)
    assert tracing.enabled() and tracer() is not None and tracing.capture_content()
    with labelled(instance_id="p1"):
        with labelled(stage="dna.score", facet=None):
            assert dict(tracing.labels()) == {"instance_id": "p1", "stage": "dna.score"}
        assert dict(tracing.labels()) == {"instance_id": "p1"}
    assert dict(tracing.labels()) == {}


def test_a_planned_call_is_a_span_marked_as_planned() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider)
    llm = LLM(ScriptedProvider.sequence([]), ModelSpec("scripted", "demo"), dry_run=True)

    async def plan() -> Exchange:
        return await llm.generate([user("hello")], example=lambda: "8 3")

    assert anyio.run(plan).planned
    (span,) = exporter.get_finished_spans()
    assert span.name == "chat demo" and span.attributes["faceteval.planned"] is True
    assert span.attributes["gen_ai.provider.name"] == "scripted"
    # no call was made: its estimated tokens are no usage for a viewer to count
    assert span.attributes["faceteval.estimated_input_tokens"] > 0
    assert not [key for key in span.attributes if key.startswith("gen_ai.usage.")]
    assert "server.address" not in span.attributes  # a scripted provider has no server


def test_without_opentelemetry_enabling_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # importing it now fails as if absent
    with pytest.raises(MissingDependencyError, match=r"pip install 'faceteval\[otel\]'"):
        tracing.enable()
    assert not tracing.enabled()
