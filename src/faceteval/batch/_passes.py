"""The pass loop: run the work with misses collected, send them as a round, and again until none is missed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

import anyio

from faceteval.llm import Collector, CompletionRequest

T = TypeVar("T")

Send = Callable[[int, Mapping[str, CompletionRequest]], Awaitable[None]]
"""Sends round ``n``'s requests (cache key to request) and returns once their replies are in the cache."""

SETTLE = 0.01
"""Seconds between two looks at whether every task of a pass waits (a task that waits on a thread can
make the loop look stalled while it is not: the pass is cut only once a collected request waits)."""


@dataclass(frozen=True, slots=True)
class Passes(Generic[T]):
    """The outcome of a batch run: the work's result (of the last pass, which missed nothing), and how
    many rounds of requests were sent."""

    result: T
    rounds: int


async def run_in_passes(work: Callable[[], Awaitable[T]], collector: Collector, send: Send) -> Passes[T]:
    """Run ``work`` (whose LLMs have ``collector`` set) pass after pass until a pass misses nothing.

    A pass runs until ``work`` ends or every task in it waits, with at least one collected request among
    them: the pass is then cut (cancelled), its requests are sent as the next round, and ``work`` runs
    again from the start, answered by the cache as far as it now goes. The last pass makes no call.
    """
    rounds = 0
    while True:
        collector.requests.clear()
        finished, result = await _one_pass(work, collector)
        if finished:
            assert not collector.requests
            return Passes(result, rounds)  # type: ignore[arg-type]
        rounds += 1
        await send(rounds, dict(collector.requests))


async def _one_pass(work: Callable[[], Awaitable[T]], collector: Collector) -> tuple[bool, T | None]:
    outcome: list[T] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            outcome.append(await work())
            group.cancel_scope.cancel()

        async def watch() -> None:
            while True:
                await anyio.wait_all_tasks_blocked()
                if collector.waiting:
                    group.cancel_scope.cancel()
                    return
                await anyio.sleep(SETTLE)

        group.start_soon(run)
        group.start_soon(watch)
    return bool(outcome), outcome[0] if outcome else None
