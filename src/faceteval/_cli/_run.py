"""Carrying out one ``judge`` command: input, cache, LLM, output file, run record, progress."""

from __future__ import annotations

import hashlib
import itertools
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
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

from faceteval._cli._console import err_console, escape, json_lines_out
from faceteval._runner import (
    INVALID_INPUT,
    JudgeOptions,
    JudgmentsOutput,
    RunStats,
    cannot_judge,
    judge_each,
)
from faceteval._util.heap import settle
from faceteval._util.text import plural
from faceteval._version import __version__
from faceteval.core import Instance, Judgment
from faceteval.datasets import read_instances
from faceteval.errors import FacetevalError, InputError, StoreError
from faceteval.llm import DEFAULT_MAX_REPLY_BYTES, LLM, GenerateConfig, PriceTable, RetryPolicy, Spend
from faceteval.methods import Method
from faceteval.prompts import load_template
from faceteval.results import JudgeResult, ResultBuilder
from faceteval.store import (
    JUDGMENTS,
    RUN_RECORD,
    SQLiteCache,
    check_outputs,
    record_path_for,
)

RUN_RECORD_SCHEMA = 1


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


@dataclass(slots=True)
class RunResult:
    """What happened."""

    stats: RunStats = field(default_factory=RunStats)
    interrupted: bool = False
    stopped: FacetevalError | None = None
    """The error that stopped the run early, if one did."""
    elapsed: float = 0.0
    start: float = 0.0
    """Of ``elapsed``, the seconds spent opening the model."""
    instances: int = 0
    record_path: Path | None = None
    kept: bool = False
    """The run ended early with no ok judgment, and the earlier output was left as it was."""
    spent: Spend = field(default_factory=Spend)
    """Every call the run made, including those of judgments an interruption left unfinished."""
    result: JudgeResult | None = None
    """The result of the judgments handed on (None in a dry run)."""


def default_cache_path(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/faceteval/responses.sqlite``, else under ``~/.cache``."""
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "faceteval" / "responses.sqlite"


def run_judge(request: RunRequest, *, on_invalid: Callable[[Judgment], None]) -> RunResult:
    """Judge the input file as requested; Ctrl-C stops cleanly with everything so far kept.

    The output and its run record are put in place when the run ends, however it ends (a kill -9
    leaves the earlier ones as they were). Without a response cache, the ok judgments of an earlier
    output of the same job are reused rather than asked again.
    """
    # Before anything is opened, and the output above all: a missing input or an output that would
    # overwrite it (or any file not ours) fails here, leaving every file as it was.
    count, input_sha256 = _measure_input(request.input_path)
    result = RunResult(instances=count)
    out = None if request.dry_run else request.out
    if out is not None:
        check_outputs(
            [(out, JUDGMENTS), (record_path_for(out), RUN_RECORD)],
            given=out,
            inputs=[request.input_path],
            cache=request.cache_path,
            force=request.force,
        )
    results = ResultBuilder()
    items = _items(request, on_invalid)
    if not request.dry_run:  # a plan has no result
        items = results.noting(items)
    started = datetime.now(UTC)
    clock = time.perf_counter()
    with ExitStack() as stack:
        llm = open_llm(request, stack)
        result.spent = llm.spent
        result.start = time.perf_counter() - clock
        fields = _record_fields(request, llm, input_sha256)
        output = stack.enter_context(
            JudgmentsOutput(out, fields, reuse=request.cache_path is None, stream=json_lines_out(sys.stdout))
        )
        progress = stack.enter_context(progress_bar(request))
        task = progress.add_task("judging", total=result.instances or None)

        def sink(judgment: Judgment) -> None:
            if not request.dry_run:  # a plan's judgments are not written, not even to stdout
                output.write(judgment)
                results.add(judgment)
            if judgment.error and judgment.error.startswith(INVALID_INPUT):
                on_invalid(judgment)
            progress.advance(task)

        options = JudgeOptions(swap=request.swap, trace=request.trace)
        failure: BaseException | None = None
        try:
            judging = partial(
                judge_each, items, request.method, llm, options=options, sink=sink, stats=result.stats,
                reuse=output.take,
            )  # fmt: skip
            run_until_stopped(result, llm.closing_after, judging)
        except BaseException as exc:  # a bug (the record says so, and the traceback is shown)
            failure = exc
            raise
        finally:
            result.elapsed = time.perf_counter() - clock
            if _keeps_earlier(request, result, failure):
                result.kept = True  # the partial files are removed as the output closes
            else:
                try:
                    result.record_path = output.finish(
                        result.stats, lambda: _record(fields, result, started, failure)
                    )
                except StoreError as exc:
                    result.stopped = result.stopped or exc
    if not request.dry_run:
        result.result = results.result()
    return result


def _keeps_earlier(request: RunRequest, result: RunResult, failure: BaseException | None) -> bool:
    """Whether the run leaves an earlier output as it was: it ended early (a wrong endpoint, a
    refused key, Ctrl-C before any reply) with no ok judgment to put in its place."""
    ended_early = result.stopped is not None or result.interrupted or failure is not None
    earlier = request.out is not None and not request.dry_run and request.out.exists()
    return ended_early and earlier and not result.stats.statuses.get("ok", 0) and not result.stats.reused


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


OWNS_PROCESS = False
"""Set by the ``faceteval`` command's entry point: the process is ours to tune (see `settle_heap`)."""


def settle_heap() -> None:
    """Tune the garbage collector for the run about to start (`faceteval._util.heap.settle`).

    Only in the ``faceteval`` command's own process: a program that runs the commands in its own
    process (a test runner, a notebook) keeps its collector as it set it.
    """
    if OWNS_PROCESS:
        settle()


def open_llm(request: RunRequest, stack: ExitStack) -> LLM:
    """The LLM a run asks, with its response cache open until ``stack`` closes."""
    cache = stack.enter_context(SQLiteCache(request.cache_path)) if request.cache_path else None
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
    )
    return llm


def _items(request: RunRequest, on_invalid: Callable[[Judgment], None]) -> Iterator[Instance | InputError]:
    if not request.strict:
        stream = read_instances(request.input_path, systems=request.systems)
        # The first line now, before anything is opened: it is where a file that is not JSON Lines fails.
        return itertools.chain(list(itertools.islice(stream, 1)), stream)
    items = list(read_instances(request.input_path, systems=request.systems))
    problems = [str(item) for item in items if isinstance(item, InputError)]
    unjudgeable = [
        f"{request.input_path}: instance {item.id!r}: {error}"
        for item in items
        if isinstance(item, Instance) and (error := cannot_judge(request.method, item)) is not None
    ]
    for problem in problems:
        err_console.print(f"[red]invalid:[/] {escape(problem)}", highlight=False)
    for problem in unjudgeable:
        err_console.print(f"[red]cannot judge:[/] {escape(problem)}", highlight=False)
    if problems or unjudgeable:
        found = [
            plural(len(problems), "invalid line") if problems else "",
            f"{plural(len(unjudgeable), 'instance')} {request.method.name} cannot judge as "
            + ("it is" if len(unjudgeable) == 1 else "they are")
            if unjudgeable
            else "",
        ]
        raise InputError(
            str(request.input_path),
            None,
            None,
            f"{' and '.join(filter(None, found))}; nothing was judged (--strict)",
        )
    return iter(items)


def _measure_input(path: Path) -> tuple[int, str]:
    """The input's non-blank lines (for the progress bar) and its SHA-256 (for the run record); an
    input that cannot be read fails here.

    The input is read twice (measured, then judged) and again by later commands (``correct``,
    ``export``, ``review import``), so it must be a file: not standard input, nor a pipe.
    """
    if str(path) == "-" or (path.exists() and not path.is_file()):
        raise InputError(
            str(path),
            None,
            None,
            "not a file (standard input or a pipe?): the input is read more than once, by this "
            "command and by later ones, so save it to a file and judge that",
        )
    count, digest = 0, hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for line in handle:
                count += bool(line.strip())
                digest.update(line)
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    return count, digest.hexdigest()


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


def record_header(started: datetime, *, interrupted: bool, stopped: BaseException | None) -> dict[str, Any]:
    """What every run record begins with: versions, times, how the run ended, the command."""
    return {
        "schema_version": RUN_RECORD_SCHEMA,
        "faceteval_version": __version__,
        "started_at": started.isoformat(timespec="seconds"),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "interrupted": interrupted,
        "stopped_by": None if stopped is None else _stop_reason(stopped),
        "command": sys.argv,
    }


def _stop_reason(error: BaseException) -> str:
    """What stopped a run, as its record says: a faceteval error's message, else its kind too."""
    return str(error) if isinstance(error, FacetevalError) else f"{type(error).__name__}: {error}"


def spent_fields(spent: Spend) -> dict[str, Any]:
    """A run record's counts of LLM use: every call made (those of unfinished work too), tokens, cost."""
    return {
        "calls": spent.calls,
        "cached": spent.cached,
        "retries": spent.retries,
        "input_tokens": spent.input_tokens,
        "output_tokens": spent.output_tokens,
        "cost_usd": spent.cost_usd if spent.cost_known else None,
    }


def _record_fields(request: RunRequest, llm: LLM, input_sha256: str) -> dict[str, Any]:
    """What a run record says of the job: its input, output, method, LLM, options and prompts."""
    return {
        "input": str(request.input_path),
        "input_path": os.path.abspath(request.input_path),  # symlinks kept: the typed path's own
        "input_sha256": input_sha256,
        "output": str(request.out),
        "method": request.method.describe(),
        "llm": llm.describe(),
        "options": {"swap": request.swap, "strict": request.strict, "trace": request.trace},
        "prompts": {name: load_template(name).sha256 for name in request.method.templates()},
    }


def _record(
    fields: dict[str, Any], result: RunResult, started: datetime, failure: BaseException | None
) -> dict[str, Any]:
    stats = result.stats
    interrupted = result.interrupted or isinstance(failure, KeyboardInterrupt)
    stopped = result.stopped or (None if isinstance(failure, KeyboardInterrupt) else failure)
    return {
        **record_header(started, interrupted=interrupted, stopped=stopped),
        **fields,
        "summary": {
            "judgments": dict(stats.statuses),
            "reused": stats.reused,
            "invalid_input": stats.invalid,
            "orders_agreed": stats.consistency.get(True, 0),
            "orders_disagreed": stats.consistency.get(False, 0),
            **spent_fields(result.spent),
            "seconds": round(result.elapsed, 3),
            "start_seconds": round(result.start, 3),
        },
    }
