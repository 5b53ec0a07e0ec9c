"""The public judging entry points: one async function and its blocking form."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path

import anyio

from faceteval._runner._batch import BatchDone, collect_in_rounds, from_cache
from faceteval._runner._file import FileJob, RunHooks, RunResult, checked_items, judge_file
from faceteval._runner._judge import RunAborted, check_arguments, judge_each
from faceteval._runner._options import DEFAULT_JUDGE_OPTIONS, JudgeOptions
from faceteval.batch import BatchRun
from faceteval.core import Instance, Judgment
from faceteval.datasets import InstanceFile
from faceteval.datasets.internal import PLAIN_READING
from faceteval.errors import ConfigError, InputError
from faceteval.llm import Judge
from faceteval.methods import Method


async def judge_async(
    instances: Iterable[Instance | InputError],
    method: Method,
    llm: Judge,
    *,
    options: JudgeOptions = DEFAULT_JUDGE_OPTIONS,
    out: str | Path | None = None,
    force: bool = False,
    batch: BatchRun | None = None,
) -> list[Judgment]:
    """Judge ``instances`` with ``method`` and ``llm``; one judgment per instance, in input order.

    With ``out``, the judgments are also written there, and its run record beside it
    (``<out>.run.json``), as ``faceteval judge`` writes them: put in place when the run ends,
    however it ends, naming the input file when ``instances`` are `read_instances` of one; the
    record holds the run's result (`faceteval.read_run(out).summary.result`). Without
    a response cache, the ok judgments of an earlier ``out`` of the same job are reused. ``out``
    may replace only an earlier output (or, with ``force``, any file but the input or the cache).

    Connections stay open for further calls in the same event loop; ``await llm.aclose()`` in that
    loop when done (connections belong to the loop that opened them: one left open when its loop
    ends cannot be closed from another).
    Failed instances are returned with status ``parse_error`` or ``error``, never dropped. When
    ``options.abort_after`` instances fail in a row, `RunAborted` is raised with the judgments
    finished so far in its ``judgments``.

    With ``batch`` (a `faceteval.batch.BatchRun` of `faceteval.batch.rounds_for`), the calls go
    through a provider's batch API first, in collecting passes (`collect_in_rounds`; ``instances``
    are listed, or a `read_instances` file read again): the judging then makes no call, and the run
    record of ``out`` says how the replies came, with their cost at the batch rate. An instance that
    needs a request the rounds gave up on (no batch answered it) is an ``error`` judgment whose error
    holds the batch's reason (`faceteval.errors.BatchUnanswered`); the record's ``batch.unanswered``
    counts those requests.

    Examples:
        >>> from faceteval import Direct, Instance, LLM
        >>> from faceteval.llm import ModelSpec, ScriptedProvider
        >>> provider = ScriptedProvider.sequence(["9 2\\nResponse 1 is right."])
        >>> llm = LLM(provider, ModelSpec("scripted", "demo"))
        >>> pair = Instance(id="1", query="2+2?", candidates=["4", "5"])
        >>> async def main() -> list[Judgment]:
        ...     try:
        ...         return await judge_async([pair], Direct(), llm)
        ...     finally:
        ...         await llm.aclose()
        >>> [(j.verdict, j.scores) for j in asyncio.run(main())]
        [(1, [9.0, 2.0])]
    """
    judgments: list[Judgment] = []
    done: BatchDone | None = None
    if batch is not None:
        check_arguments(instances, method, llm, options)
        instances, again = _again(instances)
        collecting = replace(options, order="finish", window=batch.window)
        done = await collect_in_rounds(
            llm, batch, lambda: judge_each(again(), method, llm, options=collecting)
        )
    try:
        with from_cache(llm, done):
            if out is None:
                await judge_each(instances, method, llm, options=options, sink=judgments.append)
            else:
                await _judge_into(
                    instances, method, llm, options, Path(out), force=force, sink=judgments, batch=done
                )
    except RunAborted as stopped:
        stopped.judgments = judgments
        raise
    return judgments


async def _judge_into(
    instances: Iterable[Instance | InputError],
    method: Method,
    llm: Judge,
    options: JudgeOptions,
    out: Path,
    *,
    force: bool,
    sink: list[Judgment],
    batch: BatchDone | None = None,
) -> None:
    """Judge into ``out`` with its run record, as the ``judge`` command does."""
    check_arguments(instances, method, llm, options)
    input_path = instances.path if isinstance(instances, InstanceFile) else None
    cache = getattr(llm.cache, "path", None)
    cache_file = Path(cache) if isinstance(cache, str) and cache != ":memory:" else None
    systems = instances.systems if isinstance(instances, InstanceFile) else None
    reading = instances.reading if isinstance(instances, InstanceFile) else PLAIN_READING
    job = FileJob.check(
        input_path,
        out,
        cache=cache_file,
        reuse=llm.cache is None,
        force=force,
        systems=systems,
        reading=reading,
    )
    items = checked_items(job, instances, method)
    result = RunResult(instances=job.instances, batch=batch)
    await judge_file(
        job, items, method, llm, options=options, result=result, hooks=RunHooks(judged=sink.append)
    )


def judge(
    instances: Iterable[Instance | InputError],
    method: Method,
    llm: Judge,
    *,
    options: JudgeOptions = DEFAULT_JUDGE_OPTIONS,
    out: str | Path | None = None,
    force: bool = False,
    batch: BatchRun | None = None,
) -> list[Judgment]:
    """Blocking form of `judge_async`; inside a running event loop, await that instead.

    The event loop is this call's own, so the LLM's connections are closed before it returns (the
    LLM stays usable: another call opens new ones).

    Raises:
        ConfigError: Called from a running event loop (a notebook, an ``async def``), where it cannot
            block: ``await judge_async(...)`` there.
        TypeError: An argument is not of its kind (see `judge_each`).

    Examples:
        >>> from faceteval import Direct, Instance, LLM
        >>> from faceteval.llm import ModelSpec, ScriptedProvider
        >>> provider = ScriptedProvider.sequence(["9 2\\nResponse 1 is right."])
        >>> llm = LLM(provider, ModelSpec("scripted", "demo"))
        >>> pair = Instance(id="1", query="2+2?", candidates=["4", "5"])
        >>> [(j.verdict, j.scores) for j in judge([pair], Direct(), llm)]
        [(1, [9.0, 2.0])]
    """
    check_arguments(instances, method, llm, options)
    if running_loop():
        raise ConfigError(
            "judge() cannot run inside a running event loop (a notebook cell, an async function): "
            "use `await judge_async(...)` there, and `await llm.aclose()` when done"
        )

    judging = partial(judge_async, instances, method, llm, options=options, out=out, force=force, batch=batch)
    return anyio.run(llm.closing_after, judging)


def _again(
    instances: Iterable[Instance | InputError],
) -> tuple[Iterable[Instance | InputError], Callable[[], Iterable[Instance | InputError]]]:
    """``instances`` to judge once, and how to read them again for each collecting pass: a
    `read_instances` file is read anew, anything else is listed."""
    if isinstance(instances, InstanceFile):
        file = instances
        return file, lambda: InstanceFile(file.path, systems=file.systems, reading=file.reading)
    listed = list(instances)
    return listed, lambda: listed


def running_loop() -> bool:
    """Whether this thread runs an event loop (where a blocking call cannot block)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
