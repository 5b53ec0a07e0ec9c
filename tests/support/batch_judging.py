"""DnA-Eval with swapped orders against the local server, judged synchronously or in batch passes: what the
tests of ``--batch files`` and ``--batch ray`` share (a scripted unreadable reply adds a re-ask level)."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Set
from pathlib import Path
from typing import Any

from faceteval import DnA, Instance, JudgeOptions, Judgment, judge_async
from faceteval.llm import LLM, Collector, ModelSpec, Price, PriceTable
from faceteval.llm._openai import OpenAIProvider
from faceteval.store import SQLiteCache
from tests.support.llm_server import Behaviour, LLMServer, Status
from tests.support.rule_judge import RuleJudge

SPEC = "openai:gpt-test"
MODEL = "gpt-test"
PRICE = Price(2.0, 8.0)
OPTIONS = JudgeOptions(swap=True, window=1_000)


def pairs(n: int) -> list[Instance]:
    """``n`` pairs in which the second candidate is the stronger."""
    return [Instance(id=str(i), query=f"Q{i}", candidates=(f"weak {i}", f"strong {i}")) for i in range(n)]


def responder() -> Callable[[dict[str, Any]], str]:
    """The server's replies: scores by the candidates' strength; instance 7's first score asks unreadable."""
    rule = RuleJudge(scorer=lambda text, _aspect: 8 if text.startswith("strong") else 4, record=False)

    def respond(body: dict[str, Any]) -> str:
        messages = body["messages"]
        first_ask = all(m["role"] != "assistant" for m in messages)
        if first_ask and "Q7\n" in str(messages[-1]["content"]) and "on one aspect only:" in str(messages):
            return "I would rather not score this."  # unreadable: the method re-asks, one level deeper
        return rule.respond(messages)

    return respond


REFUSAL = "test server says HTTP 400"
"""The reason `Refusing` gives (the API's usual error object of a 400, whichever API asks)."""


class Refusing:
    """A responder that refuses (HTTP 400) every request about one of ``queries`` (a message holding
    ``Q<n>\\n``, as the pairs' prompts do) and answers the others as ``respond`` does: requests that no
    batch answers, whichever round they are in. ``queries`` may be changed between runs (empty: none)."""

    def __init__(self, respond: Callable[[dict[str, Any]], str | Behaviour], *queries: str) -> None:
        self.respond = respond
        self.queries = set(queries)

    def __call__(self, body: dict[str, Any]) -> str | Behaviour:
        texts = [str(message.get("content")) for message in body["messages"]]
        if any(f"{query}\n" in text for query in self.queries for text in texts):
            return Status(400)
        return self.respond(body)


def llm(server: LLMServer, cache: SQLiteCache, collector: Collector | None = None) -> LLM:
    """The judge's LLM on ``server`` (collecting when ``collector`` is given)."""
    provider = OpenAIProvider(api_key="test", base_url=server.base_url)
    return LLM(
        provider, ModelSpec.parse(SPEC), cache=cache, prices=PriceTable({SPEC: PRICE}), collector=collector
    )


def judging(items: list[Instance], judge: LLM) -> Callable[[], Awaitable[list[Judgment]]]:
    """The work of one pass: DnA-Eval with --swap over ``items``."""
    return lambda: judge_async(items, DnA(), judge, options=OPTIONS)


async def synchronous(server: LLMServer, cache: SQLiteCache, items: list[Instance]) -> list[Judgment]:
    """The judgments of a synchronous run."""
    judge = llm(server, cache)
    return await judge.closing_after(judging(items, judge))


def seen(judgments: list[Judgment]) -> list[tuple[Any, ...]]:
    """What two runs' judgments must agree on (usage aside)."""
    return [(j.id, j.status, j.verdict, j.scores, [(o.order, o.scores) for o in j.orders]) for j in judgments]


TIMING = {"cached", "attempts", "cached_calls", "usage", "reused"}
"""What says how a judgment's replies came (the cache, attempts), set by timing in any run."""


def pairs_file(tmp_path: Path, n: int) -> Path:
    """`pairs` ``n`` as an input file."""
    source = tmp_path / "pairs.jsonl"
    lines = (json.dumps({"id": p.id, "query": p.query, "candidates": list(p.candidates)}) for p in pairs(n))
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return source


def judge_command(source: Path, server: LLMServer, out: Path, cache: Path, *more: str) -> list[str]:
    """``faceteval judge`` with DnA-Eval and --swap on ``server``'s model ``judge``."""
    return [
        sys.executable, "-m", "faceteval", "judge", str(source), "--method", "dna", "--swap",
        "--model", "openai:judge", "--base-url", server.base_url, "--out", str(out), "--quiet",
        "--cache", str(cache), *more,
    ]  # fmt: skip


def judgments_in(path: Path, *, ignoring: Set[str] = TIMING) -> list[Any]:
    """The records of an output file, without the fields ``ignoring`` names (`TIMING`) and with each
    trace as a set (concurrent calls end in any order)."""
    return [_timeless(json.loads(line), ignoring) for line in path.read_text(encoding="utf-8").splitlines()]


def _timeless(value: Any, ignoring: Set[str]) -> Any:
    if isinstance(value, dict):
        kept = {k: _timeless(v, ignoring) for k, v in value.items() if k not in ignoring}
        if "trace" in kept:
            kept["trace"] = sorted(kept["trace"], key=json.dumps)
        return kept
    if isinstance(value, list):
        return [_timeless(v, ignoring) for v in value]
    return value
