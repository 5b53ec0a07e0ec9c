"""`rounds_for` picks a batch API by ``--batch`` kind from one table; `judge_async(batch=)` judges in batch
passes with no span made while collecting, and the run record says how the replies came."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from faceteval import DnA, Instance, JudgeOptions, judge_async, tracing
from faceteval.batch import BATCH_KINDS, AnthropicBatchRunner, BatchRun, OpenAIBatchRunner, rounds_for
from faceteval.errors import ConfigError
from faceteval.llm import LLM, Price, PriceTable
from faceteval.store import SQLiteCache
from tests.support.batch_server import OpenAIBatches
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

pytestmark = pytest.mark.anyio

PAIRS = [Instance(id=str(n), query=f"Q{n}", candidates=(f"weak {n}", f"strong {n}")) for n in range(8)]


@pytest.fixture
def served() -> Iterator[tuple[LLMServer, OpenAIBatches]]:
    rule = RuleJudge(scorer=lambda text, _aspect: 8 if text.startswith("strong") else 4, record=False)
    server = LLMServer(lambda body: rule.respond(body["messages"]))
    batches = OpenAIBatches(server, polls_in_progress=1)
    with server:
        yield server, batches


async def test_each_kind_builds_its_runner_with_the_endpoint_and_batch_price(tmp_path: Path) -> None:
    assert set(BATCH_KINDS) >= {"openai", "anthropic"}
    prices = PriceTable({"openai:m": Price(2.0, 8.0), "anthropic:m": Price(3.0, 15.0)})
    with SQLiteCache(tmp_path / "c.db") as cache:
        openai_llm = LLM.from_spec("openai:m", base_url="http://127.0.0.1:9/v1", cache=cache, prices=prices)
        runner = rounds_for("openai", openai_llm, cache, poll=0.5)
        assert isinstance(runner, OpenAIBatchRunner)
        assert str(runner.client.base_url).rstrip("/") == "http://127.0.0.1:9/v1"
        assert (runner.identity, runner.model, runner.poll_interval) == (openai_llm.identity, "m", 0.5)
        assert runner.price == Price(1.0, 4.0)
        await runner.aclose()
        claude = LLM.from_spec("anthropic:m", base_url="http://127.0.0.1:9", cache=cache, prices=prices)
        other = rounds_for("anthropic", claude, cache)
        assert isinstance(other, AnthropicBatchRunner) and other.price == Price(1.5, 7.5)
        await other.aclose()


@pytest.mark.parametrize(
    ("kind", "spec", "directory", "message"),
    [
        ("slurm", "openai:m", None, "--batch is one of openai, anthropic"),
        ("anthropic", "openai:m", None, "--batch anthropic sends anthropic's batch requests"),
        ("openai", "anthropic:m", None, "use --batch anthropic"),
        ("openai", "openai:m", Path("d"), "--batch-dir is for --batch files, not openai"),
    ],
)
def test_a_kind_refuses_what_it_cannot_serve(
    tmp_path: Path, kind: str, spec: str, directory: Path | None, message: str
) -> None:
    with SQLiteCache(tmp_path / "c.db") as cache:
        llm = LLM.from_spec(spec, base_url="http://127.0.0.1:9", cache=cache)
        with pytest.raises(ConfigError, match=message.replace("-", r"\-")):
            rounds_for(kind, llm, cache, directory=directory)


async def test_judge_async_with_batch_writes_the_synchronous_judgments_and_a_record_of_its_rounds(
    served: tuple[LLMServer, OpenAIBatches], tmp_path: Path
) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    server, batches = served
    options = JudgeOptions(swap=True)
    prices = PriceTable({"openai:judge": Price(2.0, 8.0)})
    with SQLiteCache(tmp_path / "sync.db") as cache:
        llm = LLM.from_spec("openai:judge", base_url=server.base_url, cache=cache, prices=prices)
        synchronous = await llm.closing_after(lambda: judge_async(PAIRS, DnA(), llm, options=options))
    calls = server.request_count
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider)
    try:
        with SQLiteCache(tmp_path / "batch.db") as cache:
            llm = LLM.from_spec("openai:judge", base_url=server.base_url, cache=cache, prices=prices)
            batch = BatchRun(rounds_for("openai", llm, cache, poll=0.0), "openai")
            out = tmp_path / "j.jsonl"
            judged = await llm.closing_after(
                lambda: judge_async(PAIRS, DnA(), llm, options=options, out=out, batch=batch)
            )
            await batch.rounds.aclose()  # type: ignore[attr-defined]
    finally:
        tracing.disable()
    spans = exporter.get_finished_spans()  # the last pass's only: none of the collecting passes' waits
    assert sum(span.name.startswith("chat ") for span in spans) == calls
    assert all(span.status.status_code.name != "ERROR" for span in spans)
    assert [j.model_dump(exclude={"usage", "trace"}) for j in judged] == [
        j.model_dump(exclude={"usage", "trace"}) for j in synchronous
    ]
    sent = [line["custom_id"] for b in batches.created for line in batches.input_lines(b["id"])]
    assert len(sent) == len(set(sent)) == calls == server.request_count - calls
    record: dict[str, Any] = json.loads(out.with_suffix(".run.json").read_text())
    assert record["batch"] == {
        "provider": "openai",
        "rounds": 2,
        "batches": 2,
        "requests": calls,
        "unanswered": 0,
    }
