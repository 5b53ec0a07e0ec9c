"""A stand-in OpenTelemetry collector: an OTLP/HTTP trace endpoint on 127.0.0.1 that keeps what it is sent.

It reads the real OTLP protobuf messages, so a test sees what any collector would.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

Span = tuple[str, dict[str, Any], bytes, bytes]
"""A span received: its name, attributes, id and parent's id (empty for a root)."""
Event = tuple[bytes, str, dict[str, Any]]
"""An event of a span received: the span's id, the event's name and attributes."""


class Collector(ThreadingHTTPServer):
    """An OTLP/HTTP trace endpoint on 127.0.0.1 that keeps what it is sent."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Receive)
        self.received: list[ExportTraceServiceRequest] = []
        self.paths: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def spans(self, scope: str = "faceteval") -> list[Span]:
        """Every span sent by the instrumentation ``scope``."""
        return [
            (span.name, _attributes(span.attributes), span.span_id, span.parent_span_id)
            for span in self._received_spans(scope)
        ]

    def events(self, scope: str = "faceteval") -> list[Event]:
        """The events of every span sent by the instrumentation ``scope``, in each span's order."""
        return [
            (span.span_id, event.name, _attributes(event.attributes))
            for span in self._received_spans(scope)
            for event in span.events
        ]

    def _received_spans(self, scope: str) -> Iterator[Any]:
        for request in self.received:
            for resource_spans in request.resource_spans:
                for scope_spans in resource_spans.scope_spans:
                    if scope_spans.scope.name == scope:
                        yield from scope_spans.spans

    def services(self) -> set[str]:
        """The ``service.name`` of every resource that sent spans."""
        return {
            a.value.string_value
            for request in self.received
            for resource_spans in request.resource_spans
            for a in resource_spans.resource.attributes
            if a.key == "service.name"
        }


class _Receive(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
            ExportTraceServiceResponse,
        )

        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.received.append(request)
        self.server.paths.append(self.path)
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _attributes(attributes: Any) -> dict[str, Any]:
    return {a.key: _value(a.value) for a in attributes}


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    return getattr(value, kind)


@contextmanager
def running_collector() -> Iterator[Collector]:
    """A started `Collector`, stopped at the end of the block."""
    running = Collector()
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    try:
        yield running
    finally:
        running.shutdown()
        running.server_close()
        thread.join(timeout=10)
