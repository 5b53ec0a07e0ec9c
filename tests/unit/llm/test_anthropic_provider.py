"""AnthropicProvider through the real anthropic SDK, against the local LLM server."""

from __future__ import annotations

import socket
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio
import httpx2
import pytest

from faceteval.errors import (
    AuthenticationError,
    BadRequestError,
    BadResponseError,
    ConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderServerError,
    ProviderTimeout,
    RateLimitError,
)
from faceteval.llm import CompletionRequest, GenerateConfig, Provider, assistant, system, user
from tests.support.llm_server import (
    Behaviour,
    Disconnect,
    EmptyChoices,
    Hang,
    LLMServer,
    RawBody,
    Reply,
    Status,
)

if TYPE_CHECKING:
    from faceteval.llm._anthropic import AnthropicProvider

pytestmark = pytest.mark.anyio

REQUEST = CompletionRequest(
    model="claude-test",
    messages=(system("Be strict."), user("Rate: 2+2=4"), assistant("Score:"), system("Integers only.")),
)


def message(**changes: Any) -> dict[str, Any]:
    """An Anthropic message body, with ``changes`` applied."""
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "4"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }
    return {**body, **changes}


@pytest.fixture
async def provider(llm_server: LLMServer) -> AsyncIterator[AnthropicProvider]:
    from faceteval.llm._anthropic import AnthropicProvider

    async with httpx2.AsyncClient(verify=False) as client:  # plain HTTP: skip the SDK's 0.1 s TLS setup
        provider = AnthropicProvider(
            api_key="sk-ant-test", base_url=llm_server.root_url, timeout=5, http_client=client
        )
        yield provider
        await provider.aclose()


async def test_completion_is_mapped(llm_server: LLMServer, provider: AnthropicProvider) -> None:
    llm_server.enqueue(Reply(" 4", input_tokens=21, output_tokens=2))

    completion = await provider.complete(REQUEST)

    assert completion.text == " 4"
    assert (completion.input_tokens, completion.output_tokens) == (21, 2)
    assert (completion.finish_reason, completion.model) == ("stop", "claude-test")
    assert completion.logprobs is None


async def test_request_joins_system_messages_and_sends_no_sampling_parameters(
    llm_server: LLMServer, provider: AnthropicProvider
) -> None:
    config = GenerateConfig(temperature=0.7, max_tokens=64, seed=7, top_p=0.9, json_mode=True, sample=2)

    await provider.complete(CompletionRequest(REQUEST.model, REQUEST.messages, config))

    (seen,) = llm_server.requests
    assert seen.path == "/v1/messages"
    assert seen.body == {
        "model": "claude-test",
        "system": "Be strict.\n\nIntegers only.",
        "messages": [{"role": "user", "content": "Rate: 2+2=4"}, {"role": "assistant", "content": "Score:"}],
        "max_tokens": 64,
    }  # API 2026-10-21 rejects temperature and top_p; it has no seed or JSON mode


async def test_system_is_left_out_when_there_is_none(
    llm_server: LLMServer, provider: AnthropicProvider
) -> None:
    await provider.complete(CompletionRequest("c", (user("q"),)))

    assert "system" not in llm_server.requests[0].body


async def test_logprobs_are_a_config_error(llm_server: LLMServer, provider: AnthropicProvider) -> None:
    request = CompletionRequest("c", (user("q"),), GenerateConfig(logprobs=True))

    with pytest.raises(ConfigError, match="log-probabilities"):
        await provider.complete(request)
    assert llm_server.requests == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (message(stop_reason="max_tokens", content=[{"type": "text", "text": "Sc"}]), ("Sc", "length")),
        (message(stop_reason="stop_sequence"), ("4", "stop")),
        (
            message(
                content=[{"type": "thinking", "thinking": "hm", "signature": "s"}], stop_reason="max_tokens"
            ),
            ("", "length"),
        ),
        (message(content=[{"type": "future", "x": 1}, {"type": "text", "text": "7"}]), ("7", "stop")),
        (message(usage=None), ("4", "stop")),
    ],
    ids=["truncated", "stop sequence", "thinking only, truncated", "unknown block", "no usage"],
)
async def test_reply_variants(
    llm_server: LLMServer, provider: AnthropicProvider, body: dict[str, Any], expected: tuple[str, str]
) -> None:
    llm_server.enqueue(Status(200, body=body))

    completion = await provider.complete(REQUEST)

    assert (completion.text, completion.finish_reason) == expected


BAD_REPLIES: list[tuple[str, Behaviour, str]] = [
    ("html page", RawBody("<html><body>proxy error</body></html>"), "<html><body>proxy error"),
    ("broken json", RawBody('{"content": [', content_type="application/json"), '{"content": ['),
    (
        "nested too deep",
        RawBody('{"content": ' + "[" * 100_000 + "]" * 100_000 + "}", content_type="application/json"),
        "nested",
    ),
    ("empty content", EmptyChoices(), "no text"),
    ("content missing", Status(200, body={"id": "x", "type": "message"}), "content=None"),
    ("json array", Status(200, body=[1, 2]), "[1, 2]"),
    ("thinking only", Status(200, body=message(content=[{"type": "thinking", "thinking": "hm"}])), "no text"),
]


@pytest.mark.parametrize(
    ("behaviour", "evidence"), [c[1:] for c in BAD_REPLIES], ids=[c[0] for c in BAD_REPLIES]
)
async def test_unusable_replies_are_bad_responses(
    llm_server: LLMServer, provider: AnthropicProvider, behaviour: Behaviour, evidence: str
) -> None:
    llm_server.enqueue(behaviour)

    with pytest.raises(BadResponseError) as caught:
        await provider.complete(REQUEST)

    assert evidence in str(caught.value)
    assert "claude-test" in str(caught.value)
    assert caught.value.retryable


STATUSES: list[tuple[str, Behaviour, type[ProviderError], float | None]] = [
    ("429 retry-after", Status(429, headers={"retry-after": "2"}), RateLimitError, 2.0),
    ("429 retry-after-ms", Status(429, headers={"retry-after-ms": "250"}), RateLimitError, 0.25),
    ("500", Status(500), ProviderServerError, None),
    ("503 retry-after", Status(503, headers={"retry-after": "7"}), ProviderServerError, 7.0),
    ("529 overloaded", Status(529), ProviderServerError, None),
    ("401", Status(401), AuthenticationError, None),
    ("403", Status(403), AuthenticationError, None),
    ("400", Status(400), BadRequestError, None),
    ("404", Status(404), BadRequestError, None),
    ("413", Status(413), BadRequestError, None),
]


@pytest.mark.parametrize(
    ("behaviour", "error", "wait"), [c[1:] for c in STATUSES], ids=[c[0] for c in STATUSES]
)
async def test_error_statuses_are_mapped(
    llm_server: LLMServer,
    provider: AnthropicProvider,
    behaviour: Status,
    error: type[ProviderError],
    wait: float | None,
) -> None:
    import anthropic

    llm_server.enqueue(behaviour)

    with pytest.raises(error) as caught:
        await provider.complete(REQUEST)

    raised = caught.value
    assert f"HTTP {behaviour.code}: test server says HTTP {behaviour.code}" in str(raised)
    assert raised.retryable is (error not in (AuthenticationError, BadRequestError))
    assert isinstance(raised.__cause__, anthropic.APIStatusError)
    if isinstance(raised, RateLimitError | ProviderServerError):
        assert raised.retry_after == wait
    if isinstance(raised, ProviderServerError):
        assert raised.status == behaviour.code


async def test_hang_beyond_the_timeout(llm_server: LLMServer) -> None:
    from faceteval.llm._anthropic import AnthropicProvider

    provider = AnthropicProvider(api_key="k", base_url=llm_server.root_url, timeout=0.3)
    llm_server.enqueue(Hang(10))
    start = time.monotonic()
    try:
        with pytest.raises(ProviderTimeout) as caught:
            await provider.complete(REQUEST)
    finally:
        await provider.aclose()

    assert time.monotonic() - start < 3
    assert caught.value.retryable


async def test_cancellation_is_not_an_error(llm_server: LLMServer, provider: AnthropicProvider) -> None:
    llm_server.enqueue(Hang(10))

    with anyio.move_on_after(0.2) as scope:  # what the LLM wrapper's own timeout does
        await provider.complete(REQUEST)

    assert scope.cancelled_caught


async def test_dropped_connection(llm_server: LLMServer, provider: AnthropicProvider) -> None:
    llm_server.enqueue(Disconnect())

    with pytest.raises(ProviderConnectionError) as caught:
        await provider.complete(REQUEST)

    assert caught.value.retryable


async def test_connection_refused() -> None:
    from faceteval.llm._anthropic import AnthropicProvider

    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = AnthropicProvider(api_key="k", base_url=f"http://127.0.0.1:{port}")
    try:
        with pytest.raises(ProviderConnectionError) as caught:
            await provider.complete(REQUEST)
    finally:
        await provider.aclose()

    assert f"http://127.0.0.1:{port}" in str(caught.value)
    assert caught.value.retryable


def test_official_api_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from faceteval.llm._anthropic import AnthropicProvider

    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-os-environ")  # ignored: only the mapping passed counts

    with pytest.raises(ConfigError, match=r"ANTHROPIC_API_KEY.*--base-url"):
        AnthropicProvider.from_env({})
    with pytest.raises(ConfigError):
        AnthropicProvider.from_env({"ANTHROPIC_BASE_URL": "https://api.anthropic.com/"})


async def test_local_server_needs_no_key(llm_server: LLMServer) -> None:
    from faceteval.llm._anthropic import LOCAL_API_KEY, AnthropicProvider

    provider = AnthropicProvider.from_env({"ANTHROPIC_BASE_URL": llm_server.root_url})
    try:
        completion = await provider.complete(REQUEST)
    finally:
        await provider.aclose()

    assert completion.text == "OK"
    headers = llm_server.requests[0].headers
    assert LOCAL_API_KEY in (
        headers.get("x-api-key"),
        headers.get("authorization", "").removeprefix("Bearer "),
    )


async def test_arguments_override_env(llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from faceteval.llm._anthropic import AnthropicProvider

    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")  # the SDK must not read this itself
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "ANTHROPIC_API_KEY": "env-key"}
    provider = AnthropicProvider.from_env(env, base_url=llm_server.root_url, api_key="arg-key")
    try:
        await provider.complete(REQUEST)
    finally:
        await provider.aclose()

    headers = llm_server.requests[0].headers
    assert "arg-key" in (headers.get("x-api-key"), headers.get("authorization", "").removeprefix("Bearer "))


async def test_name_and_identity(llm_server: LLMServer) -> None:
    from faceteval.llm._anthropic import AnthropicProvider

    official = AnthropicProvider(api_key="k")
    local = AnthropicProvider(api_key="k", base_url=f"{llm_server.root_url}/")
    try:
        assert isinstance(local, Provider)
        assert (official.name, official.identity) == ("anthropic", "anthropic")
        assert local.identity == f"anthropic@{llm_server.root_url}"
    finally:
        await official.aclose()
        await local.aclose()
