"""Numbers as LLMs write them, and as problems and reports show them."""

from __future__ import annotations

import math

NUMBER = r"[-+]?\d+(?:\.\d+)?"
"""A signed integer or decimal, as a regex source ("8", "7.5", "-2")."""

UNSIGNED = r"\d+(?:\.\d+)?"
"""An unsigned integer or decimal, as a regex source (denominators, percentages)."""


def fmt(value: float) -> str:
    """Show a number the way a person would write it: ``8`` for 8.0, ``7.5``, ``0.333333``."""
    if math.isfinite(value) and value == int(value):
        return str(int(value))
    return f"{value:.6g}"


def describe_range(low: float, high: float) -> str:
    """A scale as prose: ``1-10``, or ``-1 to 1`` when a dash would be confusing."""
    if low < 0:
        return f"{fmt(low)} to {fmt(high)}"
    return f"{fmt(low)}-{fmt(high)}"
