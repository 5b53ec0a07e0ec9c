"""What the provider adapters share, free of any SDK: status mapping, Retry-After, error snippets."""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Generic, Protocol, TypeVar

from faceteval.errors import (
    AuthenticationError,
    BadRequestError,
    BadResponseError,
    ConfigError,
    ProviderError,
    ProviderServerError,
    ProviderTimeout,
    RateLimitError,
)

SNIPPET_CHARS = 200
DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024
"""The most bytes of a reply body read from a provider: 4 MiB.

A judge's reply is a few KB of JSON (1,024 tokens of text are about 5 KB); even with the top 20
log-probabilities of every token, the most an API sends, 1,024 tokens come to about 1.5 MB. 4 MiB
leaves room for that and more, while 16 calls in flight hold at most 64 MiB of replies, where a
server that ignores ``max_tokens`` could otherwise send hundreds of MB to each.
"""


class _Closable(Protocol):
    def close(self) -> Awaitable[None]: ...


C = TypeVar("C", bound=_Closable)


class PerLoopClient(Generic[C]):
    """An SDK client for the running event loop, made on first use.

    Connections belong to the event loop that opened them, so a provider used by two runs (two
    ``anyio.run`` calls) needs a client per loop. `aclose` closes the current one unless the caller
    owns it; the next call then makes a new one.

    Args:
        make: Builds the SDK client.
        owned: Whether closing it is ours to do (False when the caller passed its own HTTP client).
    """

    def __init__(self, make: Callable[[], C], *, owned: bool) -> None:
        self._make = make
        self._owned = owned
        self._client: C | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> C:
        """The client of the running loop."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = self._make(), loop
        return self._client

    async def aclose(self) -> None:
        """Close the current client (if it is ours) and forget it."""
        client, self._client, self._loop = self._client, None, None
        if client is not None and self._owned:
            await client.close()


def status_error(
    status: int,
    headers: Mapping[str, str],
    body: object,
    where: str,
    *,
    key_hint: str,
    url_hint: str = "with its /v1, if the server has one",
) -> ProviderError:
    """The `ProviderError` for an HTTP error status; ``key_hint`` says where the key comes from, and
    ``url_hint`` what the base URL should look like."""
    detail = f"{where} answered HTTP {status}: {snippet(body)}"
    if status == 429:
        return RateLimitError(detail, retry_after=retry_after(headers))
    if status >= 500:
        return ProviderServerError(detail, status=status, retry_after=retry_after(headers))
    if status in (401, 403):
        return AuthenticationError(f"{detail}; check the API key ({key_hint}, --api-key or api_key=)")
    if status == 408:
        return ProviderTimeout(detail)
    if status == 404:
        return BadRequestError(f"{detail}; check the base URL ({url_hint}) and the model")
    if status >= 400:
        return BadRequestError(detail)
    return BadResponseError(detail)


def check_max_reply_bytes(value: object) -> int:
    """``value`` if it is a whole number of bytes, at least 1.

    Raises:
        ConfigError: It is not.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"max_reply_bytes must be a whole number of bytes, at least 1, got {value!r}")
    return value


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date).

    Examples:
        >>> retry_after({"retry-after-ms": "1500"}), retry_after({"retry-after": "2"}), retry_after({})
        (1.5, 2.0, None)
    """
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = headers.get("retry-after")
    seconds = _seconds(value)
    if seconds is not None or not value:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _seconds(value: str | None) -> float | None:
    try:
        number = float(value) if value else math.nan
    except ValueError:
        return None
    return max(0.0, number) if math.isfinite(number) else None


def snippet(body: object) -> str:
    """A short, one-line excerpt of an error body: the API's error message when there is one."""
    if isinstance(body, Mapping):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, Mapping) else error
        text = message if isinstance(message, str) else json.dumps(body, default=str)
    else:
        text = body if isinstance(body, str) else repr(body)
    text = " ".join(text.split()) or "(empty body)"
    return text if len(text) <= SNIPPET_CHARS else f"{text[:SNIPPET_CHARS]}..."


def token_count(value: object) -> int:
    """A token count, or 0 when the server sent none (or nonsense)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
