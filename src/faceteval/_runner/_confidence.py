"""The confidence a judgment carries when it is made (`faceteval.core.confidence`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from faceteval._runner._verdict_logprobs import verdict_probability
from faceteval.core import SIGNALS, VERDICT_LOGPROBS, ConfidenceInputs, Judgment, TraceEntry, confidence
from faceteval.methods import Method


def with_confidence(
    judgment: Judgment, method: Method, trace: Sequence[TraceEntry] = (), estimator: str = SIGNALS
) -> Judgment:
    """``judgment`` with its confidence by ``estimator``: ``signals`` (the default) or ``verdict-logprobs``.

    ``signals``: the margin is measured on the method's ``scale`` when it has one; a judge panel's
    judgment takes its members' agreement from its ``panel`` (`faceteval.core.confidence`); the scores'
    certainty comes from the log-probabilities in ``trace`` (`logprob_certainty`).
    ``verdict-logprobs``: the verdict's probability from the distributions in ``trace``
    (`faceteval._runner._verdict_logprobs`); without them, no confidence and ``confidence_missing``
    says why.
    """
    if judgment.status != "ok":
        return judgment
    if estimator == VERDICT_LOGPROBS:
        found = verdict_probability(judgment, trace or judgment.trace)
        if isinstance(found, str):
            return judgment.model_copy(update={"confidence": None, "confidence_missing": found})
        return judgment.model_copy(update={"confidence": found, "confidence_estimator": VERDICT_LOGPROBS})
    scale = _described_scale(method)
    inputs = ConfidenceInputs(scale=scale, logprobs=logprob_certainty(trace, scale))
    value = confidence(judgment, inputs)
    named = SIGNALS if value is not None else None
    return judgment.model_copy(update={"confidence": value, "confidence_estimator": named})


def _described_scale(method: Method) -> tuple[float, float] | None:
    """The (low, high) ``scale`` a method describes among its params, if it describes one."""
    params: Any = method.describe().get("params", {})
    value = params.get("scale") if isinstance(params, dict) else None
    if isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int | float) for v in value):
        low, high = float(value[0]), float(value[1])
        return (low, high) if low < high else None
    return None


def logprob_certainty(trace: Sequence[TraceEntry], scale: tuple[float, float] | None) -> float | None:
    """How certain the scores behind a judgment were, from their distributions over the scale.

    Each score obtained from log-probabilities (``--score-mode logprobs``) has a distribution over the
    scale's values; its certainty is 1 minus its standard deviation over half the scale's width (a
    score all on one value: 1; spread evenly over both ends: 0). The judgment's is the mean over its
    scores; None without a scale or without such a score.

    Examples:
        >>> from faceteval.core import ScoreSource, TraceEntry
        >>> sure = ScoreSource(mode="logprobs", written=8, score=8.0, distribution=[(8, 1.0)])
        >>> split = ScoreSource(mode="logprobs", written=1, score=5.5, distribution=[(1, 0.5), (10, 0.5)])
        >>> entry = TraceEntry(stage="s", messages=[], raw="", scoring=[sure, split])
        >>> logprob_certainty([entry], (1.0, 10.0))
        0.5
    """
    if scale is None:
        return None
    half = (scale[1] - scale[0]) / 2
    spreads = [
        math.sqrt(math.fsum(p * (value - source.score) ** 2 for value, p in source.distribution))
        for entry in trace
        for source in entry.scoring or ()
        if source.mode == "logprobs" and source.distribution
    ]
    if not spreads or half <= 0:
        return None
    return math.fsum(max(0.0, 1 - spread / half) for spread in spreads) / len(spreads)
