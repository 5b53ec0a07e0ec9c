"""Why each attempt of a retried call failed: in the log line of each retry and in the final error, and
for calls that time out, the hint to wait longer or send fewer at once."""

from __future__ import annotations

import logging

import pytest

from faceteval.errors import ProviderServerError, ProviderTimeout, RateLimitError
from faceteval.llm import LLM, ModelSpec, RetryPolicy, ScriptedProvider, user
from faceteval.llm._openai import OpenAIProvider
from tests.support.llm_server import Hang, LLMServer

pytestmark = pytest.mark.anyio
FAST = RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.001)
SPEC = ModelSpec("openai", "judge")


async def test_the_final_error_says_why_each_attempt_failed(caplog: pytest.LogCaptureFixture) -> None:
    provider = ScriptedProvider.sequence(
        [
            ProviderServerError("server at x answered HTTP 503: busy", status=503),
            RateLimitError("server at x answered HTTP 429: slow down"),
            ProviderServerError("server at x answered HTTP 502: bad gateway", status=502),
        ]
    )
    with caplog.at_level(logging.INFO, logger="faceteval"), pytest.raises(ProviderServerError) as failed:
        await LLM(provider, SPEC, retry=FAST).generate([user("q")])

    message = str(failed.value)
    assert message.startswith("server at x answered HTTP 502: bad gateway")
    assert message.endswith("(after 3 attempts: HTTP 503; HTTP 429 (rate limited); HTTP 502)")
    assert failed.value.attempts == 3
    retried = [r.getMessage() for r in caplog.records if "retrying in" in r.getMessage()]
    assert [m.split("failed (")[1].split(":")[0] for m in retried] == ["HTTP 503", "HTTP 429 (rate limited)"]


async def test_a_call_that_fails_at_once_says_nothing_of_attempts() -> None:
    provider = ScriptedProvider.sequence([ProviderServerError("HTTP 503: busy", status=503)])
    with pytest.raises(ProviderServerError) as failed:
        await LLM(provider, SPEC, retry=RetryPolicy(max_retries=0)).generate([user("q")])
    assert str(failed.value) == "HTTP 503: busy"


async def test_calls_that_time_out_on_a_busy_server_suggest_fewer_at_once_or_a_longer_timeout() -> None:
    with LLMServer(lambda _body: Hang(5)) as server:
        provider = OpenAIProvider(api_key="x", base_url=server.base_url)
        llm = LLM(
            provider, SPEC, retry=RetryPolicy(max_retries=1, initial_delay=0.0), timeout=0.2, concurrency=4
        )
        with pytest.raises(ProviderTimeout) as failed:
            await llm.closing_after(lambda: llm.generate([user("q")]))
    message = str(failed.value)
    assert "no reply within 0.2 s (set --timeout to wait longer, or lower --concurrency (now 4)" in message
    assert message.endswith("(after 2 attempts: timed out after 0.2 s; timed out after 0.2 s)")


async def test_one_call_at_a_time_is_only_told_of_the_timeout() -> None:
    with LLMServer(lambda _body: Hang(5)) as server:
        provider = OpenAIProvider(api_key="x", base_url=server.base_url)
        llm = LLM(provider, SPEC, retry=RetryPolicy(max_retries=0), timeout=0.1, concurrency=1)
        with pytest.raises(ProviderTimeout, match=r"no reply within 0.1 s \(set --timeout to wait longer\)$"):
            await llm.closing_after(lambda: llm.generate([user("q")]))
