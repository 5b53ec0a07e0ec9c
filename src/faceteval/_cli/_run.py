"""Carrying out one ``judge`` command: input, cache, LLM, output file, run record, progress."""

from __future__ import annotations

import itertools
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import IO, Any, Protocol

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
from faceteval._heap import settle
from faceteval._runner import INVALID_INPUT, JudgeOptions, RunStats, cannot_judge, judge_each
from faceteval._version import __version__
from faceteval.core import Instance, Judgment
from faceteval.datasets import read_instances
from faceteval.errors import ConfigError, FacetevalError, InputError
from faceteval.llm import DEFAULT_MAX_REPLY_BYTES, LLM, GenerateConfig, PriceTable, RetryPolicy, Spend
from faceteval.methods import Method
from faceteval.prompts import load_template
from faceteval.store import SQLiteCache

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
    workers: int = 0
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES


@dataclass(slots=True)
class RunResult:
    """What happened."""

    stats: RunStats = field(default_factory=RunStats)
    interrupted: bool = False
    stopped: FacetevalError | None = None
    """The error that stopped the run early, if one did."""
    elapsed: float = 0.0
    start: float = 0.0
    """Of ``elapsed``, the seconds spent opening the model (and starting its worker processes)."""
    instances: int = 0
    record_path: Path | None = None
    spent: Spend = field(default_factory=Spend)
    """Every call the run made, including those of judgments an interruption left unfinished."""


def default_cache_path(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/faceteval/responses.sqlite``, else under ``~/.cache``."""
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "faceteval" / "responses.sqlite"


def run_judge(request: RunRequest, *, on_invalid: Callable[[Judgment], None]) -> RunResult:
    """Judge the input file as requested; Ctrl-C stops cleanly with everything so far kept."""
    # Before anything is opened, and the output above all: a missing input or an output that would
    # overwrite it fails here, leaving every file as it was.
    result = RunResult(instances=_count_lines(request.input_path))
    check_output(None if request.dry_run else request.out, [request.input_path], cache=request.cache_path)
    items = _items(request, on_invalid)
    started = datetime.now(UTC)
    clock = time.perf_counter()
    with ExitStack() as stack:
        llm = open_llm(request, stack)
        result.spent = llm.spent
        result.start = time.perf_counter() - clock
        out = None if request.dry_run else open_output(request.out, stack)
        progress = stack.enter_context(progress_bar(request))
        task = progress.add_task("judging", total=result.instances or None)

        def sink(judgment: Judgment) -> None:
            if out is not None:
                out.write(judgment.model_dump_json() + "\n")
                out.flush()
            if judgment.error and judgment.error.startswith(INVALID_INPUT):
                on_invalid(judgment)
            progress.advance(task)

        options = JudgeOptions(swap=request.swap, trace=request.trace)
        try:
            judging = partial(
                judge_each, items, request.method, llm, options=options, sink=sink, stats=result.stats
            )
            run_until_stopped(result, llm.closing_after, judging)
        finally:
            result.elapsed = time.perf_counter() - clock
            if request.out is not None and not request.dry_run:
                result.record_path = _write_record(request, llm, result, started)
    return result


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
    """Tune the garbage collector for the run about to start (`faceteval._heap.settle`).

    Only in the ``faceteval`` command's own process: a program that runs the commands in its own
    process (a test runner, a notebook) keeps its collector as it set it.
    """
    if OWNS_PROCESS:
        settle()


def open_llm(request: RunRequest, stack: ExitStack) -> LLM:
    """The LLM a run asks, with its response cache (and worker processes) open until ``stack`` closes."""
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
        workers=request.workers,
        retry_unreadable=request.retry_unreadable,
        max_reply_bytes=request.max_reply_bytes,
    )
    stack.callback(llm.close)
    return llm


def _items(request: RunRequest, on_invalid: Callable[[Judgment], None]) -> Iterator[Instance | InputError]:
    if not request.strict:
        stream = read_instances(request.input_path)
        # The first line now, before anything is opened: it is where a file that is not JSON Lines fails.
        return itertools.chain(list(itertools.islice(stream, 1)), stream)
    items = list(read_instances(request.input_path))
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
            f"{len(problems)} invalid line(s)" if problems else "",
            f"{len(unjudgeable)} instance(s) {request.method.name} cannot judge as they are"
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


def _count_lines(path: Path) -> int:
    """The input's non-blank lines, for the progress bar; an input that cannot be read fails here.

    The input is read twice (counted, then judged) and again by later commands (``correct``,
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
    count = 0
    try:
        with path.open("rb") as handle:
            for line in handle:
                count += bool(line.strip())
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    return count


def check_output(path: Path | None, inputs: Sequence[Path], *, cache: Path | None = None) -> None:
    """Before anything is opened: writing to ``path`` and its run record must not destroy an input,
    nor the response cache (the replies paid for so far, which a re-run would answer from).

    Raises:
        ConfigError: ``path`` or its run record is one of ``inputs``, or ``cache``.
    """
    if path is None:
        return
    for target in (path, record_path_for(path)):
        if any(same_file(target, given) for given in inputs):
            raise ConfigError(
                f"--out {path} would overwrite the input {target}; write the output to another file"
            )
        # The cache may not exist yet, and would be made before the output is written over it.
        if cache is not None and (same_file(target, cache) or target.resolve() == cache.resolve()):
            raise ConfigError(
                f"--out {path} would overwrite the response cache {cache}; write the output to another file"
            )


def open_output(path: Path | None, stack: ExitStack) -> IO[str]:
    """``path`` opened for writing until ``stack`` closes (its folder made), or stdout for None (made
    safe for a terminal by `json_lines_out`)."""
    if path is None:
        return json_lines_out(sys.stdout)
    path.parent.mkdir(parents=True, exist_ok=True)
    return stack.enter_context(path.open("w", encoding="utf-8"))


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are the same existing file (False when either does not exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def progress_bar(request: RunRequest) -> Progress:
    """A run's progress bar on stderr (off with ``--quiet`` and in dry runs)."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
        disable=not request.progress or request.dry_run,
    )


def record_path_for(out: Path) -> Path:
    """Where the run record of ``out`` goes: ``judgments.jsonl`` -> ``judgments.run.json``."""
    return out.with_name(f"{out.stem}.run.json")


def record_header(started: datetime, *, interrupted: bool, stopped: BaseException | None) -> dict[str, Any]:
    """What every run record begins with: versions, times, how the run ended, the command."""
    return {
        "schema_version": RUN_RECORD_SCHEMA,
        "faceteval_version": __version__,
        "started_at": started.isoformat(timespec="seconds"),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "interrupted": interrupted,
        "stopped_by": None if stopped is None else str(stopped),
        "command": sys.argv,
    }


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


def _write_record(request: RunRequest, llm: LLM, result: RunResult, started: datetime) -> Path:
    assert request.out is not None
    stats = result.stats
    record = {
        **record_header(started, interrupted=result.interrupted, stopped=result.stopped),
        "input": str(request.input_path),
        "input_path": os.path.abspath(request.input_path),  # symlinks kept: the typed path's own
        "output": str(request.out),
        "method": request.method.describe(),
        "llm": llm.describe(),
        "options": {"swap": request.swap, "strict": request.strict, "trace": request.trace},
        "prompts": {name: load_template(name).sha256 for name in request.method.templates()},
        "summary": {
            "judgments": dict(stats.statuses),
            "invalid_input": stats.invalid,
            "orders_agreed": stats.consistency.get(True, 0),
            "orders_disagreed": stats.consistency.get(False, 0),
            **spent_fields(result.spent),
            "seconds": round(result.elapsed, 3),
            "start_seconds": round(result.start, 3),
        },
    }
    path = record_path_for(request.out)
    path.write_text(json.dumps(record, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return path
