"""What the adapters share at the HTTP layer (``httpx2``, and ``aiohttp`` under the openai SDK).

Two things the SDKs do not do for us:

- **A cap on reply bodies.** Both SDKs read a reply whole, however large, before anything sees it
  (a 4xx/5xx body too, to quote it in the error). `ReplyLimit` is a pair of ``httpx2`` event hooks,
  which run inside the SDK's client: the response hook sees the status and headers before the body
  is read, refuses a Content-Length over the cap at once, and otherwise swaps the body stream for one
  that counts the bytes as they arrive and stops the read as soon as they pass the cap. The request
  hook asks for an uncompressed reply, as a few KB of compressed bytes can inflate to gigabytes that
  no count of the bytes received could bound; a reply compressed all the same is refused.
- **Telling connection failures apart.** The SDKs report a refused connection, one closed
  mid-reply and a timeout with the same one or two exception types (the openai SDK's aiohttp
  transport maps every ``aiohttp.ClientConnectionError``, a server that hung up included, to
  ``httpx2.ConnectTimeout``). `connection_error` reads the chain of causes to say which it was.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator

import httpx2

from faceteval.errors import BadResponseError, ProviderConnectionError, ProviderError, ReplyTooLargeError
from faceteval.llm._http import snippet

LIMIT_HINT = "--max-reply-bytes; max_reply_bytes= in Python"
"""Where the cap is set, as error messages name it."""

_IDENTITY = frozenset({"", "identity"})


class RefusedReply(Exception):
    """Raised by `ReplyLimit`'s hooks inside the SDK (which lets it through as it is); the provider turns
    it into the `ProviderError` that names the server, with `error`."""

    def __init__(self, problem: str, *, too_large: bool) -> None:
        super().__init__(problem)
        self.problem = problem
        self.too_large = too_large

    def error(self, where: str) -> ProviderError:
        """The error to raise, for the server ``where`` ("openai at http://...")."""
        kind = ReplyTooLargeError if self.too_large else BadResponseError
        return kind(f"{where} {self.problem}")


class ReplyLimit:
    """``httpx2`` event hooks that keep every reply body under ``max_bytes`` (see the module docstring).

    Args:
        max_bytes: The most bytes of body read from one reply.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes

    @property
    def hooks(self) -> dict[str, list[Callable[..., Awaitable[None]]]]:
        """The ``event_hooks`` argument of an ``httpx2.AsyncClient``."""
        return {"request": [self.on_request], "response": [self.on_response]}

    def install(self, client: httpx2.AsyncClient) -> None:
        """Add the hooks to a client made by someone else, after its own."""
        hooks = client.event_hooks
        client.event_hooks = {
            "request": [*hooks.get("request", []), self.on_request],
            "response": [*hooks.get("response", []), self.on_response],
        }

    async def on_request(self, request: httpx2.Request) -> None:
        """Ask for the body as it is, not compressed."""
        request.headers["accept-encoding"] = "identity"

    async def on_response(self, response: httpx2.Response) -> None:
        """Refuse a compressed or declared-too-large body; cap the reading of any other.

        Raises:
            RefusedReply: What was wrong.
        """
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding not in _IDENTITY:
            raise RefusedReply(
                f"sent a reply compressed with {encoding!r}, which was not asked for and whose size "
                "cannot be bounded before it is inflated",
                too_large=False,
            )
        declared = _content_length(response)
        if declared is not None and declared > self.max_bytes:
            raise RefusedReply(
                f"sent a reply of {declared:,} bytes (its Content-Length), over the limit of "
                f"{self.max_bytes:,} bytes ({LIMIT_HINT}); it was not read. A judge's reply is a few KB: "
                "does the server ignore max_tokens?",
                too_large=True,
            )
        if isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = _CappedStream(response.stream, self.max_bytes)


class _CappedStream(httpx2.AsyncByteStream):
    """A body stream that stops with `RefusedReply` once more than ``max_bytes`` have arrived."""

    def __init__(self, inner: httpx2.AsyncByteStream, max_bytes: int) -> None:
        self._inner = inner
        self._max_bytes = max_bytes

    async def __aiter__(self) -> AsyncIterator[bytes]:
        received = 0
        chunks = aiter(self._inner)
        try:
            async for chunk in chunks:
                received += len(chunk)
                if received > self._max_bytes:
                    raise RefusedReply(
                        f"sent a reply of more than {self._max_bytes:,} bytes, the limit ({LIMIT_HINT}); "
                        "its reading was abandoned there. A judge's reply is a few KB: does the server "
                        "ignore max_tokens?",
                        too_large=True,
                    )
                yield chunk
        finally:  # now, not when the collector gets to it: it holds the connection
            if isinstance(chunks, AsyncGenerator):
                await chunks.aclose()

    async def aclose(self) -> None:
        await self._inner.aclose()


def refused_reply(exc: BaseException) -> RefusedReply | None:
    """The `RefusedReply` behind an SDK's exception (the anthropic SDK wraps it in a connection error)."""
    return next((cause for cause in _causes(exc) if isinstance(cause, RefusedReply)), None)


def _content_length(response: httpx2.Response) -> int | None:
    value = response.headers.get("content-length", "").strip()
    return int(value) if value.isascii() and value.isdigit() else None


def connection_error(exc: BaseException, url: str, where: str) -> ProviderConnectionError | None:
    """The error for an SDK exception that comes from a failed connection, else None (a real timeout...).

    Args:
        exc: The SDK's exception.
        url: The server's base URL, as a failure to connect names it.
        where: The server and model, as a connection closed mid-reply names them.
    """
    causes = list(_causes(exc))
    reason = _connect_failure(causes)
    if reason is not None:
        return ProviderConnectionError(
            f"cannot connect to {url}: {reason}; is the server running?", connected=False
        )
    if any(_dropped(cause) for cause in causes):
        detail = next((str(c) for c in reversed(causes) if str(c)), "no detail")
        return ProviderConnectionError(
            f"the connection to {where} was closed before the reply was complete ({snippet(detail)})"
        )
    return None


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what caused it, outermost first."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        yield cause
        cause = cause.__cause__ or cause.__context__


def _connect_failure(causes: list[BaseException]) -> str | None:
    """Why no connection could be made, if that is what happened."""
    aiohttp = sys.modules.get("aiohttp")  # loaded if its transport is in use, else not needed
    connecting = any(
        isinstance(cause, httpx2.ConnectError)
        or (aiohttp is not None and isinstance(cause, aiohttp.ClientConnectorError))
        for cause in causes
    )
    for cause in causes:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return f"the host name cannot be resolved ({cause.strerror or cause})"
    if not connecting:
        return None
    errors = [cause for cause in causes if isinstance(cause, OSError)]
    deepest = errors[-1] if errors else causes[-1]
    return snippet(getattr(deepest, "strerror", None) or str(deepest))


def _dropped(cause: BaseException) -> bool:
    """Whether ``cause`` says the server closed (or reset) a connection it had accepted."""
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(cause, aiohttp.ClientConnectionError | aiohttp.ClientPayloadError):
        return not isinstance(cause, TimeoutError)
    return isinstance(
        cause, httpx2.RemoteProtocolError | httpx2.ReadError | httpx2.WriteError | ConnectionError
    ) and not isinstance(cause, TimeoutError)
