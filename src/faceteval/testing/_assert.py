"""`assert_prefers` and `assert_score`: judge outputs with a faceteval method, fail with the evidence."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from faceteval import LLM, Instance, JudgeOptions, Judgment, Method, create_method, judge, judge_async
from faceteval._util.numbers import fmt, number
from faceteval.errors import ConfigError, JudgmentAssertionError
from faceteval.testing._checks import OUTPUT_LABELS, PAIR_LABELS, preference_failure, score_failure
from faceteval.testing._explain import details

DEFAULT_METHOD = "dna"
"""The method `assert_prefers` and `assert_score` judge with unless given one: DnA-Eval."""
INSTANCE_ID = "faceteval.testing"
"""The id of the instance an assertion judges (its judgment's ``id``)."""

Criteria = Sequence[str | Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class _Ask:
    """One assertion's judging: the instance, the method, and how."""

    instance: Instance
    method: Method
    options: JudgeOptions


def _ask(
    outputs: Sequence[str],
    query: str,
    method: str | Method,
    swap: bool,
    reference: str | None,
    criteria: Criteria | None,
    options: Mapping[str, Any],
) -> _Ask:
    if isinstance(method, str):
        judging = _create(method, options)
    elif options:
        raise ConfigError(
            f"method options ({', '.join(sorted(options))}) go with a method name, such as "
            f"method={method.name!r}; a method object is already built with its own"
        )
    else:
        judging = method
    fields = {"id": INSTANCE_ID, "query": query, "candidates": list(outputs), "reference": reference}
    try:
        instance = Instance.model_validate(
            fields | ({} if criteria is None else {"criteria": list(criteria)})
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(
            f"the outputs, query and reference to judge must be text, and the criteria names or "
            f"{{name, description}} mappings: {problems}"
        ) from exc
    return _Ask(instance, judging, JudgeOptions(swap=swap))


def _create(name: str, options: Mapping[str, Any]) -> Method:
    try:
        return create_method(name, **options)
    except TypeError as exc:  # an option the method does not take
        raise ConfigError(f"method {name!r}: {exc}") from exc


def _threshold(name: str, value: float, *, least: float | None = None) -> float:
    checked = number(value)
    if checked is None or (least is not None and checked < least):
        floor = "" if least is None else f" of at least {fmt(least)}"
        raise ConfigError(f"{name} must be a finite number{floor}, got {value!r}")
    return checked


def _blocking(name: str) -> None:
    """Refuse to block inside a running event loop (an async test), saying what to await instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise ConfigError(f"{name}() cannot block inside a running event loop: await {name}_async(...) there")


def _judged(ask: _Ask, llm: LLM) -> Judgment:
    (judgment,) = judge([ask.instance], ask.method, llm, options=ask.options)
    return judgment


async def _judged_async(ask: _Ask, llm: LLM) -> Judgment:
    (judgment,) = await judge_async([ask.instance], ask.method, llm, options=ask.options)
    return judgment


def _check(failure: str | None, judgment: Judgment, ask: _Ask, labels: Sequence[str]) -> Judgment:
    __tracebackhide__ = True  # pytest shows the test's line, not this one
    if failure is None:
        return judgment
    swapped = " in both orders" if ask.options.swap and len(labels) > 1 else ""
    headline = f"faceteval ({judgment.method}{swapped}): {failure}"
    lines = details(judgment, labels, ask.instance.candidates, ask.instance.query)
    raise JudgmentAssertionError("\n".join([headline, *lines]), judgment)


def assert_prefers(
    candidate: str,
    *,
    over: str,
    query: str,
    llm: LLM,
    method: str | Method = DEFAULT_METHOD,
    min_margin: float = 0.0,
    swap: bool = True,
    reference: str | None = None,
    criteria: Criteria | None = None,
    **options: Any,
) -> Judgment:
    """Assert that the judge prefers ``candidate`` over the baseline ``over`` as answers to ``query``.

    The pair is judged by ``method`` (a registry name built with ``options``, such as ``aspects=3``
    for DnA-Eval, or a method object), with ``swap`` in both orders: a verdict that changes with the
    order is a tie. The assertion holds when the verdict is the candidate and its overall score beats
    the baseline's by ``min_margin`` or more (on the method's scale); a tie, the baseline, or a reply
    that could not be read fails it, with the verdict, the margin, each order and each facet's
    weight, scores and explanation in the message.

    Returns:
        The judgment, for more checks of your own.

    Raises:
        JudgmentAssertionError: The candidate is not preferred by ``min_margin`` (an AssertionError).
        ConfigError: Called inside a running event loop (await `assert_prefers_async` there), or an
            option that is not the method's.
        FacetevalError: The model could not be called at all (an unreachable server, say).

    Examples:
        >>> from faceteval import LLM
        >>> from faceteval.llm import ModelSpec, ScriptedProvider
        >>> replies = ScriptedProvider.sequence(["9 2\\nThe first is right.", "5 8\\nThe second is."])
        >>> llm = LLM(replies, ModelSpec("scripted", "demo"))
        >>> assert_prefers("4", over="5", query="2+2?", llm=llm, method="direct", swap=False).scores
        [9.0, 2.0]
        >>> assert_prefers("5", over="4", query="2+2?", llm=llm, method="direct", swap=False)
        Traceback (most recent call last):
        ...
        faceteval.testing.JudgmentAssertionError: faceteval (direct): the baseline is preferred over the candidate (margin -3)
          query: '2+2?'
          candidate: '5'
          baseline: '4'
          verdict: baseline preferred; scores: candidate 5, baseline 8
          explanation: 'The second is.'
    """  # noqa: E501
    __tracebackhide__ = True
    _blocking("assert_prefers")
    margin = _threshold("min_margin", min_margin, least=0)
    ask = _ask([candidate, over], query, method, swap, reference, criteria, options)
    judgment = _judged(ask, llm)
    return _check(preference_failure(judgment, margin), judgment, ask, PAIR_LABELS)


async def assert_prefers_async(
    candidate: str,
    *,
    over: str,
    query: str,
    llm: LLM,
    method: str | Method = DEFAULT_METHOD,
    min_margin: float = 0.0,
    swap: bool = True,
    reference: str | None = None,
    criteria: Criteria | None = None,
    **options: Any,
) -> Judgment:
    """`assert_prefers` in a running event loop (an async test).

    As with `faceteval.judge_async`, the LLM's connections stay open in this loop for later calls:
    ``await llm.aclose()`` in the loop when done.
    """
    __tracebackhide__ = True
    margin = _threshold("min_margin", min_margin, least=0)
    ask = _ask([candidate, over], query, method, swap, reference, criteria, options)
    judgment = await _judged_async(ask, llm)
    return _check(preference_failure(judgment, margin), judgment, ask, PAIR_LABELS)


def assert_score(
    output: str,
    *,
    query: str,
    llm: LLM,
    at_least: float,
    method: str | Method = DEFAULT_METHOD,
    reference: str | None = None,
    criteria: Criteria | None = None,
    **options: Any,
) -> Judgment:
    """Assert that the judge scores ``output``, an answer to ``query``, at ``at_least`` or more.

    The output is judged alone (pointwise) by ``method``, on the method's scale (DnA-Eval: 1 to 10).
    A lower score, or a reply that could not be read, fails the assertion with the score and each
    facet's weight, score and explanation in the message.

    Returns:
        The judgment.

    Raises:
        JudgmentAssertionError: The score is below ``at_least``, or there is none (an AssertionError).
        ConfigError: Called inside a running event loop (await `assert_score_async` there), or an
            option that is not the method's.

    Examples:
        >>> from faceteval import LLM
        >>> from faceteval.llm import ModelSpec, ScriptedProvider
        >>> llm = LLM(ScriptedProvider.sequence(["8\\nClear and right."]), ModelSpec("scripted", "demo"))
        >>> assert_score("4", query="2+2?", llm=llm, at_least=7, method="direct").scores
        [8.0]
    """
    __tracebackhide__ = True
    _blocking("assert_score")
    floor = _threshold("at_least", at_least)
    ask = _ask([output], query, method, False, reference, criteria, options)
    judgment = _judged(ask, llm)
    return _check(score_failure(judgment, floor), judgment, ask, OUTPUT_LABELS)


async def assert_score_async(
    output: str,
    *,
    query: str,
    llm: LLM,
    at_least: float,
    method: str | Method = DEFAULT_METHOD,
    reference: str | None = None,
    criteria: Criteria | None = None,
    **options: Any,
) -> Judgment:
    """`assert_score` in a running event loop (an async test); ``await llm.aclose()`` there when done."""
    __tracebackhide__ = True
    floor = _threshold("at_least", at_least)
    ask = _ask([output], query, method, False, reference, criteria, options)
    judgment = await _judged_async(ask, llm)
    return _check(score_failure(judgment, floor), judgment, ask, OUTPUT_LABELS)
