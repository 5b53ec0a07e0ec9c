"""Requests and tokens per minute: calls through the openai SDK to the local server are spread over
the time the limits imply, retries included, and LLMs that send with the same key to the same
endpoint share the limits (a panel's judges, whatever their models); other keys do not.

Elapsed times are checked from below only: a loaded machine makes a run slower, never faster than its
limit. The server's own clock checks how many requests it saw in any one second."""

from __future__ import annotations

import time
from collections.abc import Sequence

import anyio
import pytest

from faceteval.errors import ConfigError
from faceteval.llm import LLM, CompletionRequest, GenerateConfig, ModelSpec, Panel, RetryPolicy, user
from faceteval.llm._openai import OpenAIProvider
from faceteval.llm._rate import RateKey, request_tokens
from tests.support.llm_server import LLMServer, Reply, Status

pytestmark = pytest.mark.anyio

RPM = 600
"""Ten requests a second: twenty calls take at least 1.9 s."""
CALLS = 20
SLACK = 0.02
"""Seconds the elapsed time may fall short of the limit's: the clocks' resolution, not the machine's load."""
LATE = 2
"""Requests more than the limit allows that one window may see: a loaded machine can hold a request
back and let the next through at once, which brings them closer on the server's clock."""
FAST = RetryPolicy(max_retries=2, initial_delay=0.0, max_delay=0.0)


def llm_at(server: LLMServer, model: str = "judge", *, api_key: str = "k", **options: object) -> LLM:
    provider = OpenAIProvider(api_key=api_key, base_url=server.base_url)
    return LLM(provider, ModelSpec("openai", model), retry=FAST, **options)  # type: ignore[arg-type]


async def ask_all(llms: Sequence[LLM], calls: int) -> float:
    """Seconds ``calls`` different requests take, spread over ``llms`` and made at once."""
    start = time.monotonic()
    async with anyio.create_task_group() as group:
        for n in range(calls):
            group.start_soon(llms[n % len(llms)].generate, [user(f"question {n}")])
    return time.monotonic() - start


def most_in_a_second(server: LLMServer) -> int:
    """The most requests the server received in any one second (from each request on)."""
    times = sorted(request.received_at for request in server.requests)
    return max(sum(1 for t in times if start <= t < start + 1.0) for start in times)


async def test_calls_with_an_rpm_take_the_time_it_implies_and_the_server_sees_no_more(
    llm_server: LLMServer,
) -> None:
    llm = llm_at(llm_server, rpm=RPM)
    elapsed = await llm.closing_after(lambda: ask_all([llm], CALLS))

    assert len(llm_server.requests) == CALLS
    assert elapsed >= (CALLS - 1) * 60 / RPM - SLACK  # one call every 0.1 s, the first at once
    assert most_in_a_second(llm_server) <= RPM // 60 + LATE  # 20 at once without the limit


async def test_a_panels_judges_on_one_endpoint_and_key_share_the_limit(llm_server: LLMServer) -> None:
    judges = [llm_at(llm_server, "judge-a", rpm=RPM), llm_at(llm_server, "judge-b", rpm=RPM)]
    panel = Panel(judges)
    elapsed = await panel.closing_after(lambda: ask_all(panel.judges, CALLS))

    assert {r.body["model"] for r in llm_server.requests} == {"judge-a", "judge-b"}
    assert elapsed >= (CALLS - 1) * 60 / RPM - SLACK  # not half that: one limit for both
    assert most_in_a_second(llm_server) <= RPM // 60 + LATE
    assert panel.describe()["rpm"] == RPM


async def test_each_attempt_of_a_retried_call_takes_from_the_limit(llm_server: LLMServer) -> None:
    llm_server.enqueue(Status(503), Status(503), Reply("ok"))
    llm = llm_at(llm_server, rpm=RPM)
    start = time.monotonic()
    exchange = await llm.closing_after(lambda: llm.generate([user("q")]))

    assert exchange.attempts == 3
    assert time.monotonic() - start >= 2 * 60 / RPM - SLACK  # the retries waited for the limit, not 0 s


async def test_calls_with_a_tpm_take_the_time_their_estimated_tokens_imply(llm_server: LLMServer) -> None:
    tpm, config = 600_000, GenerateConfig(max_tokens=990)  # 10,000 tokens a second, about 1,000 a request
    llm = llm_at(llm_server, tpm=tpm, config=config)
    elapsed = await llm.closing_after(lambda: ask_all([llm], CALLS))

    tokens = sum(
        request_tokens(CompletionRequest("judge", (user(f"question {n}"),), config)) for n in range(CALLS)
    )
    per_second = tpm / 60  # what the bucket holds, and drains in a second
    assert tokens > 2 * per_second - 100  # the test asks for about two seconds' tokens
    assert elapsed >= (tokens - per_second) / per_second - SLACK  # a second's worth at once, then the rest


def test_limits_are_counted_by_endpoint_and_key() -> None:
    def key(api_key: str, url: str = "http://127.0.0.1:9/v1") -> RateKey:
        return OpenAIProvider(api_key=api_key, base_url=url).rate_key

    assert key("k1") == key("k1")
    assert key("k1") != key("k2")
    assert key("k1") != key("k1", "http://127.0.0.1:8/v1")
    assert key("k1") != key("k1", "http://u:p@127.0.0.1:9/v1")  # the URL's own credentials count too
    assert "k1" not in repr(key("k1"))  # a digest of the key, not the key


async def test_llms_with_other_keys_do_not_wait_for_each_other(llm_server: LLMServer) -> None:
    one, other = llm_at(llm_server, rpm=1), llm_at(llm_server, api_key="other", rpm=1)
    await one.generate([user("first")])  # the key's next request may go in a minute
    with anyio.fail_after(30):  # another key's first goes at once (were it shared, a minute's wait)
        await other.generate([user("second")])
    await one.aclose()
    await other.aclose()


def test_limits_that_cannot_be_kept_are_refused(llm_server: LLMServer) -> None:
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ConfigError, match="rpm must be a whole number per minute"):
            llm_at(llm_server, rpm=bad)
    with pytest.raises(ConfigError, match="tpm 500 is less than max_tokens 1024"):
        llm_at(llm_server, tpm=500)


async def test_the_limits_are_described_for_the_run_record(llm_server: LLMServer) -> None:
    assert "rpm" not in llm_at(llm_server).describe()
    described = llm_at(llm_server, rpm=60, tpm=90_000).describe()
    assert (described["rpm"], described["tpm"]) == (60, 90_000)
