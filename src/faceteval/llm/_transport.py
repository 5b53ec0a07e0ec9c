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
- **A server that does not speak HTTP.** Bytes that are no status line, headers that cannot be
  read, broken chunked framing: ``h11`` (under ``httpx2``) raises a protocol error that the SDKs
  report as a connection error, and ``aiohttp`` a ``ClientResponseError`` that the openai SDK lets
  through as it is. `connection_error` makes both `ProviderProtocolError`, quoting (escaped) what
  the parser quotes of the reply: ``aiohttp`` quotes the line it could not read, ``h11`` a status,
  header or chunk line, but not a first line it rejects at its first bytes.
"""

from __future__ import annotations

import re
import socket
import ssl
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator

import httpx2

from faceteval._util.text import neutralise
from faceteval.errors import (
    BadResponseError,
    ProviderConnectionError,
    ProviderError,
    ProviderProtocolError,
    ReplyTooLargeError,
)
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
    failure = _connect_failure(causes)
    if failure is not None:
        reason, hint = failure
        return ProviderConnectionError(f"cannot connect to {url}: {reason}; {hint}", connected=False)
    answered = _not_http(causes)
    if answered is not None:
        tls = url.startswith("http://") and _TLS_RECORD.search(answered) is not None
        hint = (
            "it answers in TLS: give the URL with https://"
            if tls
            else "is that an LLM server's host and port?"
        )
        return ProviderProtocolError(f"{where} answered with something that is not HTTP ({answered}); {hint}")
    if any(_dropped(cause) for cause in causes):
        detail = next((_said(c) for c in reversed(causes) if _said(c)), "no detail")
        return ProviderConnectionError(
            f"the connection to {where} was closed before the reply was complete ({snippet(detail)})"
        )
    return None


def transport_error(exc: Exception, url: str, where: str) -> ProviderConnectionError | None:
    """The error for an exception an SDK let through from its HTTP transport as it is, else None.

    The openai SDK passes on the ``aiohttp`` errors its transport does not map (a reply that is not
    HTTP is one); every other exception is not the transport's, and the caller raises it again.
    """
    failed = connection_error(exc, url, where)
    aiohttp = sys.modules.get("aiohttp")
    if failed is None and aiohttp is not None and isinstance(exc, aiohttp.ClientError):
        failed = ProviderConnectionError(f"the connection to {where} failed: {snippet(neutralise(str(exc)))}")
    return failed


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what caused it, outermost first."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        yield cause
        cause = cause.__cause__ or cause.__context__


def _connect_failure(causes: list[BaseException]) -> tuple[str, str] | None:
    """Why no connection could be made, and what to check, if that is what happened."""
    aiohttp = sys.modules.get("aiohttp")  # loaded if its transport is in use, else not needed
    connecting = any(
        isinstance(cause, httpx2.ConnectError)
        or (aiohttp is not None and isinstance(cause, aiohttp.ClientConnectorError))
        for cause in causes
    )
    for cause in causes:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused", _RUNNING
        if isinstance(cause, socket.gaierror):
            return f"the host name cannot be resolved ({cause.strerror or cause})", _RUNNING
    if not connecting:
        return None
    tls = next((cause for cause in causes if isinstance(cause, ssl.SSLError)), None)
    if tls is not None:
        return _tls_failure(tls)
    errors = [cause for cause in causes if isinstance(cause, OSError)]
    deepest = errors[-1] if errors else causes[-1]
    return snippet(getattr(deepest, "strerror", None) or str(deepest)), _RUNNING


_RUNNING = "is the server running?"
_PLAIN_HTTP = ("WRONG_VERSION_NUMBER", "record layer failure", "packet length too long", "unknown protocol")
"""What OpenSSL says when what answered a TLS handshake does not speak TLS (a plain-HTTP server)."""
_TLS_RECORD = re.compile(r"\\x1[56]\\x03")
"""The first bytes of a TLS record (an alert or a handshake), as the parsers quote them, escaped."""


def _tls_failure(error: ssl.SSLError) -> tuple[str, str]:
    """Why the TLS handshake failed, and what to check."""
    said = snippet(error.strerror or str(error))
    if any(sign in said for sign in _PLAIN_HTTP):
        return (
            f"the TLS handshake failed ({said})",
            "is it a plain-HTTP server? then give the URL with http://",
        )
    if "CERTIFICATE_VERIFY_FAILED" in said:
        return f"the TLS handshake failed ({said})", "SSL_CERT_FILE names the certificates trusted"
    return f"the TLS handshake failed ({said})", _RUNNING


_EOF_SAYINGS = ("peer closed connection", "peer unexpectedly closed", "Not enough data to satisfy")
"""How ``h11`` and ``aiohttp`` begin saying that a reply stopped short: a dropped connection, not bad HTTP."""


def _not_http(causes: list[BaseException]) -> str | None:
    """What the HTTP parser said of a reply it could not read as HTTP, escaped; None if none was."""
    aiohttp = sys.modules.get("aiohttp")
    processing = aiohttp.http_exceptions.HttpProcessingError if aiohttp is not None else ()
    h11 = sys.modules.get("h11")
    protocol = h11.RemoteProtocolError if h11 is not None else ()
    for cause in reversed(causes):  # the parser's own error is the deepest
        if isinstance(cause, processing):
            said = str(getattr(cause, "message", "") or cause)
        elif isinstance(cause, protocol):
            said = str(cause)
            if said == "illegal request line":  # h11's words for a first line it rejects at once
                said = "its first line cannot begin an HTTP status line"
        else:
            continue
        if not said.startswith(_EOF_SAYINGS):
            lines = [line.strip() for line in said.splitlines()]
            return snippet(neutralise(" ".join(line for line in lines if line.strip("^ "))))
    return None


def _said(cause: BaseException) -> str:
    """What ``cause`` says, in words (``aiohttp`` puts the partial reply's repr in a disconnection)."""
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(cause, aiohttp.ServerDisconnectedError):
        return "Server disconnected"
    return neutralise(str(cause))


def _dropped(cause: BaseException) -> bool:
    """Whether ``cause`` says the server closed (or reset) a connection it had accepted."""
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(cause, aiohttp.ClientConnectionError | aiohttp.ClientPayloadError):
        return not isinstance(cause, TimeoutError)
    return isinstance(
        cause, httpx2.RemoteProtocolError | httpx2.ReadError | httpx2.WriteError | ConnectionError
    ) and not isinstance(cause, TimeoutError)
