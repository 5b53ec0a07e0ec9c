"""The pass loop: run the work with misses collected, send them as a round, and again until none is missed."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import anyio

from faceteval._util.text import plural
from faceteval.batch._results import ImportTally
from faceteval.llm import Collector, CompletionRequest

T = TypeVar("T")
logger = logging.getLogger(__name__)

SETTLE = 0.01
"""Seconds between two looks at whether every task of a pass waits (a task that waits on a thread can
make the loop look stalled while it is not: the pass is cut only once a collected request waits)."""


class Rounds(Protocol):
    """A provider's batch API as the pass loop uses it (`faceteval.batch.OpenAIBatchRunner`).

    The tally `finish` returns says why each request it did not answer was not (``reasons``). Rounds
    answered between runs (`faceteval.batch.FileRounds`) also have ``stalled()``, the `Stall` their
    ledger shows when a run starts, and ``gave_up(stall)``, told when a run gives its requests up.
    """

    def last_round(self) -> int:
        """The highest round recorded in the cache's ledger (0 if none)."""
        ...

    async def finish(self) -> ImportTally:
        """Wait for every recorded batch not yet imported, and import it."""
        ...

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        """Submit a round's requests (cache key, request) and record its batches."""
        ...


STALLED_ROUNDS = 3
"""Rounds in a row that answer none of their requests, after which those requests are given up for the
run: a round without answers is sent twice more (three attempts in all), then the work goes on without
them (each fails with `faceteval.errors.BatchUnanswered`)."""
DEFAULT_BACKOFF = 30.0
"""Seconds before a round without answers is sent again the first time (then twice as long each time)."""


@dataclass(frozen=True, slots=True)
class Passes(Generic[T]):
    """The outcome of a batch run: the work's result (of the last pass, which missed nothing), the rounds
    this run sent, what their batches (and a killed run's) brought into the cache, and the requests the
    rounds gave up on (by cache key, with the message each failed with)."""

    result: T
    rounds: int
    imported: ImportTally
    unanswered: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Stall:
    """The rounds in a row, up to the last one, that answered none of their requests.

    Attributes:
        rounds: How many (0: the last round answered some, or there was none).
        reasons: The last one's requests, by cache key, with why each was not answered ("": not said).
        carried: Counted from the rounds of earlier runs (`faceteval.batch.FileRounds`'s, one a run):
            those runs were the wait, and the next round is sent at once.
        rows: The last one's batches (their ledger rows).
    """

    rounds: int = 0
    reasons: Mapping[str, str] = field(default_factory=dict)
    carried: bool = False
    rows: tuple[int, ...] = ()


def retry_wait(stalled: int, first: float) -> float:
    """Seconds to wait before sending a round's requests again after ``stalled`` rounds in a row without
    answers: ``first``, doubling each time.

    Examples:
        >>> [retry_wait(n, 30.0) for n in (1, 2)]
        [30.0, 60.0]
    """
    return first * 2.0 ** (stalled - 1)


async def run_in_passes(
    work: Callable[[], Awaitable[T]],
    collector: Collector,
    batches: Rounds,
    *,
    on_round: Callable[[int, int], None] | None = None,
    backoff: float = DEFAULT_BACKOFF,
    stalls: int = STALLED_ROUNDS,
) -> Passes[T]:
    """Run ``work`` (whose LLMs have ``collector`` set) pass after pass until a pass misses nothing.

    The batches a killed run left are finished first, so that none of their requests is sent again.
    A pass runs until ``work`` ends or every task in it waits, with at least one collected request among
    them: the pass is then cut (cancelled), its requests are submitted as the next round and imported,
    and ``work`` runs again from the start, answered by the cache as far as it now goes. The last pass
    makes no call. ``on_round`` is told of each round (its number, its requests) before it is submitted.

    A round that answers none of its requests is sent again by the next pass (its requests are the same),
    ``backoff`` seconds later, then twice as long; a round that answers any starts the count again. After
    ``stalls`` such rounds in a row (`STALLED_ROUNDS`; for `faceteval.batch.FileRounds`, counted in the
    ledger across runs), their requests are given up: from the next pass on, each fails at once with
    `faceteval.errors.BatchUnanswered` and the batch's reason (an instance that needs one is an ``error``
    judgment), and the passes go on with the rest. They are in the outcome's ``unanswered``.
    """
    imported = await batches.finish()
    looked = getattr(batches, "stalled", None)
    stall: Stall = looked() if looked is not None else Stall()
    first = round = batches.last_round()
    unanswered: dict[str, str] = {}
    while True:
        collector.requests.clear()
        finished, result = await _one_pass(work, collector)
        if finished:
            assert not collector.requests
            return Passes(result, round - first, imported, unanswered)  # type: ignore[arg-type]
        requests = dict(collector.requests)
        if stall.rounds >= stalls and (stuck := requests.keys() & stall.reasons.keys()):
            unanswered.update(_give_up(stall, stuck, collector, batches))
            stall = Stall()
            continue  # the next pass goes on without them
        if stall.rounds and not stall.carried:
            await anyio.sleep(retry_wait(stall.rounds, backoff))
        round += 1
        answered = await _send(batches, round, requests, on_round)
        imported.add(answered)
        stall = _after(stall, requests, answered)


async def _send(
    batches: Rounds,
    round: int,
    requests: dict[str, CompletionRequest],
    on_round: Callable[[int, int], None] | None,
) -> ImportTally:
    """Submit ``requests`` as round ``round`` and wait for its batches; what they brought in."""
    if on_round is not None:
        on_round(round, len(requests))
    await batches.submit(round, list(requests.items()))
    return await batches.finish()


def _after(stall: Stall, requests: Mapping[str, CompletionRequest], answered: ImportTally) -> Stall:
    """The stall after a round of ``requests`` that brought ``answered`` in: none if it answered any, else
    one round more when it asked again (some of) the last stalled round's requests."""
    if answered.imported:
        return Stall()
    again = bool(requests.keys() & stall.reasons.keys())
    reasons = {key: answered.reasons.get(key, "") for key in requests}
    return Stall(stall.rounds + 1 if again else 1, reasons)


def _give_up(stall: Stall, stuck: Iterable[str], collector: Collector, batches: Rounds) -> dict[str, str]:
    """Give the requests ``stuck`` up: from now on each fails at once (`Collector.unanswered`) with the
    message returned for it; rounds that span runs are told (``gave_up``)."""
    given = {key: _given_up(stall, key) for key in sorted(stuck)}
    logger.warning(
        "giving up %s for this run: %d rounds in a row answered none (what needs them fails; the same "
        "command, run again, asks them again)",
        plural(len(given), "request"),
        stall.rounds,
    )
    collector.unanswered.update(given)
    if (note := getattr(batches, "gave_up", None)) is not None:
        note(stall)
    return given


def _given_up(stall: Stall, key: str) -> str:
    """The message a request the rounds gave up on fails with."""
    reason = stall.reasons.get(key) or "no reason given"
    return (
        f"no batch answered this request ({reason}), and {stall.rounds} rounds in a row answered none of "
        "their requests: run the same command again to ask it again"
    )


async def _one_pass(work: Callable[[], Awaitable[T]], collector: Collector) -> tuple[bool, T | None]:
    """Whether ``work`` finished before every task of it waited, and its result; what it raised is raised
    as it is (a request given up that the work does not catch: `faceteval.errors.BatchUnanswered`)."""
    outcome: list[T] = []
    failure: list[Exception] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            try:
                outcome.append(await work())
            except Exception as exc:  # raised below as it is, not in the group's ExceptionGroup
                failure.append(exc)
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
    if failure:
        raise failure[0]
    return bool(outcome), outcome[0] if outcome else None
