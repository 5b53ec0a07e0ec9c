"""Anthropic's Messages API, on the official ``anthropic`` SDK (2.x, on ``httpx2``) with its retries off.

One call is one attempt. System messages are joined into the ``system`` parameter; user and assistant
messages are sent as they are, with ``max_tokens``. Nothing else from `GenerateConfig` is sent:

- ``temperature`` and ``top_p``: API version 2026-10-21, which SDK 2.x sends, removed the sampling
  parameters and answers 400 to any of them, even at their defaults (recent models reject them on older
  API versions too). They stay in the cache key, so replies asked for at different temperatures are still
  kept apart.
- ``seed`` and ``json_mode``: the API has neither (prompts that want JSON ask for it).
- ``response_schema`` (structured output) is sent as tool use: one tool whose ``input_schema`` is the
  schema, and ``tool_choice`` forcing it; the reply's text is that ``tool_use`` block's input, as JSON.
  The tool is not marked ``strict``: Anthropic's strict tools take no numeric bounds (the SDK moves
  them into descriptions), and the reply is validated against the whole schema by the caller anyway.
- ``logprobs``: the API has none, and a method that needs them cannot work, so asking is a `ConfigError`.

Failures are mapped like the OpenAI adapter's: 429 → `RateLimitError`, 408 → `ProviderTimeout`, 5xx (and
Anthropic's 529 "overloaded") → `ProviderServerError`, 401/403 → `AuthenticationError`, other 4xx →
`BadRequestError`, timeouts → `ProviderTimeout`, refused connections and those closed before the reply
was complete → `ProviderConnectionError`, a reply that is not HTTP → `ProviderProtocolError`, a reply
body over ``max_reply_bytes`` → `ReplyTooLargeError` (its reading stopped there; see
`faceteval.llm._transport`).
The SDK validates nothing by default: a 200 that is not JSON comes back as a ``str``, a JSON array as a
``list``, a body sent as ``application/json`` that does not parse raises a bare ``json.JSONDecodeError``,
and a message without ``content`` comes back with ``content=None``; all of these are `BadResponseError`.
A message with no text block is `BadResponseError` too, unless its ``stop_reason`` explains the silence
(``max_tokens``, ``refusal``, ``tool_use``...), in which case the text is empty.

Finish reasons use OpenAI's words, so callers can test one vocabulary: ``end_turn`` and ``stop_sequence``
→ ``stop``, ``max_tokens`` → ``length``, ``tool_use`` → ``tool_calls``; others are kept as sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

import anthropic
from anthropic.types import Message as AnthropicMessage

from faceteval.errors import (
    BadResponseError,
    ConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeout,
)
from faceteval.llm._endpoint import Endpoint
from faceteval.llm._http import (
    DEFAULT_MAX_REPLY_BYTES,
    PerLoopClient,
    check_max_reply_bytes,
    snippet,
    status_error,
    token_count,
)
from faceteval.llm._rate import RateKey
from faceteval.llm._transport import (
    RefusedReply,
    ReplyLimit,
    connection_error,
    refused_reply,
    transport_error,
)
from faceteval.llm._types import Completion, CompletionRequest

if TYPE_CHECKING:
    import httpx2

__all__ = ["ANTHROPIC_BASE_URL", "LOCAL_API_KEY", "AnthropicProvider"]

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
LOCAL_API_KEY = "not-needed"
"""Sent to servers other than the official API when no key is given."""

_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
}
_SILENT_STOPS = frozenset(
    {"max_tokens", "refusal", "tool_use", "pause_turn", "model_context_window_exceeded"}
)


class AnthropicProvider:
    """A provider for Anthropic's Messages API.

    Args:
        api_key: The API key.
        base_url: The API root (without ``/v1``); the official API when None. A user name and
            password in it (``http://user:pass@host``) are sent as HTTP Basic authentication, beside
            the key (which goes in ``x-api-key``); a query (``?key=...``) is sent with every request
            (`faceteval.llm._endpoint`).
        timeout: Seconds the SDK waits for a reply; the SDK's default when None. `faceteval.llm.LLM`
            enforces its own per-call timeout as well.
        http_client: An ``httpx2.AsyncClient`` to send requests with. The caller owns it: `aclose` closes
            only a client the provider created. The reply size limit is added to its event hooks.
        max_reply_bytes: The most bytes of a reply body read; a larger reply is `ReplyTooLargeError`.
    """

    returns_logprobs: ClassVar[bool] = False
    """The API has no token log-probabilities (`faceteval.llm.LLM.returns_logprobs`)."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float | None = None,
        http_client: httpx2.AsyncClient | None = None,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self._api_key = api_key
        self._endpoint = endpoint = Endpoint.parse(base_url or ANTHROPIC_BASE_URL)
        self._base_url = base = endpoint.url
        limit = ReplyLimit(check_max_reply_bytes(max_reply_bytes))
        if http_client is not None:
            limit.install(http_client)
        self._clients = PerLoopClient(
            lambda: anthropic.AsyncAnthropic(
                api_key=api_key,  # explicit, so the SDK reads no credential from the environment
                base_url=base,  # explicit, so the SDK does not read ANTHROPIC_BASE_URL itself
                timeout=anthropic.NOT_GIVEN if timeout is None else timeout,
                max_retries=0,
                # the SDK's own defaults, with the hooks
                http_client=http_client or anthropic.DefaultAsyncHttpxClient(event_hooks=limit.hooks),
                default_headers=endpoint.headers(),
                default_query=dict(endpoint.query) or None,
            ),
            owned=http_client is None,
        )

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str],
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> Self:
        """Build from arguments, falling back to ``ANTHROPIC_BASE_URL`` and ``ANTHROPIC_API_KEY`` in ``env``.

        Args:
            env: Where variables are read from (the registry passes ``os.environ``).
            base_url: The API root; overrides ``ANTHROPIC_BASE_URL``.
            api_key: The key; overrides ``ANTHROPIC_API_KEY``.
            max_reply_bytes: The most bytes of a reply body read.

        Raises:
            ConfigError: No key is given for the official API. Any other URL gets `LOCAL_API_KEY`.
        """
        url = base_url or env.get("ANTHROPIC_BASE_URL") or ANTHROPIC_BASE_URL
        key = api_key or env.get("ANTHROPIC_API_KEY")
        if not key:
            if _is_official(url):
                raise ConfigError(
                    "ANTHROPIC_API_KEY is not set; export it to use the Anthropic API, "
                    "or give a base URL (--base-url; base_url= in Python) to use another "
                    "Anthropic-compatible server"
                )
            key = LOCAL_API_KEY
        return cls(api_key=key, base_url=url, max_reply_bytes=max_reply_bytes)

    @property
    def name(self) -> str:
        """The registry name: ``"anthropic"``."""
        return "anthropic"

    @property
    def base_url(self) -> str:
        """The API root requests go to, without a trailing slash."""
        return self._base_url

    def sdk_client(self) -> anthropic.AsyncAnthropic:
        """A new client of the official SDK with this provider's key and API root (Message Batches are
        asked through it, with the SDK's own retries); the caller closes it."""
        endpoint = self._endpoint
        return anthropic.AsyncAnthropic(
            api_key=self._api_key,
            base_url=self._base_url,
            default_headers=endpoint.headers(),
            default_query=dict(endpoint.query) or None,
        )

    @property
    def identity(self) -> str:
        """``"anthropic"`` for the official API, else ``anthropic@base_url`` (its credentials hidden,
        with a digest of them: `faceteval.llm._endpoint.Endpoint.identity`)."""
        return "anthropic" if _is_official(self._base_url) else self._endpoint.identity("anthropic")

    @property
    def rate_key(self) -> RateKey:
        """What the provider's rate limits are counted by: the endpoint and the key sent to it."""
        return self._endpoint.rate_key(self._api_key)

    async def complete(self, request: CompletionRequest) -> Completion:
        """Make one attempt at a message.

        Raises:
            ConfigError: Log-probabilities were asked for; the API has none.
            ProviderError: A subclass that says what failed; see the module docstring.
        """
        if request.config.logprobs:
            raise ConfigError(
                f"the Anthropic API returns no log-probabilities (model {request.model!r}); "
                "use a method that does not need them, or an OpenAI-compatible provider"
            )
        try:
            return _completion(await self._create(request), request, self._where(request))
        except ProviderError as error:
            self._endpoint.hide(error)
            raise

    def _where(self, request: CompletionRequest) -> str:
        return f"anthropic at {self._endpoint.shown} (model {request.model!r})"

    async def _create(self, request: CompletionRequest) -> object:
        where = self._where(request)
        try:
            return await self._clients.get().messages.create(**_params(request))
        except RefusedReply as exc:
            raise exc.error(where) from None
        except anthropic.APIError as exc:
            raise _api_error(exc, self._endpoint.shown, where) from exc
        except anthropic.AnthropicError as exc:
            raise ProviderError(f"{where} failed: {exc}") from exc
        except ValueError as exc:  # json.JSONDecodeError from a body sent as JSON that is not
            detail = snippet(getattr(exc, "doc", str(exc)))
            raise BadResponseError(f"{where} sent a body that is not valid JSON: {detail}") from exc
        except RecursionError:  # nested deeper than the decoder goes: no message looks like that
            raise BadResponseError(f"{where} answered with JSON nested too deep to be a message") from None
        except Exception as exc:  # from the transport, past the SDK
            if (failed := transport_error(exc, self._endpoint.shown, where)) is None:
                raise
            raise failed from exc

    async def aclose(self) -> None:
        """Close the connections, unless the caller passed in its own ``http_client``.

        The provider stays usable: the next call opens new connections.
        """
        await self._clients.aclose()


def _params(request: CompletionRequest) -> dict[str, Any]:
    """The SDK arguments: model, messages, ``system`` when there is one, and ``max_tokens``."""
    params: dict[str, Any] = {
        "model": request.model,
        "messages": [message.to_dict() for message in request.messages if message.role != "system"],
        "max_tokens": request.config.max_tokens,
    }
    system = "\n\n".join(message.content for message in request.messages if message.role == "system")
    if system:
        params["system"] = system
    if (schema := request.config.response_schema) is not None:
        tool: dict[str, Any] = {"name": schema.name, "input_schema": schema.schema}
        if schema.description:
            tool["description"] = schema.description
        params["tools"] = [tool]
        params["tool_choice"] = {"type": "tool", "name": schema.name}
    return params


def _completion(reply: object, request: CompletionRequest, where: str) -> Completion:
    if not isinstance(reply, AnthropicMessage):
        raise BadResponseError(
            f"{where} answered 200 with something that is not a message (a proxy page?): {snippet(reply)}"
        )
    if not isinstance(reply.content, list):
        raise BadResponseError(f"{where} sent a message without content: content={reply.content!r}")
    schema = request.config.response_schema
    inputs = (
        [] if schema is None else [i for b in reply.content if (i := _tool_input(b, schema.name)) is not None]
    )
    if inputs:  # structured output: the forced tool's input is the reply
        texts = [json.dumps(inputs[0], ensure_ascii=False)]
    else:
        texts = [text for block in reply.content if (text := _block_text(block)) is not None]
    stop = reply.stop_reason if isinstance(reply.stop_reason, str) else None
    if not texts and stop not in _SILENT_STOPS:
        raise BadResponseError(f"{where} sent a message with no text (stop_reason={stop!r})")
    usage = reply.usage
    read = token_count(getattr(usage, "cache_read_input_tokens", None))
    written = token_count(getattr(usage, "cache_creation_input_tokens", None))
    return Completion(
        text="".join(texts),
        # Anthropic counts cache reads and writes apart from input_tokens: all three are the prompt.
        input_tokens=token_count(getattr(usage, "input_tokens", None)) + read + written,
        cached_input_tokens=read,
        output_tokens=token_count(getattr(usage, "output_tokens", None)),
        finish_reason=_FINISH_REASONS.get(stop, stop) if stop else None,
        model=reply.model if isinstance(reply.model, str) and reply.model else request.model,
        response_id=reply.id if isinstance(reply.id, str) and reply.id else None,
    )


def _tool_input(block: object, name: str) -> dict[str, Any] | None:
    """The input of a ``tool_use`` block that calls the tool ``name``; None for any other block."""
    value = getattr(block, "input", None)
    if getattr(block, "type", None) != "tool_use" or getattr(block, "name", None) != name:
        return None
    return value if isinstance(value, dict) else None


def _block_text(block: object) -> str | None:
    """The text of a text block; None for any other block (thinking, tool use, unknown types)."""
    text = getattr(block, "text", None)
    return text if getattr(block, "type", None) == "text" and isinstance(text, str) else None


def _api_error(exc: anthropic.APIError, url: str, where: str) -> ProviderError:
    if (refused := refused_reply(exc)) is not None:  # the SDK wraps what a hook raises
        return refused.error(where)
    if isinstance(exc, anthropic.APIConnectionError):  # APITimeoutError too
        failed = connection_error(exc, url, where)
        if failed is not None:
            return failed
    if isinstance(exc, anthropic.APITimeoutError):
        return ProviderTimeout(f"{where} did not answer in time")
    if isinstance(exc, anthropic.APIConnectionError):
        return ProviderConnectionError(f"the connection to {where} failed: {exc.__cause__ or exc}")
    if isinstance(exc, anthropic.APIStatusError):
        return status_error(
            exc.status_code,
            exc.response.headers,
            exc.body,
            where,
            key_hint="ANTHROPIC_API_KEY",
            url_hint="without /v1: the SDK adds it",
        )
    return BadResponseError(f"{where} sent a reply the SDK could not read: {exc}")


def _is_official(base_url: str) -> bool:
    return base_url.rstrip("/") == ANTHROPIC_BASE_URL
