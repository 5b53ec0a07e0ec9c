"""A real method judged in batch passes: DnA-Eval with swapped orders, through the official SDK against the
local files + batches server, gives the synchronous run's judgments with one round per call level (a
re-ask of an unreadable reply is one more level)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from faceteval.batch import OpenAIBatchRunner, run_in_passes
from faceteval.llm import Collector
from faceteval.store import SQLiteCache
from tests.support.batch_judging import MODEL, PRICE, judging, llm, pairs, responder, seen, synchronous
from tests.support.batch_server import OpenAIBatches
from tests.support.llm_server import LLMServer

pytestmark = pytest.mark.anyio

PAIRS = pairs(30)


@pytest.fixture
def served() -> Iterator[tuple[LLMServer, OpenAIBatches]]:
    server = LLMServer(responder())
    batches = OpenAIBatches(server, polls_in_progress=1)
    with server:
        yield server, batches


async def test_dna_with_swap_in_batch_passes_gives_the_synchronous_judgments(
    served: tuple[LLMServer, OpenAIBatches], tmp_path: Path
) -> None:
    server, batches = served
    with SQLiteCache(tmp_path / "sync.db") as sync_cache:
        sync = await synchronous(server, sync_cache, PAIRS)
    calls = len(server.requests)
    server.reset()
    collector = Collector()
    async with openai.AsyncOpenAI(api_key="test", base_url=server.base_url, max_retries=0) as client:
        with SQLiteCache(tmp_path / "batch.db") as cache:
            judge = llm(server, cache, collector)
            runner = OpenAIBatchRunner(
                client, cache, identity=judge.identity, model=MODEL, price=PRICE, poll_interval=0.01
            )
            outcome = await judge.closing_after(
                lambda: run_in_passes(judging(PAIRS, judge), collector, runner)
            )
    assert seen(outcome.result) == seen(sync)
    assert all(j.status == "ok" for j in outcome.result)
    sent = [line["custom_id"] for b in batches.created for line in batches.input_lines(b["id"])]
    assert len(sent) == len(set(sent)) == calls == len(server.requests)  # every call once, all by batch
    assert outcome.rounds == 3  # DnA's depth: the aspects (and weights), the scores, and Q7's re-asks
    (seventh,) = (j for j in outcome.result if j.id == "7")
    assert sum(e.stage.startswith("dna.score") for e in seventh.trace) == 12  # 3 aspects x 2 orders, re-asked
