"""Running a `JudgeJob`: the one path of every judge run, from the command line or from Python.

`run_job` (its own event loop) and `run_job_async` (the caller's) check the input and the outputs
before anything is opened, open the job's judge when it is a `JudgeSpec`, send the calls through a
batch API first in `BatchMode`, then judge: into ``outputs.out`` with its run record (or a stream),
else into the hooks alone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, ExitStack, asynccontextmanager, nullcontext
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, cast

import anyio

from faceteval._runner._batch import BatchDone, collect_in_rounds, from_cache
from faceteval._runner._file import FileJob, RunResult, Started, checked_items, judge_file
from faceteval._runner._job import BatchMode, JobHooks, JudgeJob, JudgeSpec, file_instances
from faceteval._runner._judge import Item, check_arguments, judge_each
from faceteval._runner._options import check_score_mode
from faceteval._runner._subset import selected, selected_count
from faceteval.batch import BatchRun, rounds_for
from faceteval.batch.internal import close_rounds
from faceteval.core import Instance
from faceteval.datasets.internal import PLAIN_READING, check_key
from faceteval.errors import ConfigError
from faceteval.llm import LLM, Judge, Panel
from faceteval.store import SQLiteCache
from faceteval.store.internal import BATCH_DONE

Until = Callable[[RunResult, Callable[[], Awaitable[None]]], None]
"""How a blocking run waits for its work: ``anyio.run`` of it, or the command's (Ctrl-C kept)."""
NO_HOOKS = JobHooks()


def run_job(job: JudgeJob, *, hooks: JobHooks = NO_HOOKS, until: Until | None = None) -> RunResult:
    """Run ``job`` in an event loop of its own; the judge's connections are closed when it ends.

    ``until`` runs the work (default: ``anyio.run``; the command's sets an interruption or an error
    on the result rather than raising it). The result is filled in as the run goes.

    Raises:
        InputError, ConfigError: Before anything is opened: an unreadable input, an output that is
            not ours, options the judge cannot serve.
        FacetevalError: What stopped the run, once its files are in place (with ``until`` unset).
    """
    result = RunResult()
    with ExitStack() as stack:
        ready = prepare(job, hooks, stack, result)
        work = partial(ready.llm.closing_after, partial(ready.run, result))
        if until is None:
            anyio.run(work)
        else:
            until(result, work)
    return result


async def run_job_async(job: JudgeJob, *, hooks: JobHooks = NO_HOOKS) -> RunResult:
    """`run_job` in the running event loop: an opened judge's connections stay open for the caller
    (``await llm.aclose()`` in this loop when done), a `JudgeSpec`'s are closed."""
    result = RunResult()
    with ExitStack() as stack:
        ready = prepare(job, hooks, stack, result)
        if isinstance(job.judge, JudgeSpec):
            await ready.llm.closing_after(partial(ready.run, result))
        else:
            await ready.run(result)
    return result


@dataclass(slots=True)
class Ready:
    """A job checked and its judge open: what is left is to judge."""

    job: JudgeJob
    llm: Judge
    file: FileJob | None
    """What is written (None: nothing, the judgments go to the hooks alone)."""
    items: Iterable[Item]
    again: Callable[[], Iterable[Item]]
    """The instances read again, for each collecting pass of a batch run."""
    hooks: JobHooks
    started: Started

    async def run(self, result: RunResult) -> None:
        """Judge, the calls through the batch API first in `BatchMode`."""
        if not isinstance(self.job.mode, BatchMode):
            await self._judge(result, None)
            return
        async with self._batch_run() as batch:
            collecting = replace(self.job.options, order="finish", window=batch.window)
            method, llm = self.job.method, self.llm
            done = await collect_in_rounds(
                llm, batch, lambda: judge_each(self.again(), method, llm, options=collecting)
            )
            result.batch = done
            await self._judge(result, done)

    async def _judge(self, result: RunResult, done: BatchDone | None) -> None:
        job, run = self.job, self.hooks.run
        with from_cache(self.llm, done):
            if self.file is None:
                await judge_each(
                    self.items, job.method, self.llm, options=job.options, sink=run.judged, stats=result.stats
                )
                return
            await judge_file(
                self.file, self.items, job.method, self.llm, options=job.options, result=result,
                hooks=run, started=self.started,
            )  # fmt: skip

    def _batch_run(self) -> AbstractAsyncContextManager[BatchRun]:
        """The batch run of the job's mode: its own rounds (closed after), or those it was given."""
        mode = cast(BatchMode, self.job.mode)
        if mode.rounds is not None:
            return nullcontext(mode.rounds)
        return _rounds(self.llm, mode, self.hooks)


@asynccontextmanager
async def _rounds(llm: Judge, mode: BatchMode, hooks: JobHooks) -> AsyncIterator[BatchRun]:
    """The rounds of ``mode.api`` for ``llm``, closed after; ``hooks.stopped_with_batches`` told when
    the run is interrupted with batches still running at the provider."""
    if not isinstance(llm, LLM) or llm.cache is None:
        raise ConfigError("--batch needs one model and the response cache")
    cache: Any = llm.cache
    rounds = rounds_for(
        mode.api, llm, cache, poll=mode.poll, directory=mode.directory, watch=hooks.batch_watch,
        endpoints=mode.endpoints,
    )  # fmt: skip
    try:
        yield BatchRun(rounds, mode.api, window=mode.window, on_round=hooks.batch_round, backoff=mode.poll)
    except (KeyboardInterrupt, anyio.get_cancelled_exc_class()):
        told = hooks.stopped_with_batches
        if told is not None and any(row.status != BATCH_DONE for row in cache.batches.all()):
            told()
        raise
    finally:
        await close_rounds(rounds)


def prepare(job: JudgeJob, hooks: JobHooks, stack: ExitStack, result: RunResult) -> Ready:
    """``job`` checked (its input measured, its outputs refused if not ours, with ``options.strict``
    every instance) before anything is opened, then its judge opened until ``stack`` closes."""
    given = () if file_instances(job.instances) is not None else job.instances  # a file: checked as read
    opened = None if isinstance(job.judge, JudgeSpec) else job.judge
    if opened is not None:
        check_arguments(given, job.method, opened, job.options)
    file = _file_job(job, opened, writes=job.outputs.out is not None or hooks.run.stream is not None)
    check_keys(job)
    instances, again = _instances(job)
    checks = file or FileJob(None, None, strict=job.options.strict)
    items = checked_items(checks, selected(instances, job.options), job.method, hooks.run)
    result.instances = selected_count(checks.instances, job.options)
    if hooks.measured is not None:
        hooks.measured(result.instances)
    started = Started.now()
    if opened is None:
        opened = open_judge(cast(JudgeSpec, job.judge), job, hooks, stack)
        check_arguments(given, job.method, opened, job.options)
    return Ready(job, opened, file, items, again, hooks, started.opened())


def check_keys(job: JudgeJob) -> None:
    """Refuse, before any call, a ``group_by`` (or a file's ``system_by``) that no instance has: the
    instances are read ahead when they can be (a file, read once more; a list), until one has it.

    Raises:
        ConfigError: No instance has the field; the message names those they have.
    """
    source = file_instances(job.instances)
    if job.options.group_by is not None:
        if source is not None:
            check_key((i for i in source.read() if isinstance(i, Instance)), job.options.group_by)
        elif isinstance(job.instances, Sequence):
            check_key((i for i in job.instances if isinstance(i, Instance)), job.options.group_by)
    if source is not None and (system_by := source.reading.system_by) is not None:
        read = (i for i in source.read() if isinstance(i, Instance))
        check_key(read, system_by, "read the systems from", systems=True)


def _instances(job: JudgeJob) -> tuple[Iterable[Item], Callable[[], Iterable[Item]]]:
    """The job's instances to judge, and how to read them again for each collecting pass of a batch
    run: a file is read anew, instances given in Python are listed (in `BatchMode` only)."""
    source = file_instances(job.instances)
    if source is not None:
        return source.read(), lambda: selected(source.read(), job.options)
    given = cast(Iterable[Item], job.instances)
    if not isinstance(job.mode, BatchMode):
        return given, lambda: given
    listed = list(selected(given, job.options))
    return listed, lambda: listed


def _file_job(job: JudgeJob, opened: Judge | None, *, writes: bool) -> FileJob | None:
    """What the run reads and writes, checked (None: it writes nothing, the judgments are handed on)."""
    if not writes:
        return None
    source = file_instances(job.instances)
    if opened is None:
        cache = job.outputs.cache
        reuse = cache is None
    else:
        path = getattr(opened.cache, "path", None)
        cache = Path(path) if isinstance(path, str) and path != ":memory:" else None
        reuse = opened.cache is None
    return FileJob.check(
        None if source is None else source.path,
        None if opened is None and job.dry_run else job.outputs.out,
        cache=cache,
        reuse=reuse,
        strict=job.options.strict,
        force=job.outputs.force,
        systems=None if source is None else source.systems,
        reading=PLAIN_READING if source is None else source.reading,
    )


def open_judge(spec: JudgeSpec, job: JudgeJob, hooks: JobHooks, stack: ExitStack) -> Judge:
    """The LLM of ``spec``, or its panel, with the job's response cache open and its spans exported,
    until ``stack`` closes; ``hooks.opened`` is told of them when it does.

    Raises:
        ConfigError: ``outputs.otel`` without a way to export spans (the command's ``--otel``), or
            options the judge cannot serve (`check_score_mode`).
    """
    if job.outputs.otel:
        if hooks.exporting is None:
            raise ConfigError(
                "otel exports spans from the faceteval command (--otel); in Python, turn tracing on "
                "with faceteval.tracing.enable(provider) around the run"
            )
        stack.enter_context(hooks.exporting())
    cache = stack.enter_context(SQLiteCache(job.outputs.cache)) if job.outputs.cache else None
    judges = spec.panel or ((spec.model, spec.base_url),)
    llms = [_llm(spec, model, url, cache, hooks) for model, url in judges]
    if cache is not None and hooks.opened is not None:
        stack.callback(hooks.opened, llms, cache)
    llm: Judge = Panel(llms, spec.panel_vote) if spec.panel else llms[0]
    check_score_mode(llm, job.options)  # before any output is opened
    return llm


def open_judges(specs: Sequence[JudgeSpec], job: JudgeJob, hooks: JobHooks, stack: ExitStack) -> list[LLM]:
    """The LLM of each of ``specs`` (a cascade's judges), sharing the job's response cache, open until
    ``stack`` closes.

    Raises:
        ConfigError: Options a judge cannot serve (`check_score_mode`).
    """
    if job.outputs.otel and hooks.exporting is not None:
        stack.enter_context(hooks.exporting())
    cache = stack.enter_context(SQLiteCache(job.outputs.cache)) if job.outputs.cache else None
    llms = [_llm(spec, spec.model, spec.base_url, cache, hooks) for spec in specs]
    if cache is not None and hooks.opened is not None:
        stack.callback(hooks.opened, llms, cache)
    for llm in llms:
        check_score_mode(llm, job.options)
    return llms


def _llm(spec: JudgeSpec, model: str, url: str | None, cache: SQLiteCache | None, hooks: JobHooks) -> LLM:
    """The LLM of ``model`` at ``url``, with ``spec``'s settings and ``cache``."""
    with hooks.opening():  # its provider's SDK is imported, its client made
        return LLM.from_spec(
            model,
            base_url=url,
            api_key=spec.api_key,
            dry_run=spec.dry_run,
            config=spec.config,
            cache=cache,
            concurrency=spec.concurrency,
            timeout=spec.timeout,
            retry=spec.retry,
            prices=spec.prices,
            retry_unreadable=spec.retry_unreadable,
            max_reply_bytes=spec.max_reply_bytes,
            endpoint_id=spec.endpoint_id,
            rpm=spec.rpm,
            tpm=spec.tpm,
        )
