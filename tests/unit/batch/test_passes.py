"""The pass loop against the local files + batches server: a two-level method run in collecting passes gives
what the synchronous run gives, with one round per call level, each request sent once, no call made."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path

import anyio
import openai
import pytest

from faceteval.batch import OpenAIBatchRunner, run_in_passes
from faceteval.errors import ConfigError
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
    sent: list[int] = []
    with SQLiteCache(tmp_path / "batch.db") as cache:
        llm = _llm(server, cache, collector)
        runner = OpenAIBatchRunner(
            client, cache, identity=llm.identity, model="gpt-test", price=PRICE, poll_interval=0.01
        )

        async def send(round: int, requests: Mapping[str, CompletionRequest]) -> None:
            sent.append(len(requests))
            await runner.submit(round, requests.items())
            await runner.finish()

        outcome = await run_in_passes(lambda: _method(llm, 20), collector, send)
    assert outcome.result == synchronous
    assert outcome.rounds == 3 and sent == [40, 20, 10]
    custom_ids = [line["custom_id"] for b in batches.created for line in batches.input_lines(b["id"])]
    assert len(custom_ids) == 70 and len(set(custom_ids)) == 60  # the expired 10 sent again, nothing else
    assert len(server.requests) == 60  # every reply came through a batch: no call of the last pass


def test_collecting_needs_the_cache(llm_server: LLMServer) -> None:
    with pytest.raises(ConfigError, match="needs the response cache"):
        _llm_without_cache(llm_server)


def _llm_without_cache(server: LLMServer) -> LLM:
    provider = OpenAIProvider(api_key="test", base_url=server.base_url)
    return LLM(provider=provider, spec=ModelSpec.parse(SPEC), collector=Collector())
