"""OpenAI batch rounds through the official SDK against the local files + batches server: submitted within
the limits and recorded in the cache's ledger, imported into the cache under the synchronous path's keys,
priced at the batch rate; failed and expired requests left for the next pass; a killed run resubmits
nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import openai
import pytest

from faceteval.batch import OPENAI_LIMITS, Limits, OpenAIBatchRunner
from faceteval.llm import LLM, CompletionRequest, GenerateConfig, ModelSpec, Price, PriceTable, user
from faceteval.llm._openai import OpenAIProvider
from faceteval.llm.internal import cache_key, openai_batch_line
from faceteval.store import SQLiteCache
from tests.support.batch_server import Fate, OpenAIBatches
from tests.support.llm_server import LLMServer, Status

pytestmark = pytest.mark.anyio

PRICE = Price(2.0, 8.0)
SPEC = "openai:gpt-test"


@pytest.fixture
def served() -> Iterator[tuple[LLMServer, OpenAIBatches]]:
    server = LLMServer(lambda body: f"Score: {len(body['messages'][-1]['content'])}")
    batches = OpenAIBatches(server, polls_in_progress=1)
    with server:
        yield server, batches


@pytest.fixture
async def client(served: tuple[LLMServer, OpenAIBatches]) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(api_key="test", base_url=served[0].base_url, max_retries=0) as client:
        yield client


def _llm(server: LLMServer, cache: SQLiteCache) -> LLM:
    provider = OpenAIProvider(api_key="test", base_url=server.base_url)
    prices = PriceTable({SPEC: PRICE})
    return LLM(provider=provider, spec=ModelSpec.parse(SPEC), cache=cache, prices=prices)


def _runner(
    client: openai.AsyncOpenAI, cache: SQLiteCache, identity: str, limits: Limits = OPENAI_LIMITS
) -> OpenAIBatchRunner:
    return OpenAIBatchRunner(
        client, cache, identity=identity, model="gpt-test", price=PRICE, limits=limits, poll_interval=0.01
    )


def _requests(*texts: str, config: GenerateConfig | None = None) -> list[CompletionRequest]:
    return [CompletionRequest("gpt-test", (user(t),), config or GenerateConfig()) for t in texts]


async def test_a_round_imported_from_batches_is_what_the_synchronous_path_caches(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    server, batches = served
    texts = ("a", "bb", "ccc", "dddd", "eeeee")
    with SQLiteCache(tmp_path / "sync.db") as sync_cache, SQLiteCache(tmp_path / "batch.db") as cache:
        llm = _llm(server, sync_cache)
        synchronous = [await llm.generate(r.messages) for r in _requests(*texts)]
        await llm.aclose()
        keyed = [(cache_key(llm.identity, r), r) for r in _requests(*texts)]
        runner = _runner(client, cache, llm.identity, limits=Limits(requests=2, bytes=10_000))
        rows = await runner.submit(1, keyed + keyed[:1])  # a key asked twice is sent once
        assert [r.status for r in cache.batches.all()] == ["validating"] * 3
        tally = await runner.finish()

        assert len(rows) == len(batches.created) == 3
        sent = [line["custom_id"] for b in batches.created for line in batches.input_lines(b["id"])]
        assert sorted(sent) == sorted(k for k, _ in keyed)  # every key once
        assert (tally.imported, tally.failed) == (5, 0)
        for (key, _), exchange in zip(keyed, synchronous, strict=True):
            assert cache.get(key) == sync_cache.get(key) == exchange.completion
        spent = PRICE.cost(tally.input_tokens, tally.output_tokens)
        assert tally.cost_usd == pytest.approx(spent / 2)
        assert llm.spent.cost_usd == pytest.approx(spent)  # the synchronous run paid twice as much
        assert {r.status for r in cache.batches.all()} == {"imported"}
        assert {r.round for r in cache.batches.all()} == {1}


async def test_failed_and_expired_requests_are_left_for_the_next_pass(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    server, batches = served
    batches.script(Fate("completed"), Fate("expired", answered=1))
    server.enqueue(Status(500))
    keyed = [(f"key{n}", r) for n, r in enumerate(_requests("a", "b", "c", "d"))]
    with SQLiteCache(tmp_path / "cache.db") as cache:
        runner = _runner(client, cache, "openai", limits=Limits(requests=2, bytes=10_000))
        await runner.submit(1, keyed)
        tally = await runner.finish()
        assert (tally.imported, tally.failed) == (2, 2)
        assert [cache.get(k) is not None for k, _ in keyed] == [False, True, True, False]
        assert [r.status for r in cache.batches.all()] == ["imported", "imported"]
        await runner.submit(2, [(k, r) for k, r in keyed if cache.get(k) is None])
        assert (await runner.finish()).imported == 2
        assert all(cache.get(k) is not None for k, _ in keyed)


async def test_a_rerun_after_a_kill_polls_the_recorded_batches_and_resubmits_nothing(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    _, batches = served
    keyed = [(f"key{n}", r) for n, r in enumerate(_requests("a", "b", "c"))]
    path = tmp_path / "cache.db"
    with SQLiteCache(path) as cache:  # the run killed once its batch was made
        await _runner(client, cache, "openai").submit(1, keyed)
    with SQLiteCache(path) as cache:  # the re-run
        (row,) = cache.batches.pending("openai")
        assert (row.batch_id, row.requests, row.round) == (batches.created[0]["id"], 3, 1)
        tally = await _runner(client, cache, "openai").finish()
        assert tally.imported == 3 and len(batches.created) == 1
        assert cache.batches.pending("openai") == []


async def test_a_file_uploaded_by_a_run_killed_before_its_batch_was_recorded_is_matched_to_its_batch(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    _, batches = served
    keyed = [(f"key{n}", r) for n, r in enumerate(_requests("a", "b"))]
    lines = "".join(f"{openai_batch_line(k, r)}\n" for k, r in keyed)
    with SQLiteCache(tmp_path / "cache.db") as cache:
        made = []
        for created in (True, False):  # killed after the create call, and before it
            uploaded = await client.files.create(file=("r.jsonl", lines.encode()), purpose="batch")
            cache.batches.uploaded(
                provider="openai",
                identity="openai",
                model="gpt-test",
                round=1,
                input_file_id=uploaded.id,
                requests=2,
            )
            if created:
                made.append(
                    await client.batches.create(
                        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
                    )
                )
        tally = await _runner(client, cache, "openai").finish()
        assert tally.imported == 4
        assert len(batches.created) == 2  # one adopted, one made for the file that had none
        assert cache.batches.all()[0].batch_id == made[0].id


async def test_batches_of_another_endpoint_in_a_shared_cache_are_left_to_their_own_runs(
    served: tuple[LLMServer, OpenAIBatches], client: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    keyed = [(f"key{n}", r) for n, r in enumerate(_requests("a", "b"))]
    with SQLiteCache(tmp_path / "cache.db") as cache:
        await _runner(client, cache, "openai@http://elsewhere/v1").submit(1, keyed)  # a killed run's
        tally = await _runner(client, cache, "openai").finish()  # not this client's to ask
        assert tally.imported == 0
        (row,) = cache.batches.pending("openai")
        assert row.identity == "openai@http://elsewhere/v1"
