"""Orchestration behind `judge`: streaming, windowed concurrency, orders, verdicts, statistics."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from functools import partial
from statistics import fmean
from typing import Any, TypeVar

from faceteval import tracing
from faceteval._runner._confidence import with_confidence
from faceteval._runner._options import (
    DEFAULT_JUDGE_OPTIONS,
    JudgeOptions,
    check_score_mode,
    templates_of,
)
from faceteval._runner._panel import judge_with_panel, panel_memos
from faceteval._runner._stats import RunStats, unjudgeable
from faceteval._runner._tracing import instance_span, record_judgment, record_run, run_span
from faceteval._runner._window import as_finished, in_order_spilled
from faceteval.aggregation import ranks, verdict
from faceteval.core import (
    INVALID_INPUT,
    PLANNED,
    FacetScore,
    Instance,
    Judgment,
    OrderResult,
    RecordedMode,
    TraceEntry,
    merged_modes,
    usage_of,
)
from faceteval.errors import FacetevalError, InputError, InstanceError, ParseError, ProviderError
from faceteval.llm import LLM, Judge, Panel
from faceteval.methods import (
    JudgeContext,
    Method,
    OrderOutcome,
    QueryMemo,
    gather,
    severity,
)
from faceteval.prompts import using_templates

Item = Instance | InputError
Sink = Callable[[Judgment], None]
_Done = tuple[Judgment, list[TraceEntry], bool, bool]
"""A finished item: its judgment, the exchanges behind it, whether it was invalid, and reused."""
T = TypeVar("T")
R = TypeVar("R")


class RunAborted(FacetevalError):
    """Too many instances in a row failed with errors (the provider's, most often); the run stopped.

    Attributes:
        judgments: The judgments handed on before it stopped, in the run's order (filled in by
            `faceteval.judge` and `faceteval.judge_async`; a ``sink`` has had them already).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.judgments: list[Judgment] = []


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
        """Count a result (``failed``: an error, not a parse error); raises `RunAborted` at the limit."""
        self.count = self.count + 1 if failed else 0
        if self.limit and self.count >= self.limit:
            raise RunAborted(
                f"stopped after {self.count} {self.what} in a row failed (the last: {error})\n"
                f"{self.kept} (and, with a response cache, every reply received): fix the cause and run "
                "it again."
            )


def presentation_orders(n: int, *, swap: bool) -> list[tuple[int, ...]]:
    """Candidate orders to judge: the given one, or with ``swap`` every rotation (both orders for two).

    Examples:
        >>> presentation_orders(2, swap=True)
        [(0, 1), (1, 0)]
        >>> presentation_orders(3, swap=True)
        [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    """
    base = tuple(range(n))
    if not swap or n < 2:
        return [base]
    return [base[k:] + base[:k] for k in range(n)]


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
    whole method, with its own facets and weights) and the judgments are combined by its vote.

    Raises:
        TypeError: An argument is not of its kind (a path or one instance for ``items``, a method
            class rather than a method, ...), or an item is not an `Instance`; before that item's work.
        RunAborted: ``options.abort_after`` instances in a row failed with provider errors.
        FacetevalError: A fatal error (credentials refused, cache unusable) stopped the run.
    """
    check_arguments(items, method, llm, options)
    with using_templates(templates_of(options)):
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
    emitter = _Emitter(sink, RunStats() if stats is None else stats, options.abort_after)

    async def work(item: Item) -> _Done:
        if isinstance(item, InputError):
            return _invalid(item, method.name), [], True, False
        if reuse is not None and (earlier := reuse(item)) is not None:
            return earlier, [], False, True
        if isinstance(llm, Panel):
            one = partial(_judge_by, item, method, options)
            judgment, entries = await judge_with_panel(item, llm, memos, one)
            judgment = with_confidence(judgment, method)
        else:
            judgment, entries = await judge_instance(item, method, llm, memo, options)
        return judgment, entries, False, False

    drive = partial(
        _drive, _instances(items), work, emitter.emit, options, options.window or default_window(llm)
    )
    if (tracer := tracing.tracer()) is None:
        await drive()
        return emitter.stats
    with run_span(tracer, method.name, llm) as span:
        try:
            await drive()
        finally:
            record_run(span, emitter.stats)
    return emitter.stats


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
    instance: Instance, method: Method, options: JudgeOptions, llm: LLM, memo: QueryMemo
) -> tuple[Judgment, list[TraceEntry]]:
    """`judge_instance` with one judge of a panel."""
    return await judge_instance(instance, method, llm, memo, options)


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


async def judge_instance(
    instance: Instance, method: Method, llm: LLM, memo: QueryMemo, options: JudgeOptions
) -> tuple[Judgment, list[TraceEntry]]:
    """Judge one instance in every order asked for; returns the judgment and its full trace.

    While tracing is on, the instance is a span, the parent of its LLM calls' spans.
    """
    if (tracer := tracing.tracer()) is None:
        return await _judge_instance(instance, method, llm, memo, options)
    with instance_span(tracer, instance.id, method.name) as span:
        judgment, trace = await _judge_instance(instance, method, llm, memo, options)
        record_judgment(span, judgment)
    return judgment, trace


async def _judge_instance(
    instance: Instance, method: Method, llm: LLM, memo: QueryMemo, options: JudgeOptions
) -> tuple[Judgment, list[TraceEntry]]:
    if (unjudgeable := cannot_judge(method, instance)) is not None:
        failed = Judgment(id=instance.id, method=method.name, status="error", error=_describe(unjudgeable))
        return failed.model_copy(update={"input_hash": instance.content_hash()}), []
    orders = presentation_orders(instance.n_candidates, swap=options.swap)
    runs = await gather(
        [partial(_judge_order, instance, order, method, llm, memo, options) for order in orders]
    )
    trace = [entry for _, _, entries in runs for entry in entries]
    kept = trace if options.trace else []
    if any(entry.planned for entry in trace):  # a dry run's stand-in replies: a plan, not a judgment
        judgment = Judgment(id=instance.id, method=method.name, status="error", error=PLANNED, trace=kept)
    else:
        judgment = with_confidence(_assemble(instance, method.name, runs, kept), method, trace)
    recorded = {"usage": usage_of(trace), "input_hash": instance.content_hash()}
    return judgment.model_copy(update=recorded), trace


_Run = tuple[tuple[int, ...], OrderOutcome | FacetevalError, list[TraceEntry]]


def cannot_judge(method: Method, instance: Instance) -> InstanceError | None:
    """Why ``method`` cannot judge ``instance`` as it is (its ``check``, when it has one), else None."""
    check = getattr(method, "check", None)
    try:
        if check is not None:
            check(instance)
    except InstanceError as exc:
        return exc
    return None


async def _judge_order(
    instance: Instance,
    order: tuple[int, ...],
    method: Method,
    llm: LLM,
    memo: QueryMemo,
    options: JudgeOptions,
) -> _Run:
    ctx = JudgeContext(
        llm, memo, order=order, score_mode=options.score_mode, top_logprobs=options.top_logprobs
    )
    try:
        outcome: OrderOutcome | FacetevalError = await method.judge_order(instance.permuted(order), ctx)
    except (ParseError, ProviderError, InstanceError) as exc:
        if severity(exc) < 2:  # credentials refused, server unreachable: no instance can succeed
            raise
        outcome = exc
    return order, outcome, ctx.trace


def _assemble(instance: Instance, method: str, runs: list[_Run], trace: list[TraceEntry]) -> Judgment:
    done = [(order, outcome) for order, outcome, _ in runs if isinstance(outcome, OrderOutcome)]
    results = [_order_result(instance, order, outcome) for order, outcome in done]
    failures = [(order, outcome) for order, outcome, _ in runs if isinstance(outcome, FacetevalError)]
    if failures:
        order, error = failures[0]
        where = f"order {','.join(str(i + 1) for i in order)}: " if len(runs) > 1 else ""
        status = "parse_error" if all(isinstance(e, ParseError) for _, e in failures) else "error"
        return Judgment(
            id=instance.id,
            method=method,
            status=status,
            error=f"{where}{_describe(error)}",
            orders=results if len(runs) > 1 else [],
            trace=trace,
        )
    if len(results) == 1:
        only = results[0]
        return Judgment(
            id=instance.id,
            method=method,
            status="ok",
            verdict=only.verdict,
            scores=only.scores,
            ranks=ranks(only.scores) if only.scores is not None else None,
            facets=only.facets,
            explanation=only.explanation,
            score_modes=only.score_modes,
            trace=trace,
        )
    verdicts = {r.verdict for r in results}
    scores = [
        round(fmean(r.scores[m] for r in results if r.scores is not None), 9)
        for m in range(instance.n_candidates)
    ]
    return Judgment(
        id=instance.id,
        method=method,
        status="ok",
        verdict=verdicts.pop() if len(verdicts) == 1 else 0,
        scores=scores,
        ranks=ranks(scores),
        facets=_mean_facets(results),
        explanation=results[0].explanation,  # the original order's: orders run from it
        score_modes=merged_modes([r.score_modes for r in results]),
        consistent=len({r.verdict for r in results}) == 1,
        orders=results,
        trace=trace,
    )


def _order_result(instance: Instance, order: tuple[int, ...], outcome: OrderOutcome) -> OrderResult:
    """Map an outcome in presented order back to the original candidate order."""
    n = instance.n_candidates
    if len(outcome.scores) != n:
        raise ValueError(f"{len(outcome.scores)} scores for {n} candidates")
    scores = [0.0] * n
    for shown, original in enumerate(order):
        scores[original] = outcome.scores[shown]
    facets = []
    for facet in outcome.facets:
        values: list[float | None] = [None] * n
        for shown, original in enumerate(order):
            values[original] = facet.scores[shown]
        update: dict[str, Any] = {"scores": values}
        if facet.score_modes is not None:
            update["score_modes"] = _in_original(facet.score_modes, order)
        if facet.explanations is not None:
            explanations: list[str | None] = [None] * n
            for shown, original in enumerate(order):
                explanations[original] = facet.explanations[shown]
            update["explanations"] = explanations
        facets.append(facet.model_copy(update=update))
    return OrderResult(
        order=[i + 1 for i in order],
        verdict=verdict(scores),
        scores=scores,
        facets=facets,
        explanation=outcome.explanation,
        score_modes=None if outcome.score_modes is None else _in_original(outcome.score_modes, order),
    )


def _in_original(modes: list[RecordedMode | None], order: tuple[int, ...]) -> list[RecordedMode | None]:
    """Per-candidate modes listed as presented, put in the original candidate order."""
    original: list[RecordedMode | None] = [None] * len(order)
    for shown, index in enumerate(order):
        original[index] = modes[shown]
    return original


def _mean_facets(results: list[OrderResult]) -> list[FacetScore]:
    """Facet scores averaged over orders (facets depend on the query only, so they line up)."""
    merged = []
    for j, first in enumerate(results[0].facets):
        means: list[float | None] = []
        for m in range(len(first.scores)):
            known = [score for r in results if (score := r.facets[j].scores[m]) is not None]
            means.append(round(fmean(known), 9) if len(known) == len(results) else None)
        modes = merged_modes([r.facets[j].score_modes for r in results])
        merged.append(first.model_copy(update={"scores": means, "score_modes": modes}))
    return merged


def _describe(error: FacetevalError) -> str:
    if isinstance(error, ParseError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _invalid(error: InputError, method: str) -> Judgment:
    return Judgment(
        id=error.record_id or f"line-{error.line}",
        method=method,
        status="error",
        error=f"{INVALID_INPUT}{error}",
    )
