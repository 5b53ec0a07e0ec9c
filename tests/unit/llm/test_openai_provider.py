"""OpenAIProvider through the real openai SDK, against the local LLM server."""

from __future__ import annotations

import math
import socket
import ssl
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import anyio
import httpx2
import openai
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
from faceteval.llm import CompletionRequest, GenerateConfig, Provider, system, user
from faceteval.llm._http import retry_after
from faceteval.llm._openai import LOCAL_API_KEY, OpenAIProvider, _tls_context
from tests.support.llm_server import (
    Behaviour,
    Disconnect,
    EmptyChoices,
    Hang,
    LLMServer,
    RawBody,
    Reply,
    Status,
    Token,
)

pytestmark = pytest.mark.anyio

REQUEST = CompletionRequest(model="judge-7b", messages=(system("Be strict."), user("Rate: 2+2=4")))
CHOICE_OK = {"index": 0, "message": {"role": "assistant", "content": "fine"}, "finish_reason": "stop"}


@pytest.fixture
async def provider(llm_server: LLMServer) -> AsyncIterator[OpenAIProvider]:
    async with httpx2.AsyncClient(verify=False) as client:  # plain HTTP: skip the SDK's 0.1 s TLS setup
        provider = OpenAIProvider(
            api_key="sk-test", base_url=llm_server.base_url, name="local", timeout=5, http_client=client
        )
        yield provider
        await provider.aclose()


async def test_completion_is_mapped(llm_server: LLMServer, provider: OpenAIProvider) -> None:
    llm_server.enqueue(Reply("Score: 4", input_tokens=12, output_tokens=3))

    completion = await provider.complete(REQUEST)

    assert completion.text == "Score: 4"
    assert (completion.input_tokens, completion.output_tokens) == (12, 3)
    assert (completion.finish_reason, completion.model) == ("stop", "judge-7b")
    assert completion.logprobs is None


async def test_request_carries_only_what_is_set(llm_server: LLMServer, provider: OpenAIProvider) -> None:
    request = CompletionRequest(REQUEST.model, REQUEST.messages, GenerateConfig(max_tokens=64, sample=3))

    await provider.complete(request)

    (seen,) = llm_server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.body == {
        "model": "judge-7b",
        "messages": [{"role": "system", "content": "Be strict."}, {"role": "user", "content": "Rate: 2+2=4"}],
        "temperature": 0.0,
        "max_tokens": 64,
    }


async def test_optional_parameters_and_logprobs(llm_server: LLMServer, provider: OpenAIProvider) -> None:
    config = GenerateConfig(seed=7, top_p=0.9, json_mode=True, logprobs=True, top_logprobs=2)
    llm_server.enqueue(Reply("yes no"))

    completion = await provider.complete(CompletionRequest("m", (user("q"),), config))

    body = llm_server.requests[0].body
    assert (body["seed"], body["top_p"], body["response_format"]) == (7, 0.9, {"type": "json_object"})
    assert (body["logprobs"], body["top_logprobs"]) == (True, 2)
    assert "sample" not in body
    assert completion.logprobs is not None
    assert [token.token for token in completion.logprobs] == ["yes", " no"]
    first = completion.logprobs[0]
    assert first.logprob == pytest.approx(-0.1)
    assert [token for token, _ in first.top] == ["yes", "alt1"]
    assert [logprob for _, logprob in first.top] == pytest.approx([-0.1, -1.1])


async def test_scripted_token_distributions_come_back_as_sent(
    llm_server: LLMServer, provider: OpenAIProvider
) -> None:
    tokens = (Token("Score"), Token(": "), Token("8", {"7": 0.25, "8": 0.5, "9": 0.125, "x": 0.0625}))
    llm_server.enqueue(Reply("Score: 8", tokens=tokens))
    config = GenerateConfig(logprobs=True, top_logprobs=3)

    completion = await provider.complete(CompletionRequest("m", (user("q"),), config))

    raw = await _raw_logprobs(llm_server, tokens, config)
    assert raw["content"][2]["bytes"] == [56]
    assert [alt["bytes"] for alt in raw["content"][2]["top_logprobs"]] == [[56], [55], [57]]
    assert completion.logprobs is not None
    assert "".join(t.token for t in completion.logprobs) == completion.text
    score = completion.logprobs[2]
    assert score.logprob == pytest.approx(math.log(0.5))
    assert [t for t, _ in score.top] == ["8", "7", "9"]  # most likely first, cut to top_logprobs
    assert [lp for _, lp in score.top] == pytest.approx([math.log(0.5), math.log(0.25), math.log(0.125)])
    assert completion.logprobs[0].top == ()


async def test_a_server_without_logprobs_sends_none(llm_server: LLMServer, provider: OpenAIProvider) -> None:
    llm_server.enqueue(Reply("8", logprobs=False))
    config = GenerateConfig(logprobs=True, top_logprobs=3)
    completion = await provider.complete(CompletionRequest("m", (user("q"),), config))
    assert llm_server.requests[0].body["logprobs"] is True
    assert completion.logprobs is None


async def _raw_logprobs(
    llm_server: LLMServer, tokens: tuple[Token, ...], config: GenerateConfig
) -> dict[str, Any]:
    """The payload as the SDK's own models read it (the format OpenAI documents)."""
    llm_server.enqueue(Reply("Score: 8", tokens=tokens))
    async with openai.AsyncOpenAI(api_key="k", base_url=llm_server.base_url, max_retries=0) as client:
        reply = await client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "q"}],
            logprobs=True,
            top_logprobs=config.top_logprobs,
        )
    logprobs = reply.choices[0].logprobs
    assert logprobs is not None and logprobs.content is not None
    return logprobs.model_dump()


async def test_missing_usage_counts_zero(llm_server: LLMServer, provider: OpenAIProvider) -> None:
    llm_server.enqueue(Status(200, body={"id": "x", "choices": [CHOICE_OK]}))

    completion = await provider.complete(REQUEST)

    assert (completion.text, completion.input_tokens, completion.output_tokens) == ("fine", 0, 0)
    assert completion.model == "judge-7b"  # the server named none: the requested model


async def test_truncated_reply_keeps_its_finish_reason(
    llm_server: LLMServer, provider: OpenAIProvider
) -> None:
    llm_server.enqueue(Reply("Score:", finish_reason="length"))

    completion = await provider.complete(REQUEST)

    assert (completion.text, completion.finish_reason) == ("Score:", "length")


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"role": "assistant", "content": None}, ("", "length")),
        (
            {"role": "assistant", "content": None, "refusal": "I can't judge that."},
            ("I can't judge that.", "refusal"),
        ),
    ],
)
async def test_null_content_explained_by_the_reply(
    llm_server: LLMServer, provider: OpenAIProvider, message: dict[str, object], expected: tuple[str, str]
) -> None:
    finish = "length" if message.get("refusal") is None else "stop"
    choice = {"index": 0, "message": message, "finish_reason": finish}
    llm_server.enqueue(Status(200, body={"id": "x", "choices": [choice]}))

    completion = await provider.complete(REQUEST)

    assert (completion.text, completion.finish_reason) == expected


BAD_REPLIES: list[tuple[str, Behaviour, str]] = [
    ("html page", RawBody("<html><body>502 from the proxy</body></html>"), "<html><body>502 from the proxy"),
    ("broken json", RawBody('{"choices": [', content_type="application/json"), '{"choices": ['),
    (
        "nested too deep",
        RawBody('{"choices": ' + "[" * 100_000 + "]" * 100_000 + "}", content_type="application/json"),
        "nested",
    ),
    ("empty body", RawBody("", content_type="application/json"), "empty body"),
    ("empty choices", EmptyChoices(), "choices=[]"),
    ("missing choices", Status(200, body={"id": "x", "object": "chat.completion"}), "choices=None"),
    ("json array", Status(200, body=[1, 2]), "[1, 2]"),
    ("no message", Status(200, body={"id": "x", "choices": [{"index": 0}]}), "without a message"),
    (
        "null content, stopped",
        Status(
            200,
            body={"id": "x", "choices": [{**CHOICE_OK, "message": {"role": "assistant", "content": None}}]},
        ),
        "without content",
    ),
]


@pytest.mark.parametrize(
    ("behaviour", "evidence"), [case[1:] for case in BAD_REPLIES], ids=[c[0] for c in BAD_REPLIES]
)
async def test_unusable_replies_are_bad_responses(
    llm_server: LLMServer, provider: OpenAIProvider, behaviour: Behaviour, evidence: str
) -> None:
    llm_server.enqueue(behaviour)

    with pytest.raises(BadResponseError) as caught:
        await provider.complete(REQUEST)

    assert evidence in str(caught.value)
    assert "judge-7b" in str(caught.value)
    assert caught.value.retryable


STATUSES: list[tuple[str, Behaviour, type[ProviderError], float | None]] = [
    ("429 retry-after", Status(429, headers={"retry-after": "2"}), RateLimitError, 2.0),
    (
        "429 retry-after-ms",
        Status(429, headers={"retry-after-ms": "1500", "retry-after": "9"}),
        RateLimitError,
        1.5,
    ),
    ("429 bare", Status(429), RateLimitError, None),
    ("500", Status(500), ProviderServerError, None),
    ("503 retry-after", Status(503, headers={"retry-after": "7"}), ProviderServerError, 7.0),
    ("502 html", RawBody("<html>bad gateway</html>", status=502), ProviderServerError, None),
    ("401", Status(401), AuthenticationError, None),
    ("403", Status(403), AuthenticationError, None),
    ("400", Status(400), BadRequestError, None),
    ("404", Status(404), BadRequestError, None),
    ("413", Status(413), BadRequestError, None),
    ("422", Status(422), BadRequestError, None),
    ("408", Status(408), ProviderTimeout, None),
]


@pytest.mark.parametrize(
    ("behaviour", "error", "wait"), [case[1:] for case in STATUSES], ids=[c[0] for c in STATUSES]
)
async def test_error_statuses_are_mapped(
    llm_server: LLMServer,
    provider: OpenAIProvider,
    behaviour: Behaviour,
    error: type[ProviderError],
    wait: float | None,
) -> None:
    llm_server.enqueue(behaviour)

    with pytest.raises(error) as caught:
        await provider.complete(REQUEST)

    raised = caught.value
    status = behaviour.code if isinstance(behaviour, Status) else 502
    assert f"HTTP {status}" in str(raised)
    assert ("bad gateway" if status == 502 else f"test server says HTTP {status}") in str(raised)
    assert raised.retryable is (error not in (AuthenticationError, BadRequestError))
    assert isinstance(raised.__cause__, openai.APIStatusError)
    if isinstance(raised, RateLimitError | ProviderServerError):
        assert raised.retry_after == wait
    if isinstance(raised, ProviderServerError):
        assert raised.status == status


async def test_retry_after_as_an_http_date(llm_server: LLMServer, provider: OpenAIProvider) -> None:
    in_30s = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    llm_server.enqueue(Status(429, headers={"retry-after": in_30s}))

    with pytest.raises(RateLimitError) as caught:
        await provider.complete(REQUEST)

    assert caught.value.retry_after is not None
    assert 20 < caught.value.retry_after <= 31


def test_retry_after_ignores_nonsense() -> None:
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({"retry-after": "-3"}) == 0.0
    assert retry_after({"retry-after-ms": "nan", "retry-after": "4"}) == 4.0
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0


async def test_hang_beyond_the_timeout(llm_server: LLMServer) -> None:
    provider = OpenAIProvider(api_key="k", base_url=llm_server.base_url, timeout=0.3)
    llm_server.enqueue(Hang(10))
    start = time.monotonic()
    try:
        with pytest.raises(ProviderTimeout) as caught:
            await provider.complete(REQUEST)
    finally:
        await provider.aclose()

    assert time.monotonic() - start < 3
    assert caught.value.retryable


async def test_cancellation_is_not_an_error(llm_server: LLMServer, provider: OpenAIProvider) -> None:
    llm_server.enqueue(Hang(10))

    with anyio.move_on_after(0.2) as scope:  # what the LLM wrapper's own timeout does
        await provider.complete(REQUEST)

    assert scope.cancelled_caught


async def test_dropped_connection(llm_server: LLMServer, provider: OpenAIProvider) -> None:
    llm_server.enqueue(Disconnect())

    with pytest.raises(ProviderConnectionError) as caught:
        await provider.complete(REQUEST)

    assert caught.value.retryable


async def test_connection_refused() -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = OpenAIProvider(api_key="k", base_url=f"http://127.0.0.1:{port}/v1", name="vllm")
    try:
        with pytest.raises(ProviderConnectionError) as caught:
            await provider.complete(REQUEST)
    finally:
        await provider.aclose()

    url = f"http://127.0.0.1:{port}/v1"
    assert str(caught.value) == f"cannot connect to {url}: connection refused; is the server running?"
    assert caught.value.retryable


def test_official_api_needs_a_key() -> None:
    with pytest.raises(ConfigError, match=r"OPENAI_API_KEY.*--base-url"):
        OpenAIProvider.from_env({})
    with pytest.raises(ConfigError):
        OpenAIProvider.from_env({"OPENAI_BASE_URL": "https://api.openai.com/v1/"})


def test_env_is_the_mapping_passed_not_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-os-environ")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")

    with pytest.raises(ConfigError):
        OpenAIProvider.from_env({})


async def test_local_server_needs_no_key(llm_server: LLMServer) -> None:
    provider = OpenAIProvider.from_env({}, base_url=llm_server.base_url)
    try:
        completion = await provider.complete(REQUEST)
    finally:
        await provider.aclose()

    assert completion.text == "OK"
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {LOCAL_API_KEY}"


async def test_env_values_and_argument_precedence(llm_server: LLMServer) -> None:
    env = {"OPENAI_BASE_URL": llm_server.base_url, "OPENAI_API_KEY": "env-key"}
    from_env = OpenAIProvider.from_env(env)
    from_args = OpenAIProvider.from_env(
        {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, base_url=llm_server.base_url, api_key="arg-key"
    )
    try:
        await from_env.complete(REQUEST)
        await from_args.complete(REQUEST)
    finally:
        await from_env.aclose()
        await from_args.aclose()

    assert [r.headers["authorization"] for r in llm_server.requests] == ["Bearer env-key", "Bearer arg-key"]


async def test_name_and_identity(llm_server: LLMServer) -> None:
    official = OpenAIProvider(api_key="k")
    local = OpenAIProvider(api_key="k", base_url=f"{llm_server.base_url}/", name="ollama")
    try:
        assert isinstance(local, Provider)
        assert (official.name, official.identity) == ("openai", "openai")
        assert (local.name, local.identity) == ("ollama", f"ollama@{llm_server.base_url}")
    finally:
        await official.aclose()
        await local.aclose()


async def test_a_given_http_client_stays_open(llm_server: LLMServer) -> None:
    async with httpx2.AsyncClient() as client:
        provider = OpenAIProvider(api_key="k", base_url=llm_server.base_url, http_client=client)
        assert (await provider.complete(REQUEST)).text == "OK"
        await provider.aclose()
        assert not client.is_closed


@pytest.mark.parametrize("suffix", ["/proxy/v1", "/proxy/v1/"])
async def test_requests_go_under_the_base_url_path(llm_server: LLMServer, suffix: str) -> None:
    provider = OpenAIProvider(api_key="k", base_url=llm_server.root_url + suffix)
    try:
        with pytest.raises(BadRequestError, match="404") as caught:  # the test server serves /v1 only
            await provider.complete(REQUEST)
        assert "check the base URL (with its /v1, if the server has one) and the model" in str(caught.value)
    finally:
        await provider.aclose()
    assert llm_server.requests[-1].path == "/proxy/v1/chat/completions"


@pytest.mark.parametrize("url", ["127.0.0.1:8000/v1", "localhost", "ftp://host/v1", "http:///v1"])
def test_a_base_url_that_is_not_a_whole_http_url_is_refused(url: str) -> None:
    with pytest.raises(ConfigError, match="not a whole http\\(s\\) URL; give it in full"):
        OpenAIProvider(api_key="k", base_url=url)
    with pytest.raises(ConfigError, match="not a whole http"):
        OpenAIProvider.from_env({"OPENAI_BASE_URL": url})


async def test_the_tls_context_is_made_once_with_the_provider_not_per_client(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[object] = []  # contexts built (each client also passes the given one through)
    create = httpx2.create_ssl_context

    def counting(verify: object = True, **options: Any) -> ssl.SSLContext:
        context = create(verify, **options)  # type: ignore[arg-type]
        if context is not verify:
            made.append(context)
        return context

    monkeypatch.setattr(httpx2, "create_ssl_context", counting)
    _tls_context.cache_clear()
    try:
        provider = OpenAIProvider(api_key="k", base_url=llm_server.base_url)
        assert len(made) == 1  # at construction: a run's first calls do not wait for it
        for _ in range(2):  # aclose drops the client: the second call makes a new one
            assert (await provider.complete(REQUEST)).text == "OK"
            await provider.aclose()
        assert len(made) == 1
    finally:
        _tls_context.cache_clear()
