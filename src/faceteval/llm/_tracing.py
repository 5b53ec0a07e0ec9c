"""The span of one LLM call, after OpenTelemetry's GenAI semantic conventions (made only while tracing is on).

These spans alone carry the ``gen_ai.*`` operation and usage attributes: GenAI-aware backends count each
span that has them as an LLM call and add up its tokens, so the spans above them (a run, an instance)
use faceteval's own names. OpenTelemetry is imported here only inside functions, which run only while
tracing is on.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from faceteval import tracing
from faceteval.errors import ProviderError
from faceteval.tracing.internal import record_error

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

    from faceteval.llm._registry import ModelSpec
    from faceteval.llm._spend import Exchange
    from faceteval.llm._types import Completion, CompletionRequest, Message

OPERATION = "chat"
"""``gen_ai.operation.name``: every faceteval call is a chat completion."""
DEFAULT_PORTS = {"http": 80, "https": 443}


@contextmanager
def call_span(
    tracer: Tracer, spec: ModelSpec, request: CompletionRequest, base_url: str | None = None
) -> Iterator[Span]:
    """A CLIENT span ``chat {model}`` around one call; an error that ends it is recorded on it.

    ``base_url`` is the server's API root (without credentials), None for a model run in process.
    """
    from opentelemetry.trace import SpanKind

    with tracer.start_as_current_span(
        f"{OPERATION} {spec.model}",
        kind=SpanKind.CLIENT,
        attributes=_request_attributes(spec, request) | server_attributes(base_url),
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield span
        except BaseException as exc:
            if isinstance(exc, ProviderError):
                span.set_attribute("faceteval.attempts", exc.attempts)
                span.set_attribute("faceteval.retries", max(exc.attempts - 1, 0))
            span.set_attribute("error.type", type(exc).__qualname__)
            record_error(span, exc)  # its URLs' credentials hidden
            raise


def record(span: Span, exchange: Exchange) -> None:
    """Put what came back, and how, on the call's span."""
    completion = exchange.completion
    attributes: dict[str, Any] = {
        "faceteval.cache_hit": exchange.cached,
        "faceteval.attempts": exchange.attempts,
        "faceteval.retries": max(exchange.attempts - 1, 0),
    }
    if completion.model:
        attributes["gen_ai.response.model"] = completion.model
    if completion.finish_reason:
        attributes["gen_ai.response.finish_reasons"] = [completion.finish_reason]
    if exchange.planned:  # a dry run's stand-in: no call was made, so its estimated tokens are no usage
        attributes["faceteval.planned"] = True
        attributes["faceteval.estimated_input_tokens"] = completion.input_tokens
        attributes["faceteval.estimated_output_tokens"] = completion.output_tokens
    elif not exchange.cached:  # a cache hit used no tokens
        attributes |= _answered(completion)
    if not exchange.cached and exchange.cost_usd is not None:  # and cost nothing
        attributes["faceteval.cost_usd"] = exchange.cost_usd
    if tracing.capture_content():
        attributes["gen_ai.input.messages"] = _messages(exchange.messages)
        attributes["gen_ai.output.messages"] = json.dumps(
            [_message("assistant", completion.text, completion.finish_reason)], ensure_ascii=False
        )
    span.set_attributes(attributes)


def _answered(completion: Completion) -> dict[str, Any]:
    """The tokens a call used, and its reply's id when the provider gave one."""
    usage: dict[str, Any] = {
        "gen_ai.usage.input_tokens": completion.input_tokens,
        "gen_ai.usage.output_tokens": completion.output_tokens,
    }
    if completion.cached_input_tokens:  # of the input tokens, those read from the provider's cache
        usage["gen_ai.usage.cache_read.input_tokens"] = completion.cached_input_tokens
    if completion.response_id:
        usage["gen_ai.response.id"] = completion.response_id
    return usage


def retrying(attempt: int, error: ProviderError, delay: float) -> None:
    """Note on the current call's span that ``attempt`` failed with ``error`` and is retried."""
    from opentelemetry import trace

    trace.get_current_span().add_event(
        "faceteval.retry",
        {"faceteval.attempt": attempt, "error.type": type(error).__qualname__, "faceteval.delay_s": delay},
    )


def server_attributes(base_url: str | None) -> dict[str, Any]:
    """``server.address`` and ``server.port`` of an API root (the scheme's port when it names none).

    Examples:
        >>> server_attributes("http://127.0.0.1:8000/v1")
        {'server.address': '127.0.0.1', 'server.port': 8000}
        >>> server_attributes("https://api.openai.com/v1")
        {'server.address': 'api.openai.com', 'server.port': 443}
        >>> server_attributes(None)
        {}
    """
    if base_url is None:
        return {}
    parts = urllib.parse.urlsplit(base_url)
    if not parts.hostname:
        return {}
    port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    return {"server.address": parts.hostname} | ({"server.port": port} if port is not None else {})


def _request_attributes(spec: ModelSpec, request: CompletionRequest) -> dict[str, Any]:
    config = request.config
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": OPERATION,
        "gen_ai.provider.name": spec.provider,
        "gen_ai.system": spec.provider,  # the name before gen_ai.provider.name, for older backends
        "gen_ai.request.model": spec.model,
        "gen_ai.request.temperature": config.temperature,
        "gen_ai.request.max_tokens": config.max_tokens,
    }
    if config.seed is not None:
        attributes["gen_ai.request.seed"] = config.seed
    if config.top_p is not None:
        attributes["gen_ai.request.top_p"] = config.top_p
    if config.json_mode or config.response_schema is not None:
        attributes["gen_ai.output.type"] = "json"
    attributes.update({f"faceteval.{name}": value for name, value in tracing.labels().items()})
    return attributes


def _messages(messages: tuple[Message, ...]) -> str:
    return json.dumps([_message(m.role, m.content) for m in messages], ensure_ascii=False)


def _message(role: str, content: str, finish_reason: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "parts": [{"type": "text", "content": content}]}
    if finish_reason is not None:
        message["finish_reason"] = finish_reason
    return message
