"""Orchestration behind `judge`: streaming, windowed concurrency, panels, statistics (each instance is
judged by `faceteval._runner._instance`)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import TypeVar, cast

from faceteval._runner._confidence import with_confidence
from faceteval._runner._instance import judge_instance
from faceteval._runner._options import (
    DEFAULT_JUDGE_OPTIONS,
    JudgeOptions,
    calibration_of,
    check_score_mode,
    run_prompts,
)
from faceteval._runner._panel import judge_with_panel, panel_memos
from faceteval._runner._simulated import judge_with_annotators, shots_pool
from faceteval._runner._stats import RunStats, unjudgeable
from faceteval._runner._tracing import record_run, run_span
from faceteval._runner._window import as_finished, in_order_spilled
from faceteval.core import SIMULATED_ANNOTATORS, VERDICT_LOGPROBS, Instance, Judgment, TraceEntry
from faceteval.core.internal import INVALID_INPUT, PLANNED, UNANSWERED
from faceteval.errors import ConfigError, InputError
from faceteval.errors import RunAborted as RunAborted  # where the engine imported it from
from faceteval.llm import LLM, Judge, Panel
from faceteval.methods import (
    Method,
    QueryMemo,
)
from faceteval.prompts import Prompts
from faceteval.results import abstain
from faceteval.tracing import internal as tracing_internal

Item = Instance | InputError
Sink = Callable[[Judgment], None]
_Done = tuple[Judgment, list[TraceEntry], bool, bool]
"""A finished item: its judgment, the exchanges behind it, whether it was invalid, and reused."""
T = TypeVar("T")
R = TypeVar("R")


class FailureStreak:
    """Stops a run that keeps failing (a wrong URL, an exhausted quota) rather than failing the rest.

    ``see`` each result as it is handed on: ``limit`` failures in a row raise `RunAborted` (0: never).
    """

    def __init__(self, limit: int, what: str, kept: str) -> None:
        self.limit = limit
        self.what = what
        """What fails, in the plural ("instances")."""
        self.kept = kept
        """What is kept of the run, capitalised ("The judgments finished so far are kept")."""
        self.count = 0

    def see(self, failed: bool, error: str | None) -> None:
        """Count a result (``failed``: an error, not a parse error); raises `RunAborted` at the limit.

        A failure for want of a request the batch rounds gave up on
        (`faceteval.core.internal.UNANSWERED`) neither counts nor resets the count: it calls nothing,
        and its number is bounded by the rounds already.
        """
        if failed and UNANSWERED in (error or ""):
            return
        self.count = self.count + 1 if failed else 0
        if self.limit and self.count >= self.limit:
            raise RunAborted(
                f"stopped after {self.count} {self.what} in a row failed (the last: {error})\n"
                f"{self.kept} (and, with a response cache, every reply received): fix the cause and run "
                "it again."
            )


async def judge_each(
    items: Iterable[Item],
    method: Method,
    llm: Judge,
    *,
    options: JudgeOptions = DEFAULT_JUDGE_OPTIONS,
    sink: Sink | None = None,
    stats: RunStats | None = None,
    reuse: Callable[[Instance], Judgment | None] | None = None,
) -> RunStats:
    """Judge ``items`` as they are read, handing each judgment to ``sink`` in input order (or, with
    ``options.order="finish"``, as each finishes).

    Invalid items (`InputError`) become judgments with status ``error``; nothing is dropped.
    ``stats``, when given, is filled as judgments finish (so it is current even if the run is
    interrupted) and returned. ``reuse``, when given, is asked first for each instance: a judgment
    it returns (an earlier run's) is handed on as it is, counted in ``stats.reused``, and no LLM
    is called for that instance. With a `Panel` for ``llm``, each judge judges every instance (the
    whole method, with its own facets and weights) and the judgments are combined by its vote. With
    ``options.confidence="simulated-annotators"``, each instance is judged by the annotators'
    few-shot variants and their majority taken (`faceteval._runner._simulated`); drawn from the run's
    own labelled instances, the examples need ``items`` read in full before the first is judged.

    Raises:
        TypeError: An argument is not of its kind (a path or one instance for ``items``, a method
            class rather than a method, ...), or an item is not an `Instance`; before that item's work.
        RunAborted: ``options.abort_after`` instances in a row failed with provider errors.
        ConfigError: Simulated annotators with a panel, or too few labelled instances to draw from.
        FacetevalError: A fatal error (credentials refused, cache unusable) stopped the run.
    """
    check_arguments(items, method, llm, options)
    return await _judge_each(items, method, llm, options, sink, stats, reuse)


async def _judge_each(
    items: Iterable[Item],
    method: Method,
    llm: Judge,
    options: JudgeOptions,
    sink: Sink | None,
    stats: RunStats | None,
    reuse: Callable[[Instance], Judgment | None] | None,
) -> RunStats:
    memo = QueryMemo(options.memo_size)
    memos = panel_memos(llm, options.memo_size) if isinstance(llm, Panel) else []
    prompts = run_prompts(options)  # the templates the stages render: the run's options', passed down
    calibration = calibration_of(options)
    emitter = _Emitter(sink, RunStats() if stats is None else stats, options.abort_after)
    items, pool = _with_pool(items, options)

    async def work(item: Item) -> _Done:
        if isinstance(item, InputError):
            return _invalid(item, method.name), [], True, False
        if reuse is not None and (earlier := reuse(item)) is not None:  # ok: kept by this run's threshold?
            return (earlier if calibration is None else abstain(earlier, calibration)), [], False, True
        if isinstance(llm, Panel):
            one = partial(_judge_by, item, method, options, prompts)
            judgment, entries = await judge_with_panel(item, llm, memos, one)
            # signals takes a panel's agreement, not its members' score certainty: as before
            behind = entries if options.confidence == VERDICT_LOGPROBS else ()
            judgment = with_confidence(judgment, method, behind, options.confidence)
        elif options.confidence == SIMULATED_ANNOTATORS:
            judgment, entries = await judge_with_annotators(item, method, llm, memo, options, prompts, pool)
        else:
            judgment, entries = await judge_instance(item, method, llm, memo, options, prompts)
        if calibration is not None:
            judgment = abstain(judgment, calibration)
        return judgment, entries, False, False

    drive = partial(
        _drive, _instances(items), work, emitter.emit, options, options.window or default_window(llm)
    )
    if (tracer := tracing_internal.tracer()) is None:
        await drive()
        return emitter.stats
    with run_span(tracer, method.name, llm) as span:
        try:
            await drive()
        finally:
            record_run(span, emitter.stats)
    return emitter.stats


def _with_pool(items: Iterable[Item], options: JudgeOptions) -> tuple[Iterable[Item], tuple[Instance, ...]]:
    """The items, and the examples simulated annotators draw from: the given ones, or the run's own
    labelled instances (the items then read in full first); none without simulated annotators."""
    if options.annotators is None:
        return items, ()
    if options.annotators.pool is None:
        items = list(items)
    return items, shots_pool(options.annotators, items)


_DONE_TYPE = tuple[Judgment, list[TraceEntry], bool, bool]
"""A finished item as the spill holds it."""


async def _drive(
    items: Iterable[Item],
    work: Callable[[Item], Awaitable[_Done]],
    emit: Callable[[_Done], None],
    options: JudgeOptions,
    window: int,
) -> None:
    """Run ``work`` on the items and ``emit`` the results, as they finish or in input order with the
    results finished before their turn spilled (one slow instance holds back the output, not the work)."""
    if options.order == "finish":
        await as_finished(items, work, emit, window=window)
        return
    await in_order_spilled(items, work, emit, window=window, result_type=_DONE_TYPE)


async def _judge_by(
    instance: Instance, method: Method, options: JudgeOptions, prompts: Prompts, llm: LLM, memo: QueryMemo
) -> tuple[Judgment, list[TraceEntry]]:
    """`judge_instance` with one judge of a panel."""
    return await judge_instance(instance, method, llm, memo, options, prompts)


def check_arguments(items: object, method: object, llm: object, options: object) -> None:
    """TypeError, saying what to pass, for arguments of `judge_each` (and its callers) of the wrong kind;
    ConfigError for options the LLM cannot serve (`check_score_mode`). Before anything is opened."""
    if isinstance(items, str | bytes | os.PathLike):
        raise TypeError(
            f"instances must be Instance objects, not a path: read the file with read_instances({items!r})"
        )
    if isinstance(items, Instance):
        raise TypeError("instances must be an iterable of Instance objects, not one: pass [instance]")
    if isinstance(items, Mapping) or not isinstance(items, Iterable):
        raise TypeError(f"instances must be an iterable of Instance objects, got {type(items).__name__}")
    if isinstance(method, type):
        raise TypeError(f"method must be a method object, not the class: pass {method.__name__}()")
    if not callable(getattr(method, "judge_order", None)):
        raise TypeError(
            f"method must be a method object such as DnA() (create_method(name) builds one by name), "
            f"got {type(method).__name__} {method!r}"
        )
    if not isinstance(llm, LLM | Panel):
        raise TypeError(
            "llm must be an LLM (LLM.from_spec('openai:gpt-4o-mini')) or a Panel of them, "
            f"got {type(llm).__name__}"
        )
    if not isinstance(options, JudgeOptions):
        raise TypeError(f"options must be JudgeOptions(...), got {type(options).__name__}")
    check_score_mode(llm, options)
    from faceteval._runner._calibration import check_calibration  # (it reads the run record's templates)

    check_calibration(cast(Method, method), llm, options)
    if options.confidence == SIMULATED_ANNOTATORS and isinstance(llm, Panel):
        raise ConfigError(
            "--confidence simulated-annotators varies one judge with few-shot examples; a panel of "
            f"{len(llm.judges)} judges votes already: give one --model, or use the panel's agreement "
            "(--confidence signals)"
        )


def _instances(items: Iterable[object]) -> Iterator[Item]:
    """``items``, each checked to be an `Instance` (or the `InputError` of a line that is not one)."""
    for position, item in enumerate(items, 1):
        if not isinstance(item, Instance | InputError):
            raise TypeError(
                f"instances must be Instance objects, but item {position} is a {type(item).__name__}: "
                "read files with read_instances(path), or build Instance(**record)"
            )
        yield item


def default_window(llm: Judge) -> int:
    """Items in flight at once when a run does not say: four times the LLM's concurrency, at least 32."""
    return max(4 * llm.concurrency, 32)


class _Emitter:
    """Counts judgments as they are handed on, passes them to the sink, and stops a run that keeps failing."""

    def __init__(self, sink: Sink | None, stats: RunStats, abort_after: int) -> None:
        self.sink = sink
        self.stats = stats
        self.streak = FailureStreak(abort_after, "instances", "The judgments finished so far are kept")

    def emit(self, done: _Done) -> None:
        judgment, entries, invalid, reused = done
        if self.sink is not None:
            self.sink(judgment)  # first: a judgment the sink could not write is not counted
        self.stats.add(judgment, entries, invalid=invalid, reused=reused)
        if not invalid and judgment.error != PLANNED and not unjudgeable(judgment):
            self.streak.see(judgment.status == "error", judgment.error)


def _invalid(error: InputError, method: str) -> Judgment:
    return Judgment(
        id=error.record_id or f"line-{error.line}",
        method=method,
        status="error",
        error=f"{INVALID_INPUT}{error}",
    )
