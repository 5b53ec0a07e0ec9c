"""A run's calls sent through a provider's batch API (``--batch``): collecting passes, then the run itself.

Each collecting pass runs the work with the LLM in collecting mode (`faceteval.llm.Collector`): cache
hits answer, misses are gathered and wait, nothing is written. Its misses go out as one round of
batches (`faceteval.batch.run_in_passes`), whose replies come back into the cache. Once a pass misses
nothing, the collector is taken off and the run proper (`judge_file`, ...) runs as a synchronous run
would, answered by the cache alone: its judgments are a synchronous run's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace

from faceteval import tracing
from faceteval._runner._file import FileJob, RunHooks, RunResult, Started, judge_file
from faceteval._runner._judge import Item, judge_each
from faceteval._runner._options import JudgeOptions
from faceteval.batch import BatchRun, ImportTally, Rounds, run_in_passes
from faceteval.errors import ConfigError
from faceteval.llm import LLM, Collector, CompletionRequest, Judge, Spend
from faceteval.methods import Method
from faceteval.store import BatchRecord


@dataclass(frozen=True, slots=True)
class BatchDone:
    """What a batch run's rounds did: the run record's ``batch``, and what they brought into the cache."""

    record: BatchRecord
    imported: ImportTally

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

    Raises:
        ConfigError: ``llm`` is a judge panel, or has no cache.
        ProviderError: A round's batches answered none of its requests.
    """
    if not isinstance(llm, LLM):
        raise ConfigError("--batch sends one model's calls; a judge panel is judged without it")
    counted = _Counted(batch.rounds)
    collector = Collector()
    llm.collector = collector
    try:
        with tracing.paused():
            passes = await run_in_passes(collect, collector, counted, on_round=batch.on_round)
    finally:
        llm.collector = None  # a miss would wait forever otherwise
    record = BatchRecord(
        provider=batch.kind, rounds=passes.rounds, batches=counted.batches, requests=passes.imported.imported
    )
    return BatchDone(record, passes.imported)


async def judge_file_in_batches(
    job: FileJob,
    instances: Callable[[], Iterable[Item]],
    items: Iterable[Item],
    method: Method,
    llm: Judge,
    *,
    options: JudgeOptions,
    result: RunResult,
    batch: BatchRun,
    hooks: RunHooks | None = None,
    started: Started | None = None,
) -> None:
    """`judge_file` with its calls sent through a batch API: collecting passes, each over ``instances()``
    (the instances read again: a new `faceteval.datasets.InstanceFile`), then ``judge_file`` of ``items``
    (the same instances), which calls nothing and writes a synchronous run's judgments. Its run record's
    spend adds the imported replies at the batch rate, and its ``batch`` says how they came.
    """
    # as they finish: a pass holds no judgment back for its turn, and ``batch.window`` instances wait
    collecting = replace(options, order="finish", window=batch.window)
    result.batch = await collect_in_rounds(
        llm, batch, lambda: judge_each(instances(), method, llm, options=collecting)
    )
    hooks = hooks or RunHooks()
    await judge_file(job, items, method, llm, options=options, result=result, hooks=hooks, started=started)


class _Counted:
    """`Rounds` that count the batches submitted."""

    def __init__(self, rounds: Rounds) -> None:
        self.rounds = rounds
        self.batches = 0

    def last_round(self) -> int:
        return self.rounds.last_round()

    async def finish(self) -> ImportTally:
        return await self.rounds.finish()

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        rows = await self.rounds.submit(round, requests)
        self.batches += len(rows)
        return rows
