"""What both providers do at the HTTP layer, through the official SDKs on each of their transports:
the reply size limit, and connection failures named as what they are."""

from __future__ import annotations

import gzip
import json
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from typing import Any

import httpx2
import pytest

from faceteval.errors import (
    BadResponseError,
    ConfigError,
    ProviderConnectionError,
    ProviderTimeout,
    ReplyTooLargeError,
)
from faceteval.llm import LLM, CompletionRequest, Provider, user
from faceteval.llm._anthropic import AnthropicProvider
from faceteval.llm._openai import OpenAIProvider
from tests.support.llm_server import Behaviour, Disconnect, HugeBody, LLMServer, RawBody, Reply, Status

pytestmark = pytest.mark.anyio

REQUEST = CompletionRequest(model="judge-7b", messages=(user("Rate: 2+2=4"),))
MB = 1_000_000
Make = Callable[..., Provider]

TRANSPORTS = ["openai-aiohttp", "openai-httpx2", "anthropic"]
"""The openai SDK on its aiohttp transport (what faceteval uses) and on its httpx2 one (a client passed
in), and the anthropic SDK on its httpx2 one."""


@pytest.fixture(params=TRANSPORTS)
async def make(request: pytest.FixtureRequest, llm_server: LLMServer) -> AsyncIterator[Make]:
    """Builds a provider of the transport under test, pointed at the local server unless told otherwise."""
    async with AsyncExitStack() as stack:

        def build(*, base: str | None = None, timeout: float = 30, **options: Any) -> Provider:
            provider: Provider
            if request.param == "anthropic":
                url = base or llm_server.root_url
                provider = AnthropicProvider(api_key="k", base_url=url, timeout=timeout, **options)
            else:
                if request.param == "openai-httpx2":
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


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "4MB", None])
def test_a_limit_that_is_not_a_number_of_bytes_is_refused(value: object) -> None:
    for build in (
        lambda: OpenAIProvider(api_key="k", base_url="http://127.0.0.1:9/v1", max_reply_bytes=value),  # type: ignore[arg-type]
        lambda: AnthropicProvider(api_key="k", base_url="http://127.0.0.1:9", max_reply_bytes=value),  # type: ignore[arg-type]
        lambda: LLM.from_spec("openai:m", base_url="http://127.0.0.1:9/v1", env={}, max_reply_bytes=value),  # type: ignore[arg-type]
    ):
        with pytest.raises(ConfigError, match="max_reply_bytes must be a whole number of bytes"):
            build()
