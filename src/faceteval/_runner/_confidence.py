"""The confidence a judgment carries when it is made (`faceteval.core.confidence`)."""

from __future__ import annotations

from typing import Any

from faceteval.core import ConfidenceInputs, Judgment, confidence
from faceteval.methods import Method


def with_confidence(judgment: Judgment, method: Method) -> Judgment:
    """``judgment`` with its confidence, its margin measured on the method's ``scale`` when it has one.

    A judge panel's judgment takes its members' agreement from its ``panel`` (`faceteval.core.confidence`).
    """
    if judgment.status != "ok":
        return judgment
    inputs = ConfidenceInputs(scale=_described_scale(method))
    return judgment.model_copy(update={"confidence": confidence(judgment, inputs)})


def _described_scale(method: Method) -> tuple[float, float] | None:
    """The (low, high) ``scale`` a method describes among its params, if it describes one."""
    params: Any = method.describe().get("params", {})
    value = params.get("scale") if isinstance(params, dict) else None
    if isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int | float) for v in value):
        low, high = float(value[0]), float(value[1])
        return (low, high) if low < high else None
    return None
