"""Carrying out one ``judge`` command: input, cache, LLM, output file, run record, progress."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import anyio
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from faceteval import _cli
from faceteval._cli import starting
from faceteval._cli._batch import RESUME, BatchProgress
from faceteval._cli._console import err_console, escape, json_lines_out
from faceteval._cli._tracing import otel_tracing
from faceteval._runner import JobHooks, JudgeJob, JudgeSpec, RunHooks, RunResult, run_job
from faceteval._runner import open_judge as open_spec
from faceteval._util.heap import settle
from faceteval._util.urls import redact_urls
from faceteval.core import Judgment
from faceteval.errors import ConfigError, FacetevalError
from faceteval.llm import LLM, Judge
from faceteval.store import SQLiteCache


def default_cache_path(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/faceteval/responses.sqlite``, else under ``~/.cache``."""
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "faceteval" / "responses.sqlite"


def run_judge(job: JudgeJob, *, on_invalid: Callable[[Judgment], None]) -> RunResult:
    """Run ``job`` (`faceteval._runner.run_job`) with its progress on stderr and its judgments on
    standard output without an ``out``; Ctrl-C stops cleanly with everything so far kept.

    The output and its run record (with the run's result, also in the `RunResult`) are put in place
    when the run ends, however it ends (a kill -9 leaves the earlier ones as they were). Without a
    response cache, the ok judgments of an earlier output of the same job are reused rather than
    asked again. A missing input, or an output that would overwrite it (or any file not ours), fails
    before anything is opened, leaving every file as it was.
    """
    with progress_bar(job) as progress:
        task = progress.add_task("judging", total=None)
        shown = BatchProgress(None if progress.disable else progress)
        run = RunHooks(
            invalid=on_invalid,
            refused=_refused,
            stream=json_lines_out(sys.stdout),
            judged=lambda _: progress.advance(task),
        )
        hooks = replace(
            cli_hooks(),
            run=run,
            measured=lambda count: progress.update(task, total=count or None),
            batch_round=shown.round,
            batch_watch=shown.watch,
            stopped_with_batches=partial(err_console.print, RESUME),
        )
        return run_job(job, hooks=hooks, until=run_until_stopped)


def cli_hooks() -> JobHooks:
    """What the command lends a job: its start-up, its ``--otel`` spans, its word on other endpoints."""
    return JobHooks(
        opening=starting, exporting=partial(otel_tracing, True, os.environ), opened=_say_other_identities
    )


def _refused(kind: str, problem: str) -> None:
    err_console.print(f"[red]{kind}:[/] {escape(problem)}", highlight=False)


class Outcome(Protocol):
    """How a run ended, as the summary and the run record report it."""

    interrupted: bool
    stopped: FacetevalError | None


def run_until_stopped(outcome: Outcome, main: Callable[..., Awaitable[None]], *args: Any) -> None:
    """``anyio.run(main, *args)`` once the collector is settled (`settle_heap`).

    Ctrl-C, SIGTERM (``kill``, ``timeout``, ``docker stop``, a batch scheduler) and an error that
    stops the run early are set on ``outcome`` rather than raised: the summary and the run record
    still show what was done.
    """
    settle_heap()
    try:
        anyio.run(_until_terminated, main, *args)
    except KeyboardInterrupt:
        outcome.interrupted = True
    except FacetevalError as exc:
        outcome.stopped = exc


async def _until_terminated(main: Callable[..., Awaitable[None]], *args: Any) -> None:
    """``main(*args)``, cancelled as Ctrl-C would cancel it if SIGTERM comes first."""
    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        await main(*args)
        return
    terminated = False
    failure: Exception | None = None
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            nonlocal terminated
            with anyio.open_signal_receiver(signal.SIGTERM) as signals:
                async for _ in signals:
                    terminated = True
                    group.cancel_scope.cancel()

        group.start_soon(watch)
        try:
            await main(*args)
        except Exception as exc:  # raised below as it is, not in the group's ExceptionGroup
            failure = exc
        group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    if terminated:
        raise KeyboardInterrupt


def settle_heap() -> None:
    """Tune the garbage collector for the run about to start (`faceteval._util.heap.settle`).

    Only in the ``faceteval`` command's own process: a program that runs the commands in its own
    process (a test runner, a notebook) keeps its collector as it set it.
    """
    if _cli.OWNS_PROCESS:  # set by the command's entry point
        settle()


def open_judge(job: JudgeJob, stack: ExitStack, *, batched: bool = False) -> Judge:
    """The LLM a run asks, or its judge panel, with its response cache open and its spans exported,
    until ``stack`` closes (the job's templates and prompt order travel in its options: a family's
    command passes them to its workflow).

    Raises:
        ConfigError: ``--batch`` was given to a command that does not send its calls in batches
            (``batched``: the caller does).
    """
    if job.mode.kind == "batch" and not batched:
        raise ConfigError(
            "--batch is not available for this command yet (judge takes it); run it without --batch"
        )
    assert isinstance(job.judge, JudgeSpec)
    return open_spec(job.judge, job, cli_hooks(), stack)


def open_llm(job: JudgeJob, stack: ExitStack, *, batched: bool = False) -> LLM:
    """`open_judge` of a job of one model."""
    llm = open_judge(job, stack, batched=batched)
    assert isinstance(llm, LLM)
    return llm


def _endpoint_flag(identity: str) -> str:
    """``--endpoint-id NAME`` for an identity a user named, else ``--endpoint-id`` (with a name to choose)."""
    _, named, name = identity.partition("@id:")
    return f"--endpoint-id {name}" if named else "--endpoint-id NAME (here and in the run that filled it)"


def _say_other_identities(llms: Sequence[LLM], cache: SQLiteCache) -> None:
    """At the end of a run, say (one line per LLM) when it found no reply in a cache that holds replies
    of its model under another endpoint identity: a server moved to another port, say."""
    for llm in llms:
        if llm.spent.cached or not llm.spent.calls:
            continue
        if others := cache.other_identities(llm.spec.model, llm.identity):
            err_console.print(
                f"no cache hits for {escape(str(llm.spec))} at {escape(llm.identity)}, though the cache "
                f"holds its replies from {escape(redact_urls(others[0]))}"  # an older run's, kept verbatim
                + (f" (and {len(others) - 1} more)" if len(others) > 1 else "")
                + f"; if that is the same server, name it with {_endpoint_flag(others[0])} to use them",
                soft_wrap=True,
            )


def progress_bar(job: JudgeJob) -> Progress:
    """A run's progress bar on stderr (off with ``--quiet``, in dry runs, and where stderr is not a
    terminal: a log file would get only a stray blank line from it)."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
        disable=not job.outputs.progress or job.dry_run or not err_console.is_terminal,
    )
