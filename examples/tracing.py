"""faceteval's OpenTelemetry spans inside your own traced pipeline (needs ``pip install 'faceteval[otel]'``).

    OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 \\
        python examples/tracing.py http://127.0.0.1:8000/v1 openai:Qwen/Qwen2.5-7B-Instruct

The application sets up the OpenTelemetry SDK as it would anyway (here: OTLP over HTTP to the
endpoint of OTEL_EXPORTER_OTLP_ENDPOINT, or each span printed when none is set), then turns
faceteval's spans on. The judge run nests under the application's own span: one trace holds the
pipeline, the run, each instance and each LLM call with its stage, facet, tokens and cache hit.

docs/tracing.md lists every span and attribute.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor

from faceteval import LLM, DnA, judge, read_instances, tracing
from faceteval.errors import FacetevalError

PAIRS = Path(__file__).parent / "data" / "pairs.jsonl"


def set_up_opentelemetry() -> TracerProvider:
    """What an application does once at start: a TracerProvider with an exporter, made the global one."""
    provider = TracerProvider(resource=Resource.create({"service.name": "nightly-eval"}))
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    trace.set_tracer_provider(provider)
    return provider


def main(base_url: str, model: str) -> None:
    provider = set_up_opentelemetry()
    tracing.enable()  # faceteval's spans, to the global TracerProvider
    pipeline = trace.get_tracer("nightly-eval")
    llm = LLM.from_spec(model, base_url=base_url)
    try:
        with pipeline.start_as_current_span("nightly eval") as span:
            judgments = judge(read_instances(PAIRS), DnA(aspects=3), llm)
            span.set_attribute("eval.ok", sum(j.status == "ok" for j in judgments))
    finally:
        provider.shutdown()  # sends the spans still waiting in the batch
    for j in judgments:
        print(f"{j.id}: {j.status}, verdict {j.verdict}, {j.usage.calls} calls")


if __name__ == "__main__":
    try:
        main(*sys.argv[1:3])
    except FacetevalError as error:
        sys.exit(f"error: {error}")
