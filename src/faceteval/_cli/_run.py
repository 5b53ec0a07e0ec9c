"""Carrying out one ``judge`` command: input, cache, LLM, output file, run record, progress."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, replace
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
from faceteval._cli._batch import batched
from faceteval._cli._console import err_console, escape, json_lines_out
from faceteval._cli._tracing import otel_tracing
from faceteval._runner import (
    FileJob,
    JudgeOptions,
    Order,
    RunHooks,
    RunResult,
    Started,
    check_score_mode,
    checked_items,
    judge_file,
    judge_file_in_batches,
)
from faceteval._util.heap import settle
from faceteval._util.urls import redact_urls
from faceteval.batch import DEFAULT_BATCH_WINDOW, DEFAULT_POLL, BatchRun
from faceteval.core import Judgment, PanelVote
from faceteval.datasets import InstanceFile, Reading
from faceteval.datasets.internal import PLAIN_READING
from faceteval.errors import ConfigError, FacetevalError
from faceteval.llm import DEFAULT_MAX_REPLY_BYTES, LLM, GenerateConfig, Judge, Panel, PriceTable, RetryPolicy
from faceteval.methods import Method
from faceteval.methods.internal import DEFAULT_TOP_LOGPROBS, ScoreModeOption
from faceteval.prompts import Templates, prefix_cache_order, using_templates
from faceteval.store import SQLiteCache


@dataclass(frozen=True, slots=True)
class RunRequest:
    """Everything the ``judge`` command was asked to do."""

    input_path: Path
    method: Method
    model: str
    base_url: str | None
    api_key: str | None
    out: Path | None
    swap: bool
    strict: bool
    dry_run: bool
    concurrency: int
    timeout: float
    retry: RetryPolicy
    config: GenerateConfig
    cache_path: Path | None
    prices: PriceTable
    retry_unreadable: bool = False
    trace: bool = True
    progress: bool = True
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    force: bool = False
    """Overwrite an output (or its run record) that is not one of ours."""
    systems: tuple[str, ...] | None = None
    """The systems behind the candidates of every instance that names none (``--systems``)."""
    reading: Reading = PLAIN_READING
    """How the input is read (``--field``, ``--preset``, ``--format``, ``--hf-dataset``)."""
    otel: bool = False
    """Send OpenTelemetry spans of the work (``--otel``)."""
    judges: tuple[tuple[str, str | None], ...] = ()
    """A judge panel's judges, each a model spec and its endpoint (``model`` then names the panel)."""
    panel_vote: PanelVote = "majority"
    """How a panel's verdicts are combined (``--panel-vote``)."""
    score_mode: ScoreModeOption = "parse"
    """How scoring stages obtain their scores (``--score-mode``)."""
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    """Alternatives per token with ``--score-mode logprobs`` (``--top-logprobs``)."""
    templates: Templates | None = None
    """Prompt templates in place of built-in ones (``--templates``), in use while the LLM is open."""
    endpoint_id: str | None = None
    """The endpoint's name in cache keys in place of its URL (``--endpoint-id``)."""
    prefix_cache: bool = False
    """Per-facet prompts ordered for a server's prefix cache (``--prefix-cache``) while the LLM is open."""
    order: Order = "input"
    """How judgments are written: in input order or as they finish (``--order``)."""
    batch: str | None = None
    """The batch API the calls are sent through (``--batch``), None: one by one."""
    batch_poll: float = DEFAULT_POLL
    """Seconds between two looks at the running batches (``--batch-poll``)."""
    batch_dir: Path | None = None
    batch_endpoints: tuple[str, ...] = ()
    """Where a ``--batch files`` round's requests are written (``--batch-dir``)."""
    batch_window: int = DEFAULT_BATCH_WINDOW
    """Instances one collecting pass holds waiting at most (``--batch-window``)."""

    def judge_options(self) -> JudgeOptions:
        """How the engine carries the run out."""
        return JudgeOptions(
            swap=self.swap,
            trace=self.trace,
            score_mode=self.score_mode,
            top_logprobs=self.top_logprobs,
            templates=self.templates,
            order=self.order,
        )


def default_cache_path(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/faceteval/responses.sqlite``, else under ``~/.cache``."""
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "faceteval" / "responses.sqlite"


def run_judge(request: RunRequest, *, on_invalid: Callable[[Judgment], None]) -> RunResult:
    """Judge the input file as requested; Ctrl-C stops cleanly with everything so far kept.

    The output and its run record (with the run's result, also in the `RunResult`) are put in place
    when the run ends, however it ends (a kill -9 leaves the earlier ones as they were). Without a
    response cache, the ok judgments of an earlier output of the same job are reused rather than
    asked again.
    """
    # Before anything is opened, and the output above all: a missing input or an output that would
    # overwrite it (or any file not ours) fails here, leaving every file as it was.
    job = FileJob.check(
        request.input_path,
        None if request.dry_run else request.out,
        cache=request.cache_path,
        strict=request.strict,
        force=request.force,
        systems=request.systems,
        reading=request.reading,
    )
    hooks = RunHooks(invalid=on_invalid, refused=_refused, stream=json_lines_out(sys.stdout))
    instances = InstanceFile(request.input_path, systems=request.systems, reading=request.reading)
    items = checked_items(job, instances, request.method, hooks)
    result = RunResult(instances=job.instances)
    started = Started.now()
    with ExitStack() as stack:
        llm = open_judge(request, stack, batched=True)
        progress = stack.enter_context(progress_bar(request))
        task = progress.add_task("judging", total=result.instances or None)

        hooks = replace(hooks, judged=lambda _: progress.advance(task))
        options = request.judge_options()
        judging = partial(
            judge_file, job, items, request.method, llm, options=options, result=result, hooks=hooks,
            started=started.opened(),
        )  # fmt: skip
        if request.batch is not None:

            async def judging_in_batches(batch: BatchRun) -> None:
                again = partial(
                    InstanceFile, request.input_path, systems=request.systems, reading=request.reading
                )
                await judge_file_in_batches(
                    job, again, items, request.method, llm, options=options, result=result,
                    batch=batch, hooks=hooks, started=started.opened(),
                )  # fmt: skip

            judging = partial(in_batch_rounds, request, llm, progress, judging_in_batches)
        run_until_stopped(result, llm.closing_after, judging)
    return result


async def in_batch_rounds(
    request: RunRequest, llm: Judge, progress: Progress, run: Callable[[BatchRun], Awaitable[None]]
) -> None:
    """``run(batch)`` with the rounds of ``request.batch`` for ``llm``, shown on ``progress`` (the same
    bar as the run's)."""
    await batched(
        llm,
        request.batch or "",
        poll=request.batch_poll,
        directory=request.batch_dir,
        endpoints=request.batch_endpoints,
        window=request.batch_window,
        progress=None if progress.disable else progress,
        run=run,
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


def open_judge(request: RunRequest, stack: ExitStack, *, batched: bool = False) -> Judge:
    """The LLM a run asks, or its judge panel (``request.judges``), as `open_llm` opens one."""
    if not request.judges:
        return open_llm(request, stack, batched=batched)
    stack.enter_context(otel_tracing(request.otel, os.environ))
    stack.enter_context(prefix_cache_order(request.prefix_cache))
    cache = stack.enter_context(SQLiteCache(request.cache_path)) if request.cache_path else None
    llms = [_llm(replace(request, model=spec, base_url=url), cache) for spec, url in request.judges]
    if cache is not None:
        stack.callback(_say_other_identities, llms, cache)
    return Panel(llms, request.panel_vote)


def open_llm(request: RunRequest, stack: ExitStack, *, batched: bool = False) -> LLM:
    """The LLM a run asks, with its response cache open, its spans exported and the request's templates
    in use (`faceteval.prompts.using_templates`), until ``stack`` closes.

    Raises:
        ConfigError: ``--batch`` was given to a command that does not send its calls in batches
            (``batched``: the caller does).
    """
    if request.batch is not None and not batched:
        raise ConfigError(
            "--batch is not available for this command yet (judge takes it); run it without --batch"
        )
    stack.enter_context(otel_tracing(request.otel, os.environ))
    stack.enter_context(using_templates(request.templates))
    stack.enter_context(prefix_cache_order(request.prefix_cache))
    cache = stack.enter_context(SQLiteCache(request.cache_path)) if request.cache_path else None
    llm = _llm(request, cache)
    if cache is not None:
        stack.callback(_say_other_identities, [llm], cache)
    return llm


def _endpoint_flag(identity: str) -> str:
    """``--endpoint-id NAME`` for an identity a user named, else ``--endpoint-id`` (with a name to choose)."""
    _, named, name = identity.partition("@id:")
    return f"--endpoint-id {name}" if named else "--endpoint-id NAME (here and in the run that filled it)"


def _say_other_identities(llms: list[LLM], cache: SQLiteCache) -> None:
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


def _llm(request: RunRequest, cache: SQLiteCache | None) -> LLM:
    """The LLM of ``request.model`` at ``request.base_url``, with the run's settings and ``cache``."""
    with starting():  # its provider's SDK is imported, its client made
        llm = LLM.from_spec(
            request.model,
            base_url=request.base_url,
            api_key=request.api_key,
            dry_run=request.dry_run,
            config=request.config,
            cache=cache,
            concurrency=request.concurrency,
            timeout=request.timeout,
            retry=request.retry,
            prices=request.prices,
            retry_unreadable=request.retry_unreadable,
            max_reply_bytes=request.max_reply_bytes,
            endpoint_id=request.endpoint_id,
        )
    check_score_mode(llm, request.judge_options())  # before any output is opened
    return llm


def progress_bar(request: RunRequest) -> Progress:
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
        disable=not request.progress or request.dry_run or not err_console.is_terminal,
    )
