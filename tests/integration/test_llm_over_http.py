"""The LLM wrapper through the real openai SDK and a local server: retries, timeouts, bad replies, cache."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from faceteval import DnA, Instance, judge
from faceteval.errors import (
    BadResponseError,
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderServerError,
    ProviderUnreachableError,
    ReplyTooLargeError,
)
from faceteval.llm import LLM, RetryPolicy, user
from faceteval.store import SQLiteCache
from tests.support.llm_server import (
    Disconnect,
    EmptyChoices,
    Hang,
    HugeBody,
    LLMServer,
    RawBody,
    Reply,
    Status,
)
from tests.support.raw_server import GARBAGE, RawServer, http_reply
from tests.support.rule_judge import RuleJudge

pytestmark = pytest.mark.anyio
FAST = RetryPolicy(max_retries=6, initial_delay=0.01, max_delay=0.05)
MB = 1_000_000


def llm_for(server: LLMServer, **options: object) -> LLM:
    return LLM.from_spec("openai:judge", base_url=server.base_url, env={}, **options)  # type: ignore[arg-type]


async def test_every_kind_of_failure_is_retried_until_a_reply(llm_server: LLMServer) -> None:
    llm_server.enqueue(
        Status(429, headers={"retry-after": "1"}),
        Status(500),
        Hang(5),
        RawBody("<html><body>502 Bad Gateway</body></html>"),
        EmptyChoices(),
        Disconnect(),
        Reply("8 6\nfine"),
    )
    llm = llm_for(llm_server, retry=FAST, timeout=0.5)
    try:
        exchange = await llm.generate([user("rate these")])
    finally:
        await llm.aclose()
    assert exchange.completion.text == "8 6\nfine"
    assert exchange.attempts == 7
    times = [r.received_at for r in llm_server.requests]
    assert len(times) == 7
    assert times[1] - times[0] >= 1.0  # Retry-After: 1 was honoured
    # The hanging request was abandoned at the timeout: not before 0.5 s from the start of its
    # attempt (which follows the reply to the one before), and well before the server's 5 s.
    assert times[3] - times[1] >= 0.5
    assert times[3] - times[2] < 5.0


async def test_retries_run_out_with_a_clear_error(llm_server: LLMServer) -> None:
    llm_server.enqueue(*[Status(503)] * 3)
    retry = RetryPolicy(max_retries=2, initial_delay=0.01, max_delay=0.01)
    llm = llm_for(llm_server, retry=retry)
    try:
        with pytest.raises(ProviderServerError, match="HTTP 503") as caught:
            await llm.generate([user("q")])
    finally:
        await llm.aclose()
    assert caught.value.status == 503
    assert len(llm_server.requests) == 3


async def test_bad_bodies_are_errors_not_replies(llm_server: LLMServer) -> None:
    llm_server.enqueue(RawBody("not json", content_type="application/json"), EmptyChoices())
    llm = llm_for(llm_server, retry=RetryPolicy(max_retries=0))
    try:
        for _ in range(2):
            with pytest.raises(BadResponseError):
                await llm.generate([user("q")])
    finally:
        await llm.aclose()


async def test_a_reply_with_half_a_character_is_cached_with_the_replacement_character(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    body = (
        '{"model": "judge", "choices": [{"index": 0, "finish_reason": "length", '
        '"message": {"role": "assistant", "content": "8 6\\n\\ud83d\\ude00 cut \\ud83d"}}]}'
    )
    llm_server.enqueue(RawBody(body, content_type="application/json"))
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        llm = llm_for(llm_server, cache=cache)
        try:
            first = await llm.generate([user("rate these")])
            again = await llm.generate([user("rate these")])
        finally:
            await llm.aclose()
    assert first.completion.text == again.completion.text == "8 6\n\N{GRINNING FACE} cut \ufffd"
    assert again.cached and len(llm_server.requests) == 1


def test_dna_over_http_then_again_from_cache(tmp_path: Path) -> None:
    rule = RuleJudge(quality={"good": 8, "bad": 3})
    pairs = [Instance(id=str(i), query=f"Q{i % 2}", candidates=("good", "bad")) for i in range(4)]
    with LLMServer(rule.for_server()) as server, SQLiteCache(tmp_path / "c.sqlite") as cache:
        llm = llm_for(server, cache=cache)
        first = judge(pairs, DnA(), llm)
        made = len(server.requests)
        second = judge(pairs, DnA(), llm)  # the same LLM, a new event loop: connections are reopened
        # per query, aspects and weights; per distinct pair, three facet scores (pairs 0 and 2, and
        # 1 and 3, are the same question and answers: their identical calls are made once)
        assert len(server.requests) == made == 2 * 2 + 2 * 3
    assert [j.verdict for j in first] == [j.verdict for j in second] == [1, 1, 1, 1]
    assert all(j.usage.cached_calls == j.usage.calls for j in second)


async def test_a_reply_over_the_limit_is_retried_once_and_never_cached(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.enqueue(HugeBody(60 * MB), HugeBody(60 * MB, content_length=True), Reply("8 6\nfine"))
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        llm = llm_for(llm_server, retry=FAST, cache=cache)
        try:
            with pytest.raises(ReplyTooLargeError, match="--max-reply-bytes") as caught:
                await llm.generate([user("rate these")])
            assert caught.value.attempts == 2  # once more, not the policy's six times
            assert len(llm_server.requests) == 2 and len(cache) == 0
            assert (await llm.generate([user("rate these")])).completion.text == "8 6\nfine"
        finally:
            await llm.aclose()
            assert len(cache) == 1


async def test_a_refused_connection_stops_at_once_until_a_call_has_succeeded() -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    llm = LLM.from_spec("openai:judge", base_url=url, env={}, retry=FAST)
    try:
        # A wrong port, or a server not started: one quick retry, then an error that stops a run.
        with pytest.raises(ProviderUnreachableError) as caught:
            await llm.generate([user("first")])
        assert str(caught.value) == f"cannot connect to {url}: connection refused; is the server running?"
        assert caught.value.attempts == 2 and not caught.value.retryable
        # Once the server has answered, a refused connection is a server restarting: retried as usual.
        with LLMServer(port=port) as server:
            assert (await llm.generate([user("second")])).completion.text == "OK"
            server.stop()
            with pytest.raises(ProviderConnectionError) as later:
                await llm.generate([user("third")])
        assert type(later.value) is ProviderConnectionError and later.value.retryable
        assert later.value.attempts == FAST.max_retries + 1
    finally:
        await llm.aclose()


def _completion(text: str) -> dict[str, object]:
    return {
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]
    }


async def test_a_server_that_does_not_speak_http_is_taken_for_a_wrong_address_until_a_call_succeeded() -> (
    None
):
    garbage = GARBAGE["garbage-then-close"]
    with RawServer(lambda index, request: garbage()) as server:
        llm = LLM.from_spec("openai:judge", base_url=server.base_url, env={}, retry=FAST)
        try:
            # Another service on that port: one quick retry, then an error that stops a run.
            with pytest.raises(ProviderUnreachableError) as caught:
                await llm.generate([user("first")])
        finally:
            await llm.aclose()
        assert len(server.requests) == 2
    assert "answered with something that is not HTTP" in str(caught.value)
    assert caught.value.attempts == 2 and not caught.value.retryable
    assert isinstance(caught.value.__cause__, ProviderProtocolError)
    # Once a call has succeeded, a reply that is not HTTP is a server gone wrong: retried as usual.
    with RawServer(
        lambda index, request: http_reply(_completion("8 6")) if index == 0 else garbage()
    ) as server:
        llm = LLM.from_spec("openai:judge", base_url=server.base_url, env={}, retry=FAST)
        try:
            assert (await llm.generate([user("second")])).completion.text == "8 6"
            with pytest.raises(ProviderProtocolError) as later:
                await llm.generate([user("third")])
        finally:
            await llm.aclose()
        assert len(server.requests) == 1 + FAST.max_retries + 1
    assert later.value.retryable and later.value.attempts == FAST.max_retries + 1
