"""What both providers do at the HTTP layer, through the official SDKs on each of their transports:
the reply size limit, connection failures named as what they are, and replies that are not HTTP."""

from __future__ import annotations

import gzip
import json
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from typing import Any

import anyio
import httpx2
import pytest

from faceteval.errors import (
    BadResponseError,
    ConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderProtocolError,
    ProviderTimeout,
    ReplyTooLargeError,
)
from faceteval.llm import LLM, CompletionRequest, ModelSpec, Provider, RetryPolicy, user
from faceteval.llm._openai import OpenAIProvider
from tests.support.llm_server import Behaviour, Disconnect, HugeBody, LLMServer, RawBody, Reply, Status
from tests.support.raw_server import GARBAGE, RawServer, bad_chunk_later

pytestmark = pytest.mark.anyio

REQUEST = CompletionRequest(model="judge-7b", messages=(user("Rate: 2+2=4"),))
MB = 1_000_000
Make = Callable[..., Provider]

TRANSPORTS = ["openai-aiohttp", "openai-httpx2", "anthropic"]
"""The openai SDK on its aiohttp transport (what faceteval uses) and on its httpx2 one (a client passed
in), and the anthropic SDK on its httpx2 one."""


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """The SDK and transport under test (one of `TRANSPORTS`)."""
    return str(request.param)


@pytest.fixture
async def make(transport: str, llm_server: LLMServer) -> AsyncIterator[Make]:
    """Builds a provider of the transport under test, pointed at the local server unless told otherwise."""
    from faceteval.llm._anthropic import AnthropicProvider

    async with AsyncExitStack() as stack:

        def build(*, base: str | None = None, timeout: float = 30, **options: Any) -> Provider:
            provider: Provider
            if transport == "anthropic":
                url = base or llm_server.root_url
                provider = AnthropicProvider(api_key="k", base_url=url, timeout=timeout, **options)
            else:
                if transport == "openai-httpx2":
                    options["http_client"] = client = httpx2.AsyncClient()
                    stack.push_async_callback(client.aclose)
                url = f"{base}/v1" if base else llm_server.base_url
                provider = OpenAIProvider(api_key="k", base_url=url, timeout=timeout, **options)
            stack.push_async_callback(provider.aclose)
            return provider

        yield build


async def test_a_reply_over_the_limit_is_abandoned_as_it_arrives(llm_server: LLMServer, make: Make) -> None:
    provider = make()
    llm_server.enqueue(HugeBody(60 * MB), Reply("fine"))

    with pytest.raises(ReplyTooLargeError) as caught:
        await provider.complete(REQUEST)

    message = str(caught.value)
    assert "sent a reply of more than 4,194,304 bytes" in message
    assert "--max-reply-bytes" in message and "judge-7b" in message
    assert caught.value.retryable and caught.value.retry_limit == 1
    assert (await provider.complete(REQUEST)).text == "fine"  # the abandoned connection is not reused


async def test_a_content_length_over_the_limit_fails_before_the_body_is_read(
    llm_server: LLMServer, make: Make
) -> None:
    # The body would come only after a minute, past the provider's timeout: only the headers are read.
    provider = make(timeout=10)
    llm_server.enqueue(HugeBody(60 * MB, content_length=True, pause=60))

    with pytest.raises(ReplyTooLargeError, match=r"a reply of 60,000,000 bytes \(its Content-Length\)"):
        await provider.complete(REQUEST)


@pytest.mark.parametrize(
    ("behaviour", "read"),
    [
        (HugeBody(3000), True),  # exactly the limit
        (HugeBody(3001), False),
        (HugeBody(3001, content_length=True), False),
        (Reply("x" * 4000), False),
        (Status(500, body="x" * 4000), False),  # an error's body is read by the SDK: capped all the same
    ],
    ids=["at-the-limit", "chunked", "content-length", "json", "error-status"],
)
async def test_the_limit_is_the_one_given(
    llm_server: LLMServer, make: Make, behaviour: Behaviour, read: bool
) -> None:
    provider = make(max_reply_bytes=3000)
    llm_server.enqueue(behaviour)

    if read:
        assert (await provider.complete(REQUEST)).text.startswith("xxx")
    else:
        with pytest.raises(ReplyTooLargeError, match="3,000 bytes"):
            await provider.complete(REQUEST)


async def test_replies_are_asked_for_uncompressed_and_a_compressed_one_is_refused(
    llm_server: LLMServer, make: Make
) -> None:
    # A few KB of gzip can inflate to gigabytes: a limit on the bytes received would not bound it.
    body = {"choices": [{"message": {"content": "fine"}, "finish_reason": "stop"}], "type": "message"}
    bomb = RawBody(
        gzip.compress(json.dumps(body).encode()), "application/json", headers={"content-encoding": "gzip"}
    )
    llm_server.enqueue(bomb)
    provider = make()

    with pytest.raises(BadResponseError, match="compressed with 'gzip'") as caught:
        await provider.complete(REQUEST)

    assert not isinstance(caught.value, ReplyTooLargeError)
    assert llm_server.requests[0].headers["accept-encoding"] == "identity"


@pytest.mark.parametrize("behaviour", [Disconnect(), Disconnect(after=20)], ids=["before-reply", "mid-reply"])
async def test_a_connection_closed_before_the_reply_was_complete_is_named_as_such(
    llm_server: LLMServer, make: Make, behaviour: Behaviour
) -> None:
    provider = make(timeout=30)
    llm_server.enqueue(behaviour)

    with pytest.raises(ProviderConnectionError) as caught:
        await provider.complete(REQUEST)

    assert not isinstance(caught.value, ProviderTimeout)
    assert "was closed before the reply was complete" in str(caught.value)
    assert "in time" not in str(caught.value)
    assert caught.value.retryable and caught.value.connected


async def test_a_refused_connection_says_so(make: Make) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        root = f"http://127.0.0.1:{probe.getsockname()[1]}"
    provider = make(base=root)

    with pytest.raises(ProviderConnectionError) as caught:
        await provider.complete(REQUEST)

    url = provider.base_url  # type: ignore[attr-defined]
    assert str(caught.value) == f"cannot connect to {url}: connection refused; is the server running?"
    assert caught.value.retryable and not caught.value.connected


QUOTED = {
    "garbage-then-close": r"b'\x00\x01garbage\x1b[31m\x07'",
    "garbage-forever": r"b'\x00\x1b[2Jgarbage\x00\x1b[2Jgarbage",
    "broken-headers": "Content-Type application/json",
    "bad-status-code": "HTTP/1.1 abc OK",
    "bad-chunk": "b'zz",
    "headers-forever": "Too many headers received",
    "tls-alert": r"b'\x15\x03\x01\x00\x02\x02F'); it answers in TLS: give the URL with https://",
}
"""What the message quotes of each reply that is not HTTP, on the aiohttp transport (whose parser
quotes the line it could not read)."""
QUOTED_BY_H11 = {
    "garbage-then-close": "its first line cannot begin an HTTP status line",
    "garbage-forever": "its first line cannot begin an HTTP status line",
    "broken-headers": "illegal header line: bytearray(b'Content-Type application/json')",
    "bad-status-code": "illegal status line: bytearray(b'HTTP/1.1 abc OK')",
    "bad-chunk": r"illegal chunk header: bytearray(b'zz\r\n')",
    "headers-forever": "Receive buffer too long",
    "tls-alert": "its first line cannot begin an HTTP status line",
}
"""The same on the httpx2 transport (h11 quotes a status, header or chunk line it could not read, but
not a first line it rejects at its first bytes)."""


@pytest.mark.parametrize("kind", sorted(GARBAGE))
async def test_a_reply_that_is_not_http_is_named_with_what_came_back(
    make: Make, transport: str, kind: str
) -> None:
    with RawServer(lambda index, request: GARBAGE[kind]()) as server:
        provider = make(base=server.root_url)

        with pytest.raises(ProviderProtocolError) as caught:
            await provider.complete(REQUEST)

    message = str(caught.value)
    where = f"{provider.name} at {provider.base_url} (model 'judge-7b')"  # type: ignore[attr-defined]
    assert message.startswith(f"{where} answered with something that is not HTTP (")
    assert (QUOTED if transport == "openai-aiohttp" else QUOTED_BY_H11)[kind] in message
    assert message.isprintable()  # escaped: no control character reaches a terminal or a file
    assert "is that an LLM server's host and port?" in message or "https://" in message
    assert caught.value.retryable and caught.value.connected


async def test_a_broken_chunk_after_the_head_fails_the_call_within_its_timeout(
    make: Make, transport: str
) -> None:
    # aiohttp's compiled parser (what the openai SDK's aiohttp transport reads with) refuses a chunk
    # that comes after the head it has handed on without telling that head's body, which then waits:
    # the wrapper's per-call timeout ends it; h11 names what came back.
    with RawServer(lambda index, request: bad_chunk_later()) as server:
        spec = ModelSpec("anthropic" if transport == "anthropic" else "openai", "judge-7b")
        llm = LLM(make(base=server.root_url), spec, timeout=2, retry=RetryPolicy(max_retries=0))
        with anyio.fail_after(60), pytest.raises(ProviderError) as caught:
            await llm.generate([user("Hi")])
    message = str(caught.value)
    if transport == "openai-aiohttp":
        assert "no reply within 2 s" in message or "illegal chunk header" in message or "not HTTP" in message
    else:
        assert "answered with something that is not HTTP (illegal chunk header" in message


@pytest.mark.parametrize(
    "reply",
    [[b"HTTP/1.1 2"], [b"SSH-2.0-OpenSSH_9.6\r\nInvalid SSH identification string.\r\n"]],
    ids=["half-status-line", "ssh-banner"],
)
async def test_a_reply_cut_short_is_a_connection_error_naming_the_server(
    make: Make, transport: str, reply: list[bytes]
) -> None:
    # The half status line is a server that hung up; an SSH banner is not HTTP, but h11 waits for
    # the end of a head that never comes: it sees a server that hung up too.
    with RawServer(lambda index, request: reply) as server:
        provider = make(base=server.root_url)

        with pytest.raises(ProviderConnectionError) as caught:
            await provider.complete(REQUEST)

    message = str(caught.value)
    where = f"{provider.name} at {provider.base_url} (model 'judge-7b')"  # type: ignore[attr-defined]
    ssh_on_aiohttp = transport == "openai-aiohttp" and b"SSH" in reply[0]
    if ssh_on_aiohttp:
        assert isinstance(caught.value, ProviderProtocolError)
        assert f"{where} answered with something that is not HTTP (" in message and "SSH-2.0" in message
    else:
        assert not isinstance(caught.value, ProviderProtocolError)
        assert message.startswith(f"the connection to {where} was closed before the reply was complete (")
        assert "RawResponseMessage" not in message  # aiohttp's repr of the partial reply is no detail
    assert message.isprintable() and caught.value.retryable


async def test_https_to_a_plain_http_server_says_which_to_use(llm_server: LLMServer, make: Make) -> None:
    provider = make(base=llm_server.root_url.replace("http://", "https://"))

    with pytest.raises(ProviderConnectionError) as caught:
        await provider.complete(REQUEST)

    url = provider.base_url  # type: ignore[attr-defined]
    message = str(caught.value)
    assert message.startswith(
        f"cannot connect to {url}: the TLS handshake failed ([SSL: WRONG_VERSION_NUMBER]"
    )
    assert message.endswith("; is it a plain-HTTP server? then give the URL with http://")
    assert not caught.value.connected


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "4MB", None])
def test_a_limit_that_is_not_a_number_of_bytes_is_refused(value: object) -> None:
    from faceteval.llm._anthropic import AnthropicProvider

    for build in (
        lambda: OpenAIProvider(api_key="k", base_url="http://127.0.0.1:9/v1", max_reply_bytes=value),  # type: ignore[arg-type]
        lambda: AnthropicProvider(api_key="k", base_url="http://127.0.0.1:9", max_reply_bytes=value),  # type: ignore[arg-type]
        lambda: LLM.from_spec("openai:m", base_url="http://127.0.0.1:9/v1", env={}, max_reply_bytes=value),  # type: ignore[arg-type]
    ):
        with pytest.raises(ConfigError, match="max_reply_bytes must be a whole number of bytes"):
            build()
