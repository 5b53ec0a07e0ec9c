"""``--otel``: spans of the command's LLM work sent to an OpenTelemetry collector (``faceteval[otel]``).

The exporters are configured as every OpenTelemetry SDK is: ``OTEL_TRACES_EXPORTER`` (``otlp``, the
default, ``console``, ``none``, or several comma-separated), ``OTEL_EXPORTER_OTLP_ENDPOINT`` /
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` and ``..._HEADERS`` (OTLP over HTTP), ``OTEL_SERVICE_NAME``
(default ``faceteval``), ``OTEL_RESOURCE_ATTRIBUTES``; ``OTEL_SDK_DISABLED=true`` turns it all off.
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` adds the messages to the spans.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from faceteval import tracing
from faceteval.errors import ConfigError, MissingDependencyError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

SERVICE_NAME = "faceteval"
EXPORTERS = ("otlp", "console", "none")
_CAPTURE = frozenset({"true", "1", "span_only", "span_and_event"})


@contextmanager
def otel_tracing(on: bool, env: Mapping[str, str]) -> Iterator[None]:
    """Within the block, with ``on``, spans are made and exported as ``env`` configures; flushed at its end.

    Nothing of OpenTelemetry is imported when ``on`` is false or ``OTEL_SDK_DISABLED`` is true.

    Raises:
        MissingDependencyError: The OpenTelemetry SDK or its OTLP exporter is not installed.
        ConfigError: ``OTEL_TRACES_EXPORTER`` names an exporter there is not.
    """
    if not on or env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        yield
        return
    provider = _provider(env)
    capture = env.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "").strip().lower() in _CAPTURE
    tracing.enable(provider, capture_content=capture)
    try:
        yield
    finally:
        tracing.disable()
        provider.shutdown()  # exports what is left


def _provider(env: Mapping[str, str]) -> TracerProvider:
    try:
        from opentelemetry.sdk.resources import SERVICE_NAME as SERVICE
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ModuleNotFoundError as exc:
        raise MissingDependencyError("--otel", extra="otel") from exc
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE: SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    for exporter in _exporters(env):
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _exporters(env: Mapping[str, str]) -> list[SpanExporter]:
    names = [n.strip().lower() for n in env.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if n.strip()]
    if unknown := [n for n in names if n not in EXPORTERS]:
        raise ConfigError(
            f"OTEL_TRACES_EXPORTER names {', '.join(unknown)}: faceteval --otel exports with "
            f"{', '.join(EXPORTERS)}"
        )
    exporters: list[SpanExporter] = []
    if "otlp" in names:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ModuleNotFoundError as exc:
            raise MissingDependencyError("--otel (its OTLP exporter)", extra="otel") from exc
        exporters.append(OTLPSpanExporter())  # configured by OTEL_EXPORTER_OTLP_* itself
    if "console" in names:
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        exporters.append(ConsoleSpanExporter(out=sys.stderr))  # stdout may carry the judgments
    return exporters
