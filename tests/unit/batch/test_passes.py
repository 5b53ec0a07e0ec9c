"""The pass loop against the local files + batches server: a two-level method run in collecting passes gives
what the synchronous run gives, with one round per call level, each request sent once, no call made; a
round that answers nothing is sent again, and after three in a row its requests fail with the batch's
reason (a round that answers any starts the count again)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path

import anyio
import openai
import pytest

from faceteval.batch import STALLED_ROUNDS, OpenAIBatchRunner, run_in_passes
from faceteval.errors import ConfigError, ProviderError
from faceteval.llm import LLM, Collector, CompletionRequest, ModelSpec, Price, PriceTable, user
from faceteval.llm._openai import OpenAIProvider
from faceteval.store import SQLiteCache
from tests.support.batch_server import Fate, OpenAIBatches
from tests.support.llm_server import LLMServer

pytestmark = pytest.mark.anyio

SPEC = "openai:gpt-test"
PRICE = Price(2.0, 8.0)


@pytest.fixture
def served() -> Iterator[tuple[LLMServer, OpenAIBatches]]:
    server = LLMServer(lambda body: f"[{body['messages'][-1]['content']}]")
    batches = OpenAIBatches(server, polls_in_progress=1)
    with server:
        yield server, batches


@pytest.fixture
async def client(served: tuple[LLMServer, OpenAIBatches]) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(api_key="test", base_url=served[0].base_url, max_retries=0) as client:
        yield client


def _llm(server: LLMServer, cache: SQLiteCache, collector: Collector | None = None) -> LLM:
    provider = OpenAIProvider(api_key="test", base_url=server.base_url)
    return LLM(
        provider=provider,
        spec=ModelSpec.parse(SPEC),
        cache=cache,
        prices=PriceTable({SPEC: PRICE}),
        collector=collector,
    )


async def _method(llm: LLM, instances: int) -> list[str]:
    """Each instance asks two facets at once, then a verdict over both replies (a call depth of 2)."""
    verdicts = [""] * instances

    async def judge(n: int) -> None:
        facets = ["", ""]

        async def facet(f: int) -> None:
            facets[f] = (await llm.generate([user(f"item {n} facet {f}")])).completion.text

        async with anyio.create_task_group() as group:
            group.start_soon(facet, 0)
            group.start_soon(facet, 1)
        verdicts[n] = (await llm.generate([user(f"verdict on {' '.join(facets)}")])).completion.text

    async with anyio.create_task_group() as group:
        for n in range(instances):
            group.start_soon(judge, n)
    return verdicts


async def test_a_run_in_passes_gives_the_synchronous_result_with_a_round_per_call_level(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    server, batches = served
    batches.script(Fate("completed"), Fate("expired", answered=10))  # round 2 half expires: a third round
    with SQLiteCache(tmp_path / "sync.db") as sync_cache:
        sync_llm = _llm(server, sync_cache)
        synchronous = await sync_llm.closing_after(lambda: _method(sync_llm, 20))
    calls = server.request_count
    assert calls == 60
    server.reset()

    collector = Collector()
    with SQLiteCache(tmp_path / "batch.db") as cache:
        llm = _llm(server, cache, collector)
        outcome = await run_in_passes(lambda: _method(llm, 20), collector, _runner(client, cache, llm))
    assert outcome.result == synchronous
    assert outcome.rounds == 3
    assert [b["request_counts"]["total"] for b in batches.created] == [40, 20, 10]
    custom_ids = _sent(batches)
    assert len(custom_ids) == 70 and len(set(custom_ids)) == 60  # the expired 10 sent again, nothing else
    assert len(server.requests) == 60  # every reply came through a batch: no call of the last pass
    assert outcome.imported.imported == 60 and outcome.imported.failed == 10
    cost = PRICE.cost(outcome.imported.input_tokens, outcome.imported.output_tokens) / 2
    assert outcome.imported.cost_usd == pytest.approx(cost)


class Killed(Exception):
    """The run stopped (kill -9) right after a round's batches were recorded."""


class KilledAfterSubmitting(OpenAIBatchRunner):
    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        rows = await super().submit(round, requests)
        if round == 2:
            raise Killed
        return rows


async def test_a_run_killed_once_a_round_was_submitted_resumes_with_those_batches_and_resubmits_nothing(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    server, batches = served
    with SQLiteCache(tmp_path / "sync.db") as sync_cache:
        sync_llm = _llm(server, sync_cache)
        synchronous = await sync_llm.closing_after(lambda: _method(sync_llm, 10))
    path = tmp_path / "batch.db"
    with SQLiteCache(path) as cache:
        collector = Collector()
        llm = _llm(server, cache, collector)
        killed = KilledAfterSubmitting(
            client, cache, identity=llm.identity, model="gpt-test", price=PRICE, poll_interval=0.01
        )
        with pytest.raises(Killed):
            await run_in_passes(lambda: _method(llm, 10), collector, killed)
    assert [b["status"] for b in batches.created] == ["completed", "validating"]
    with SQLiteCache(path) as cache:  # the re-run
        collector = Collector()
        llm = _llm(server, cache, collector)
        outcome = await run_in_passes(lambda: _method(llm, 10), collector, _runner(client, cache, llm))
    assert outcome.result == synchronous and outcome.rounds == 0  # the killed run's round 2 was all it needed
    assert len(batches.created) == 2 and sorted(_sent(batches)) == sorted(set(_sent(batches)))
    with SQLiteCache(path) as cache:
        assert [row.round for row in cache.batches.all()] == [1, 2]


def _runner(client: openai.AsyncOpenAI, cache: SQLiteCache, llm: LLM) -> OpenAIBatchRunner:
    return OpenAIBatchRunner(
        client, cache, identity=llm.identity, model="gpt-test", price=PRICE, poll_interval=0.01
    )


def _sent(batches: OpenAIBatches) -> list[str]:
    return [line["custom_id"] for b in batches.created for line in batches.input_lines(b["id"])]


def test_collecting_needs_the_cache(llm_server: LLMServer) -> None:
    with pytest.raises(ConfigError, match="needs the response cache"):
        _llm_without_cache(llm_server)


def _llm_without_cache(server: LLMServer) -> LLM:
    provider = OpenAIProvider(api_key="test", base_url=server.base_url)
    return LLM(provider=provider, spec=ModelSpec.parse(SPEC), collector=Collector())


async def _failing_soft(llm: LLM, instances: int) -> list[str]:
    """`_method`'s calls, each instance failing alone on a provider error (as the methods' instances do)."""
    verdicts = [""] * instances

    async def judge(n: int) -> None:
        try:
            facet = (await llm.generate([user(f"item {n} facet 0")])).completion.text
            verdicts[n] = (await llm.generate([user(f"verdict on {facet}")])).completion.text
        except ProviderError as exc:
            verdicts[n] = f"failed: {type(exc).__name__}: {exc}"

    async with anyio.create_task_group() as group:
        for n in range(instances):
            group.start_soon(judge, n)
    return verdicts


async def test_a_round_whose_batches_all_fail_is_sent_three_times_then_its_requests_fail(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    server, batches = served
    batches.max_requests = 3  # the account's limit is lower than the runner's: every batch fails
    with SQLiteCache(tmp_path / "batch.db") as cache:
        collector = Collector()
        llm = _llm(server, cache, collector)
        runner = _runner(client, cache, llm)
        outcome = await run_in_passes(lambda: _failing_soft(llm, 20), collector, runner, backoff=0)
    assert [b["status"] for b in batches.created] == ["failed"] * STALLED_ROUNDS
    assert outcome.rounds == STALLED_ROUNDS and len(outcome.unanswered) == 20
    assert all(v.startswith("failed: BatchUnanswered: no batch answered") for v in outcome.result)
    assert all("the batch failed: line None: more than 3 requests" in v for v in outcome.result)
    assert len(server.requests) == 0  # nothing asked one by one


async def test_a_round_that_answers_some_starts_the_count_again(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    """Rounds 1-2 answer nothing, round 3 answers half, rounds 4-6 nothing: only then are their requests
    given up."""
    server, batches = served
    nothing, half = Fate("expired", answered=0), Fate("expired", answered=10)
    batches.script(nothing, nothing, half, nothing, nothing, nothing)
    with SQLiteCache(tmp_path / "batch.db") as cache:
        collector = Collector()
        llm = _llm(server, cache, collector)
        runner = _runner(client, cache, llm)
        outcome = await run_in_passes(lambda: _failing_soft(llm, 20), collector, runner, backoff=0)
    # round 4 asks round 3's 10 unanswered facets and the verdicts of its 10 answered ones
    assert [b["request_counts"]["total"] for b in batches.created] == [20] * 6
    assert outcome.rounds == 6 and len(outcome.unanswered) == 20  # after rounds 4-6, not after 4
    assert all(v.startswith("failed: BatchUnanswered") for v in outcome.result)
    assert all("could not be executed before the completion window expired" in v for v in outcome.result)
