"""Judging one instance: in each order asked for, each order's outcome put back in the original
candidate order, and the orders combined into its judgment."""

from __future__ import annotations

from functools import partial
from statistics import fmean
from typing import Any

from faceteval._runner._confidence import with_confidence
from faceteval._runner._options import JudgeOptions, run_prompts
from faceteval._runner._tracing import instance_span, record_judgment
from faceteval.aggregation import ranks, verdict
from faceteval.core import FacetScore, Instance, Judgment, OrderResult, RecordedMode, TraceEntry, usage_of
from faceteval.core.internal import PLANNED, merged_modes
from faceteval.errors import FacetevalError, InstanceError, ParseError, ProviderError
from faceteval.llm import LLM
from faceteval.methods import JudgeContext, Method, OrderOutcome, QueryMemo, gather
from faceteval.methods.internal import severity
from faceteval.prompts import Prompts
from faceteval.tracing import internal as tracing_internal


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


async def judge_instance(
    instance: Instance,
    method: Method,
    llm: LLM,
    memo: QueryMemo,
    options: JudgeOptions,
    prompts: Prompts | None = None,
    examples: str | None = None,
) -> tuple[Judgment, list[TraceEntry]]:
    """Judge one instance in every order asked for; returns the judgment and its full trace.

    The stages render ``prompts`` (the run's: `run_prompts` of ``options`` when not given), with
    ``examples`` (a simulated annotator's, rendered) before each prompt when given. While tracing is
    on, the instance is a span, the parent of its LLM calls' spans.
    """
    prompts = run_prompts(options) if prompts is None else prompts
    judging = partial(_judge_instance, instance, method, llm, memo, options, prompts, examples)
    if (tracer := tracing_internal.tracer()) is None:
        return await judging()
    with instance_span(tracer, instance.id, method.name) as span:
        judgment, trace = await judging()
        record_judgment(span, judgment, instance.n_candidates)
    return judgment, trace


async def _judge_instance(
    instance: Instance,
    method: Method,
    llm: LLM,
    memo: QueryMemo,
    options: JudgeOptions,
    prompts: Prompts,
    examples: str | None,
) -> tuple[Judgment, list[TraceEntry]]:
    if (unjudgeable := cannot_judge(method, instance)) is not None:
        failed = Judgment(id=instance.id, method=method.name, status="error", error=_describe(unjudgeable))
        return failed.model_copy(update={"input_hash": instance.content_hash()}), []
    orders = presentation_orders(instance.n_candidates, swap=options.swap)
    runs = await gather(
        [
            partial(_judge_order, instance, order, method, llm, memo, options, prompts, examples)
            for order in orders
        ]
    )
    trace = [entry for _, _, entries in runs for entry in entries]
    kept = trace if options.trace else []
    if any(entry.planned for entry in trace):  # a dry run's stand-in replies: a plan, not a judgment
        judgment = Judgment(id=instance.id, method=method.name, status="error", error=PLANNED, trace=kept)
    else:
        assembled = _assemble(instance, method.name, runs, kept)
        judgment = with_confidence(assembled, method, trace, options.confidence)
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
    prompts: Prompts,
    examples: str | None = None,
) -> _Run:
    ctx = JudgeContext(
        llm,
        memo,
        order=order,
        score_mode=options.score_mode,
        top_logprobs=options.top_logprobs,
        prompts=prompts,
        examples=examples,
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
