"""`FacetMetric`: a faceteval method as a DeepEval metric."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import anyio
from deepeval.metrics import BaseMetric
from deepeval.metrics.indicator import metric_progress_indicator
from deepeval.metrics.utils import check_llm_test_case_params, construct_verbose_logs
from deepeval.test_case import LLMTestCase, SingleTurnParams
from deepeval.utils import get_or_create_event_loop
from pydantic import ValidationError

from faceteval import LLM, FacetScore, Instance, JudgeOptions, Judgment, judge_async
from faceteval.errors import ConfigError, FacetevalError, InstanceError, ParseError
from faceteval.integrations._scales import Scale, checked_scale, facet_scale, overall_scale
from faceteval.integrations.deepeval._model import Model, evaluation_model, judge_llm
from faceteval.integrations.deepeval._scoring import (
    PAIRWISE_SCORES,
    PairwiseScore,
    breakdown,
    pairwise_score,
    pointwise_score,
    reason,
)
from faceteval.llm import ResponseCache
from faceteval.methods import Method, create_method

T = TypeVar("T")

_POINTWISE = [SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT]
_AGAINST_EXPECTED = [*_POINTWISE, SingleTurnParams.EXPECTED_OUTPUT]
_MEASURING: dict[tuple[int, int], int] = {}
"""Measures under way per (LLM, event loop): the last to end closes the LLM's connections in that loop."""


class FacetMetric(BaseMetric):  # type: ignore[no-untyped-call]  # DeepEval's __init_subclass__
    """A DeepEval metric that judges an `LLMTestCase` with a faceteval method.

    Pointwise, the test case's ``actual_output`` is judged alone for its ``input``; pairwise, against
    ``baseline`` when given, else against the test case's ``expected_output``. The score is from 0 to 1
    (see `faceteval.integrations.deepeval` for the mapping), the ``reason`` names each facet's weight,
    scores and explanation, and after a measure the metric holds ``facets`` (the judgment's
    `FacetScore`s), ``score_breakdown`` (each facet's score of the actual output, 0 to 1) and
    ``judgment`` (the whole `Judgment`, with its trace). A reply that cannot be read raises `ParseError`
    and sets ``error`` (DeepEval reports it as the metric's error with ``ignore_errors``): it never
    gives a score.

    The judge (``model``) is what DeepEval's own metrics take: a DeepEval model (``OpenAIModel(...)``, a
    ``DeepEvalBaseLLM`` of your own), whose ``a_generate`` makes each of the judge's calls; a DeepEval
    model name (``"gpt-4o-mini"``), or None for the model DeepEval is configured to use, resolved as
    DeepEval's metrics resolve theirs. A faceteval model spec or `LLM` is judged through faceteval's own
    providers, with its response cache. After construction ``model`` holds the faceteval `LLM` that
    makes the calls (DeepEval's copies of the metric share it).

    Args:
        model: The judge: a DeepEval model, a DeepEval model name, None (DeepEval's configured model),
            a faceteval `LLM`, or a faceteval model spec (``openai:gpt-4o-mini``: a known provider, a
            colon and the model) built with ``base_url``, ``api_key``, ``cache`` and ``endpoint_id``.
        method: A registered method's name (``dna``, ``fennec`` ...) or a `Method`.
        method_options: The named method's parameters (``{"aspects": 5}``).
        baseline: An output to compare every actual output with (judging pairwise).
        pairwise: Judge against a baseline (``baseline``, else ``expected_output``); by default, when
            ``baseline`` is given.
        pairwise_score: ``verdict`` (win 1, tie 0.5, loss 0) or ``margin`` (the overall scores' difference).
        scale: The method's overall score range, when its spec cannot say (a method of your own).
        threshold: The least score that passes (1 in strict mode).
        name: The metric's name in DeepEval's reports (default ``"faceteval <method>"``, or
            ``"faceteval <method> pairwise"``); DeepEval's ``use_cache`` tells metrics apart by it. Its
            console reads a name as rich markup: ``[...]`` in one is not shown.
        base_url: The API root for a model spec (any OpenAI-compatible server).
        api_key: The key for a model spec (else the provider's usual environment variable).
        cache: A response cache for a model spec: a SQLite file's path, or a `ResponseCache`.
        endpoint_id: For a model spec, the endpoint's name in the cache's keys in place of its URL
            (``--endpoint-id``): a server that moves to another port keeps its cached replies.
        swap: Judge both presentation orders (the default); a verdict they disagree on is a tie.
        include_reason: Build the ``reason``.
        strict_mode: Pass only a full score: the score is 1 or 0.
        async_mode: Accepted as DeepEval's metrics accept it; faceteval's calls are concurrent either way.
        verbose_mode: Print the steps, as DeepEval's metrics do.
        flaky: Mark the metric flaky for DeepEval.
    """

    model: LLM  # type: ignore[assignment]  # DeepEval's metrics hold a DeepEval model; this one, its LLM

    def __init__(
        self,
        model: Model = None,
        *,
        method: Method | str = "dna",
        method_options: Mapping[str, Any] | None = None,
        baseline: str | None = None,
        pairwise: bool | None = None,
        pairwise_score: PairwiseScore = "verdict",
        scale: tuple[float, float] | None = None,
        threshold: float = 0.5,
        name: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        cache: str | Path | ResponseCache | None = None,
        endpoint_id: str | None = None,
        swap: bool = True,
        include_reason: bool = True,
        strict_mode: bool = False,
        async_mode: bool = True,
        verbose_mode: bool = False,
        flaky: bool = False,
    ) -> None:
        # Every argument DeepEval's copy_metrics passes back is kept under its own name: the LLM and the
        # method as built (so copies share the LLM's connections, concurrency limit and cache).
        self.model = judge_llm(
            model, base_url=base_url, api_key=api_key, cache=cache, endpoint_id=endpoint_id
        )
        self.method = _method(method, method_options)
        if pairwise is False and baseline is not None:
            raise ConfigError("a baseline is judged against: pairwise=False leaves it nothing to do")
        if pairwise_score not in PAIRWISE_SCORES:
            raise ConfigError(
                f"pairwise_score is one of {', '.join(PAIRWISE_SCORES)}, got {pairwise_score!r}"
            )
        self.baseline = baseline
        self.pairwise = baseline is not None if pairwise is None else bool(pairwise)
        self.pairwise_score: PairwiseScore = pairwise_score
        self.scale: Scale | None = None if scale is None else checked_scale(scale)
        self.threshold = 1.0 if strict_mode else _threshold(threshold)
        # DeepEval's own cache (use_cache=True) tells metrics apart by name, threshold and model alone.
        # No square brackets: DeepEval's console reads a name as rich markup, and drops a [tag] in it.
        self.name = name or f"faceteval {self.method.name}{' pairwise' if self.pairwise else ''}"
        self.swap = swap
        self.include_reason = include_reason
        self.strict_mode = strict_mode
        self.async_mode = async_mode
        self.verbose_mode = verbose_mode
        self.flaky = flaky
        self.evaluation_model = evaluation_model(self.model)
        self.facets: list[FacetScore] = []
        self.judgment: Judgment | None = None

    @property
    def __name__(self) -> str:
        return self.name

    def measure(
        self, test_case: LLMTestCase, _show_indicator: bool = True, _in_component: bool = False
    ) -> float:
        """Judge ``test_case`` and return its score (0 to 1); the metric then holds the result.

        Runs in an event loop of its own, closed when it returns. In a running loop (a notebook's) it
        runs nested in that loop, as DeepEval's own metrics do: there, prefer ``await
        metric.a_measure(test_case)``.

        Raises:
            ParseError: A reply could not be read (``error`` holds why).
            FacetevalError: The judgment failed otherwise (the provider's error, an unjudgeable input).
            MissingTestCaseParamsError: The test case lacks a field the metric needs.
        """
        instance = self._start(test_case)
        with metric_progress_indicator(self, _show_indicator=_show_indicator, _in_component=_in_component):
            if _loop_running():
                judgment = get_or_create_event_loop().run_until_complete(self._judge(instance))
            else:
                # A loop that is not made the thread's (as anyio.run's is, then unset): DeepEval's loop,
                # if the thread has one, stays the thread's; DeepEval runs measure() in worker threads too.
                with asyncio.Runner(loop_factory=asyncio.new_event_loop) as runner:
                    judgment = runner.run(self._judge(instance))
            return self._finish(judgment)

    async def a_measure(
        self, test_case: LLMTestCase, _show_indicator: bool = True, _in_component: bool = False
    ) -> float:
        """`measure` in the running event loop."""
        instance = self._start(test_case)
        with metric_progress_indicator(
            self, async_mode=True, _show_indicator=_show_indicator, _in_component=_in_component
        ):
            return self._finish(await self._judge(instance))

    def is_successful(self) -> bool:
        """Whether the last measure passed: no error, and a score at least the threshold."""
        score, threshold = self.score, self.threshold
        self.success = (
            self.error is None and score is not None and threshold is not None and score >= threshold
        )
        return self.success

    def _start(self, test_case: LLMTestCase) -> Instance:
        """Forget the last measure's result, check ``test_case`` and make it an instance."""
        self.score = self.reason = self.success = self.error = self.judgment = None
        self.score_breakdown = {}
        self.facets = []
        self.evaluation_cost = self.input_tokens = self.output_tokens = None
        against_expected = self.pairwise and self.baseline is None
        params = _AGAINST_EXPECTED if against_expected else _POINTWISE
        multimodal = getattr(test_case, "multimodal", False)
        check_llm_test_case_params(test_case, params, None, None, self, None, multimodal)
        candidates = [test_case.actual_output]
        if self.pairwise:
            candidates.append(test_case.expected_output if self.baseline is None else self.baseline)
        try:
            return Instance(id=test_case.name or "test case", query=test_case.input, candidates=candidates)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            self.error = f"the test case cannot be judged: {first['loc'][0]}: {first['msg']}"
            raise InstanceError(self.error) from None

    async def _judge(self, instance: Instance) -> Judgment:
        options = JudgeOptions(swap=self.swap, abort_after=0)
        judging = partial(judge_async, [instance], self.method, self.model, options=options)
        try:
            (judgment,) = await _closing_last(self.model, judging)
        except FacetevalError as exc:  # one that stops a run: no server there, a refused key
            self.error, self.success = f"{self.name}: {exc}", False
            raise
        return judgment

    def _finish(self, judgment: Judgment) -> float:
        """Read ``judgment`` into the metric's score, reason and facets (or its error, raised)."""
        self.judgment = judgment
        self.evaluation_cost = judgment.usage.cost_usd
        self.input_tokens, self.output_tokens = judgment.usage.input_tokens, judgment.usage.output_tokens
        if judgment.status != "ok":
            self.error = f"{self.name}: {judgment.error}"
            self.success = False
            raise (ParseError if judgment.status == "parse_error" else FacetevalError)(self.error)
        scale = overall_scale(self.method, len(judgment.facets), self.scale)
        if self.pairwise:
            score = pairwise_score(judgment, scale, self.pairwise_score)
        else:
            score = pointwise_score(judgment, scale)
        self.score = 0.0 if self.strict_mode and score < 1 else score
        self.facets = list(judgment.facets)
        self.score_breakdown = breakdown(judgment, facet_scale(self.method, self.scale))
        if self.include_reason:
            against = None if not self.pairwise else "baseline" if self.baseline else "expected output"
            self.reason = reason(judgment, scale, self.score, against=against)
        self.is_successful()
        self.verbose_logs = construct_verbose_logs(
            self,
            steps=[f"Method: {self.method.describe()}", f"Score: {self.score}", f"Reason: {self.reason}"],
        )
        return self.score


def _method(method: Method | str, options: Mapping[str, Any] | None) -> Method:
    if isinstance(method, str):
        return create_method(method, **(options or {}))
    if options:
        raise ConfigError("method_options configure a method named by its name; the method given is built")
    if not all(hasattr(method, attribute) for attribute in ("name", "describe", "judge_order")):
        raise ConfigError(f"method is a method's name or a faceteval Method, got {method!r}")
    return method


def _threshold(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ConfigError(f"threshold is a number from 0 to 1 (the score's range), got {value!r}")
    return float(value)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _closing_last(llm: LLM, work: Callable[[], Awaitable[T]]) -> T:
    """``await work()``; when no other measure with ``llm`` is under way in this event loop, close its
    connections here (DeepEval's loop outlives the measure, and would hold them open otherwise)."""
    key = (id(llm), id(asyncio.get_running_loop()))
    _MEASURING[key] = _MEASURING.get(key, 0) + 1
    try:
        return await work()
    finally:
        _MEASURING[key] -= 1
        if not _MEASURING[key]:
            del _MEASURING[key]
            with anyio.CancelScope(shield=True):
                await llm.aclose()
