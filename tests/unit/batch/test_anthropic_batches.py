"""Anthropic Message Batches through the official SDK against the local server: DnA-Eval with swapped
orders in batch passes gives the synchronous judgments; errored and expired requests go to the next round."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from faceteval import DnA, Instance, JudgeOptions, judge_async
from faceteval.batch import AnthropicBatchRunner, run_in_passes
from faceteval.batch._anthropic import requests_digest
from faceteval.llm import (
    LLM,
    Collector,
    CompletionRequest,
    GenerateConfig,
    ModelSpec,
    Price,
    PriceTable,
    user,
)
from faceteval.llm.internal import anthropic_batch_request
from faceteval.store import SQLiteCache
from tests.support.anthropic_batches import AnthropicBatches
from tests.support.batch_judging import seen
from tests.support.llm_server import LLMServer, Status
from tests.support.rule_judge import RuleJudge

pytestmark = pytest.mark.anyio

SPEC = "anthropic:claude-test"
PRICE = Price(3.0, 15.0)
PAIRS = [Instance(id=str(n), query=f"Q{n}", candidates=(f"weak {n}", f"strong {n}")) for n in range(12)]
OPTIONS = JudgeOptions(swap=True, window=1_000)


@pytest.fixture
def served() -> Iterator[tuple[LLMServer, AnthropicBatches]]:
    rule = RuleJudge(scorer=lambda text, _aspect: 8 if text.startswith("strong") else 4, record=False)
    server = LLMServer(lambda body: rule.respond(body["messages"]))
    batches = AnthropicBatches(server, polls_in_progress=1)
    with server:
        yield server, batches


def _llm(server: LLMServer, cache: SQLiteCache, collector: Collector | None = None) -> LLM:
    from faceteval.llm._anthropic import AnthropicProvider

    provider = AnthropicProvider(api_key="test", base_url=server.root_url)
    return LLM(
        provider, ModelSpec.parse(SPEC), cache=cache, prices=PriceTable({SPEC: PRICE}), collector=collector
    )


async def test_dna_in_anthropic_batch_passes_gives_the_synchronous_judgments_despite_failures(
    served: tuple[LLMServer, AnthropicBatches], tmp_path: Path
) -> None:
    import anthropic

    server, batches = served
    with SQLiteCache(tmp_path / "sync.db") as sync_cache:
        sync_llm = _llm(server, sync_cache)
        synchronous = await sync_llm.closing_after(
            lambda: judge_async(PAIRS, DnA(), sync_llm, options=OPTIONS)
        )
    calls = len(server.requests)
    server.reset()
    server.enqueue(Status(529))  # round 1's first request errors
    batches.expire(None, 5)  # round 2 expires after 5 answers
    collector = Collector()
    async with anthropic.AsyncAnthropic(api_key="test", base_url=server.root_url, max_retries=0) as client:
        with SQLiteCache(tmp_path / "batch.db") as cache:
            llm = _llm(server, cache, collector)
            runner = AnthropicBatchRunner(
                client, cache, identity=llm.identity, model="claude-test", price=PRICE, poll_interval=0.01
            )
            outcome = await llm.closing_after(
                lambda: run_in_passes(
                    lambda: judge_async(PAIRS, DnA(), llm, options=OPTIONS), collector, runner
                )
            )
            assert {row.status for row in cache.batches.all()} == {"imported"}
    assert seen(outcome.result) == seen(synchronous)
    assert all(j.status == "ok" for j in outcome.result)
    sent = [r["custom_id"] for b in batches.created for r in batches.requests[b["id"]]]
    assert len(set(sent)) == calls and len(server.requests) == calls + 1  # + the errored one, asked again
    assert outcome.imported.imported == calls
    assert outcome.imported.cost_usd == pytest.approx(
        PRICE.cost(outcome.imported.input_tokens, outcome.imported.output_tokens) / 2
    )
    assert outcome.rounds > 2  # DnA's two levels, and the failed requests' rounds


def _keyed(*texts: str) -> list[tuple[str, CompletionRequest]]:
    return [
        (f"key-{t}", CompletionRequest("claude-test", (user(t),), GenerateConfig(max_tokens=16)))
        for t in texts
    ]


def _record(cache: SQLiteCache, keyed: list[tuple[str, CompletionRequest]]) -> int:
    """The row `submit` writes just before its create call."""
    return cache.batches.uploaded(
        provider="anthropic",
        identity="anthropic",
        model="claude-test",
        round=1,
        input_file_id=requests_digest(k for k, _ in keyed),
        requests=len(keyed),
    )


async def test_a_batch_created_by_a_run_killed_before_recording_its_id_is_matched_and_not_paid_twice(
    served: tuple[LLMServer, AnthropicBatches], tmp_path: Path
) -> None:
    import anthropic

    server, batches = served
    ours, decoy = _keyed("a", "b", "c"), _keyed("x", "y", "z")
    async with anthropic.AsyncAnthropic(api_key="test", base_url=server.root_url, max_retries=0) as client:
        with SQLiteCache(tmp_path / "cache.db") as cache:
            _record(cache, ours)
            # the create call reached the provider; the run was killed before its answer was recorded
            made = await client.messages.batches.create(
                requests=[anthropic_batch_request(k, r) for k, r in ours]  # type: ignore[misc]
            )
            # another batch of the same size made later (another run, another tool): not ours
            await client.messages.batches.create(
                requests=[anthropic_batch_request(k, r) for k, r in decoy]  # type: ignore[misc]
            )
            runner = AnthropicBatchRunner(
                client, cache, identity="anthropic", model="claude-test", price=PRICE, poll_interval=0.01
            )
            tally = await runner.finish()
            (row,) = cache.batches.all()
            assert (row.batch_id, row.status) == (made.id, "imported")
            assert tally.imported == 3 and len(batches.created) == 2  # nothing made again
            assert all(cache.get(k) is not None for k, _ in ours)
            assert all(cache.get(k) is None for k, _ in decoy)


async def test_a_run_killed_before_its_create_call_reached_the_provider_asks_its_requests_again(
    served: tuple[LLMServer, AnthropicBatches], tmp_path: Path
) -> None:
    import anthropic

    server, batches = served
    async with anthropic.AsyncAnthropic(api_key="test", base_url=server.root_url, max_retries=0) as client:
        with SQLiteCache(tmp_path / "cache.db") as cache:
            _record(cache, _keyed("a", "b"))
            await client.messages.batches.create(  # same size, other requests: not the row's batch
                requests=[anthropic_batch_request(k, r) for k, r in _keyed("x", "y")]  # type: ignore[misc]
            )
            runner = AnthropicBatchRunner(
                client, cache, identity="anthropic", model="claude-test", price=PRICE, poll_interval=0.01
            )
            tally = await runner.finish()
            assert tally.imported == 0 and len(batches.created) == 1
            assert cache.batches.pending("anthropic") == []  # dropped: the next pass collects them again
