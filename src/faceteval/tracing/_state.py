"""Whether spans are made, with which tracer, and the labels (stage, facet, instance) of the work."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from faceteval._version import __version__
from faceteval.errors import MissingDependencyError

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

INSTRUMENTATION = "faceteval"
"""The instrumentation scope the spans are made under."""

Label = str | int | float | bool


@dataclass(frozen=True, slots=True)
class _Tracing:
    tracer: Tracer
    capture_content: bool


_on: _Tracing | None = None
_NONE: Mapping[str, Label] = MappingProxyType({})
_labels: ContextVar[Mapping[str, Label]] = ContextVar("faceteval_tracing_labels", default=_NONE)


def enable(tracer_provider: TracerProvider | None = None, *, capture_content: bool = False) -> None:
    """Make spans from now on, with ``tracer_provider`` or else the global one.

    Args:
        tracer_provider: Where the spans go; None uses OpenTelemetry's global TracerProvider
            (whatever the application set, or sets later).
        capture_content: Also put the messages sent and the replies in the LLM call spans
            (``gen_ai.input.messages``, ``gen_ai.output.messages``); off by default, as the GenAI
            conventions ask, since they may hold private data.

    Raises:
        MissingDependencyError: OpenTelemetry is not installed.
    """
    global _on
    try:
        from opentelemetry import trace
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("opentelemetry"):
            raise
        raise MissingDependencyError("tracing with OpenTelemetry", extra="otel") from exc
    _on = _Tracing(trace.get_tracer(INSTRUMENTATION, __version__, tracer_provider), capture_content)


def disable() -> None:
    """Make no more spans (spans under way end as usual)."""
    global _on
    _on = None


@contextmanager
def paused() -> Iterator[None]:
    """Make no spans within the block (a batch run's collecting passes, whose waiting calls would all be
    cancelled spans); tracing is as it was after it.

    Examples:
        >>> with paused():
        ...     enabled()
        False
    """
    global _on
    was, _on = _on, None
    try:
        yield
    finally:
        _on = was


def enabled() -> bool:
    """Whether spans are made."""
    return _on is not None


def tracer() -> Tracer | None:
    """The tracer to make spans with, None while tracing is off."""
    return None if _on is None else _on.tracer


def capture_content() -> bool:
    """Whether LLM call spans carry the messages and replies."""
    return _on is not None and _on.capture_content


@contextmanager
def labelled(**more: Label | None) -> Iterator[None]:
    """Within the block, the spans of this task and the tasks it starts carry ``more`` (None: left out).

    Labels are ``faceteval.<name>`` attributes of the LLM call spans (``stage``, ``facet``,
    ``instance_id``). While tracing is off, nothing is set.
    """
    if _on is None:
        yield
        return
    token = _labels.set({**_labels.get(), **{k: v for k, v in more.items() if v is not None}})
    try:
        yield
    finally:
        _labels.reset(token)


def labels() -> Mapping[str, Label]:
    """The labels of the work under way (see `labelled`)."""
    return _labels.get()
