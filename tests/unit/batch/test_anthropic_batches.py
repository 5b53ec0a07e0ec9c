"""Anthropic Message Batches through the official SDK against the local server: DnA-Eval with swapped
orders in batch passes gives the synchronous judgments; errored and expired requests go to the next round."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest

from faceteval import DnA, Instance, JudgeOptions, Judgment, judge_async
from faceteval.batch import AnthropicBatchRunner, run_in_passes
from faceteval.llm import (
    LLM,
    Collector,
    CompletionRequest,
    GenerateConfig,
    ModelSpec,
    Price,
    PriceTable,
    anthropic_batch_request,
    user,
)
from faceteval.llm._anthropic import AnthropicProvider
from faceteval.store import SQLiteCache
from tests.support.anthropic_batches import AnthropicBatches
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
    provider = AnthropicProvider(api_key="test", base_url=server.root_url)
    return LLM(
        provider, ModelSpec.parse(SPEC), cache=cache, prices=PriceTable({SPEC: PRICE}), collector=collector
    )


def _seen(judgments: list[Judgment]) -> list[tuple[Any, ...]]:
    return [(j.id, j.status, j.verdict, j.scores, [(o.order, o.scores) for o in j.orders]) for j in judgments]


async def test_dna_in_anthropic_batch_passes_gives_the_synchronous_judgments_despite_failures(
    served: tuple[LLMServer, AnthropicBatches], tmp_path: Path
) -> None:
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
    assert _seen(outcome.result) == _seen(synchronous)
    assert all(j.status == "ok" for j in outcome.result)
    sent = [r["custom_id"] for b in batches.created for r in batches.requests[b["id"]]]
    assert len(set(sent)) == calls and len(server.requests) == calls + 1  # + the errored one, asked again
    assert outcome.imported.imported == calls
    assert outcome.imported.cost_usd == pytest.approx(
        PRICE.cost(outcome.imported.input_tokens, outcome.imported.output_tokens) / 2
    )
    assert outcome.rounds > 2  # DnA's two levels, and the failed requests' rounds


async def test_a_batch_made_while_a_killed_run_waited_for_its_id_is_found_and_not_made_again(
    served: tuple[LLMServer, AnthropicBatches], tmp_path: Path
) -> None:
    server, batches = served
    keys = [(f"{n:064x}", _request(n)) for n in range(3)]
    async with anthropic.AsyncAnthropic(api_key="test", base_url=server.root_url, max_retries=0) as client:
        with SQLiteCache(tmp_path / "batch.db") as cache:
            runner = AnthropicBatchRunner(
                client, cache, identity="anthropic@test", model="claude-test", price=PRICE, poll_interval=0.01
            )
            other = await client.messages.batches.create(requests=[_line(k, r) for k, r in keys[:2]])
            # the killed run: recorded, then killed after the create call was sent, before its answer
            row = cache.batches.uploaded(
                provider="anthropic", identity="anthropic@test", model="claude-test", round=1,
                input_file_id="sha256:x", requests=3,
            )  # fmt: skip
            made = await client.messages.batches.create(requests=[_line(k, r) for k, r in keys])
            tally = await runner.finish()
            (recorded,) = cache.batches.all()
            assert recorded.row == row and recorded.batch_id == made.id != other.id
            assert tally.imported == 3 and len(batches.created) == 2  # found, not made again
            assert all(cache.get(k) is not None for k, _ in keys)


def _request(n: int) -> CompletionRequest:
    return CompletionRequest("claude-test", (user(f"Q{n}"),), GenerateConfig(max_tokens=16))


def _line(key: str, request: CompletionRequest) -> Any:
    return anthropic_batch_request(key, request)
