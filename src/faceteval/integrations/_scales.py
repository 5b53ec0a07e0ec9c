"""The range a method's scores are on, and a score as a share of it: what the integrations' 0-to-1 scores
are made of (DeepEval's metric scores, Inspect's scorer values).

A method's scale is its ``scale`` parameter (DnA-Eval and the baselines: 1 to 10 by default; CoEval and
HD-Eval: 1 to 5), else its spec's; Fennec's overall score is a sum over its k criteria, so its overall
scale is k to 5k (its spec's rule). No tool here: plain functions of faceteval's methods.
"""

from __future__ import annotations

import math
from typing import Any

from faceteval.errors import ConfigError
from faceteval.methods import Method
from faceteval.methods.internal import find_method_spec

Scale = tuple[float, float]
"""A score range: ``(low, high)``, low below high."""


def checked_scale(value: Any) -> Scale:
    """``value`` as a scale: two finite numbers, low below high.

    Raises:
        ConfigError: It is not one.
    """
    try:
        low, high = (float(end) for end in value)
    except (TypeError, ValueError):
        raise ConfigError(f"scale is (low, high), two numbers, got {value!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ConfigError(f"scale is (low, high) with low below high, got {value!r}")
    return low, high


def facet_scale(
    method: Method, fallback: Scale | None, *, fix: str = "give scale=(low, high), the range of its scores"
) -> Scale:
    """The range ``method``'s facet scores are on: its ``scale`` parameter, its spec's, or ``fallback``.

    Raises:
        ConfigError: The method records no scale, is not registered, and there is no fallback
            (``fix`` says what to do about it).
    """
    recorded = _recorded_scale(method.describe().get("params", {}))
    if recorded is not None:
        return recorded
    spec = find_method_spec(method.name)
    if spec is None and fallback is not None:
        return fallback
    if spec is None:
        raise ConfigError(f"method {method.name!r} is not registered and records no scale: {fix}")
    return spec.scale


def overall_scale(method: Method, facets: int, given: Scale | None) -> Scale:
    """The range of ``method``'s overall score for a judgment of ``facets`` facets.

    ``given`` first; then the spec's own rule (Fennec's sum over k criteria: k to 5k); then the facet scale.

    Examples:
        >>> from faceteval.methods import create_method
        >>> overall_scale(create_method("fennec"), 4, None), overall_scale(create_method("dna"), 3, None)
        ((4.0, 20.0), (1.0, 10.0))
    """
    if given is not None:
        return given
    spec = find_method_spec(method.name)
    if spec is not None and spec.overall_scale is not None:
        summed = spec.overall_scale(method.describe().get("params", {}), [facets])
        if summed is not None:
            return summed
    return facet_scale(method, None)


def _recorded_scale(params: Any) -> Scale | None:
    value = params.get("scale") if isinstance(params, dict) else None
    if isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int | float) for v in value):
        return float(value[0]), float(value[1])
    return None


def normalised(value: float, scale: Scale) -> float:
    """``value`` on ``scale`` as a share of it, ``(value - low) / (high - low)``, held within 0..1.

    Examples:
        >>> normalised(7, (1, 10)), normalised(1, (1, 10)), normalised(12, (1, 10))
        (0.6666666666666666, 0.0, 1.0)
    """
    low, high = scale
    return min(1.0, max(0.0, (value - low) / (high - low)))
