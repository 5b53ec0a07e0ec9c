"""A run's calls sent through a provider's batch API (``--batch``): collecting passes, then the run itself.

Each collecting pass runs the work with the LLM in collecting mode (`faceteval.llm.Collector`): cache
hits answer, misses are gathered and wait, nothing is written. Its misses go out as one round of
batches (`faceteval.batch.run_in_passes`), whose replies come back into the cache. Once a pass misses
nothing, the collector is taken off and the run proper (`faceteval._runner._run_job`, ...) runs as a
synchronous run would, answered by the cache alone: its judgments are a synchronous run's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from faceteval._util.text import plural
from faceteval.batch import BatchRun, ImportTally, Rounds, run_in_passes
from faceteval.errors import BatchIncomplete, ConfigError
from faceteval.llm import LLM, Collector, CompletionRequest, Judge, Spend
from faceteval.store import BatchRecord
from faceteval.tracing.internal import paused

MESSAGE_SHOWN = 500
"""Characters of the first unanswered request's message shown in the error a run ends with."""


@dataclass(frozen=True, slots=True)
class BatchDone:
    """What a batch run's rounds did: the run record's ``batch``, what they brought into the cache, and
    the requests they gave up on (by cache key, with the message each fails with in the run proper)."""

    record: BatchRecord
    imported: ImportTally
    unanswered: Mapping[str, str] = field(default_factory=dict)

    def incomplete(self) -> BatchIncomplete | None:
        """The error a command ends with, once its outputs are written, when the rounds gave up on some
        requests; None when every request was answered."""
        count = len(self.unanswered)
        if not count:
            return None
        first = next(iter(self.unanswered.values()))
        shown = first if len(first) <= MESSAGE_SHOWN else f"{first[:MESSAGE_SHOWN]}..."
        return BatchIncomplete(
            f"{plural(count, 'request')} given up by the batch rounds: what needed "
            f"{'them' if count > 1 else 'it'} is written as failed (status error). The first: {shown}"
        )

    def spend(self) -> Spend:
        """The imported replies' tokens and their cost at the batch rate, as LLM use."""
        cost = self.imported.cost_usd
        return Spend(
            input_tokens=self.imported.input_tokens,
            output_tokens=self.imported.output_tokens,
            cost_usd=cost or 0.0,
            cost_known=cost is not None,
        )


async def collect_in_rounds(
    llm: Judge, batch: BatchRun, collect: Callable[[], Awaitable[object]]
) -> BatchDone:
    """Run ``collect`` in collecting passes until one misses nothing; the replies are then all in the
    cache. Spans are not made meanwhile (every waiting call would be a cancelled one).

    Requests the rounds gave up on (`faceteval.batch.run_in_passes`) are in the outcome's ``unanswered``;
    the run proper then goes `from_cache`.

    Raises:
        ConfigError: ``llm`` is a judge panel, or has no cache.
    """
    if not isinstance(llm, LLM):
        raise ConfigError("--batch sends one model's calls; a judge panel is judged without it")
    counted = _Counted(batch.rounds)
    collector = Collector()
    llm.collector = collector
    try:
        with paused():
            passes = await run_in_passes(
                collect, collector, counted, on_round=batch.on_round, backoff=batch.backoff
            )
    finally:
        llm.collector = None  # a miss would wait forever otherwise
    record = BatchRecord(
        provider=batch.kind,
        rounds=passes.rounds,
        batches=counted.batches,
        requests=passes.imported.imported,
        unanswered=len(passes.unanswered),
    )
    return BatchDone(record, passes.imported, passes.unanswered)


@contextmanager
def from_cache(llm: Judge, done: BatchDone | None) -> Iterator[None]:
    """The run proper after a batch run's rounds (``done``; None: no batch run): answered by the cache,
    with no call made. A request the rounds gave up on fails with its batch's reason, and any other
    miss fails too (`faceteval.llm.Collector.after`): the batch price was asked for."""
    if done is None or not isinstance(llm, LLM):
        yield
        return
    llm.collector = Collector.after(done.unanswered)
    try:
        yield
    finally:
        llm.collector = None


class _Counted:
    """`Rounds` that count the batches submitted."""

    def __init__(self, rounds: Rounds) -> None:
        self.rounds = rounds
        self.batches = 0

    def __getattr__(self, name: str) -> Any:
        """The optional hooks of the rounds counted (``stalled``, ``gave_up``: `faceteval.batch.Rounds`)."""
        return getattr(self.rounds, name)

    def last_round(self) -> int:
        return self.rounds.last_round()

    async def finish(self) -> ImportTally:
        return await self.rounds.finish()

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        rows = await self.rounds.submit(round, requests)
        self.batches += len(rows)
        return rows
