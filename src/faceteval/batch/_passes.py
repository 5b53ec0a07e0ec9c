"""The pass loop: run the work with misses collected, send them as a round, and again until none is missed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import anyio

from faceteval.batch._results import ImportTally
from faceteval.errors import ProviderError
from faceteval.llm import Collector, CompletionRequest

T = TypeVar("T")

SETTLE = 0.01
"""Seconds between two looks at whether every task of a pass waits (a task that waits on a thread can
make the loop look stalled while it is not: the pass is cut only once a collected request waits)."""


class Rounds(Protocol):
    """A provider's batch API as the pass loop uses it (`faceteval.batch.OpenAIBatchRunner`)."""

    def last_round(self) -> int:
        """The highest round recorded in the cache's ledger (0 if none)."""
        ...

    async def finish(self) -> ImportTally:
        """Wait for every recorded batch not yet imported, and import it."""
        ...

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        """Submit a round's requests (cache key, request) and record its batches."""
        ...


@dataclass(frozen=True, slots=True)
class Passes(Generic[T]):
    """The outcome of a batch run: the work's result (of the last pass, which missed nothing), the rounds
    this run sent, and what their batches (and a killed run's) brought into the cache."""

    result: T
    rounds: int
    imported: ImportTally


async def run_in_passes(
    work: Callable[[], Awaitable[T]],
    collector: Collector,
    batches: Rounds,
    *,
    on_round: Callable[[int, int], None] | None = None,
) -> Passes[T]:
    """Run ``work`` (whose LLMs have ``collector`` set) pass after pass until a pass misses nothing.

    The batches a killed run left are finished first, so that none of their requests is sent again.
    A pass runs until ``work`` ends or every task in it waits, with at least one collected request among
    them: the pass is then cut (cancelled), its requests are submitted as the next round and imported,
    and ``work`` runs again from the start, answered by the cache as far as it now goes. The last pass
    makes no call. ``on_round`` is told of each round (its number, its requests) before it is submitted.

    Raises:
        ProviderError: A round's batches answered none of its requests (failed batches: a request the
            API refuses, a quota): sending them again would not end.
    """
    imported = await batches.finish()
    first = batches.last_round()
    round = first
    while True:
        collector.requests.clear()
        finished, result = await _one_pass(work, collector)
        if finished:
            assert not collector.requests
            return Passes(result, round - first, imported)  # type: ignore[arg-type]
        round += 1
        if on_round is not None:
            on_round(round, len(collector.requests))
        await batches.submit(round, list(collector.requests.items()))
        answered = await batches.finish()
        if not answered.imported:  # the same requests would be sent again, and again
            raise ProviderError(
                f"round {round}: none of its {len(collector.requests):,} requests was answered by the "
                "batch API (see the warnings above for each batch's status); nothing more is submitted"
            )
        imported.add(answered)


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
