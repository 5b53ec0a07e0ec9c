"""Numbers as LLMs write them, and as problems and reports show them."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

NUMBER = r"[-+]?\d+(?:\.\d+)?"
"""A signed integer or decimal, as a regex source ("8", "7.5", "-2")."""

UNSIGNED = r"\d+(?:\.\d+)?"
"""An unsigned integer or decimal, as a regex source (denominators, percentages)."""

OUT_OF = re.compile(
    rf"[ \t]*(?P<open>\()?[ \t]*(?:/|\bout\s+of\b)[ \t]*(?P<denominator>{UNSIGNED})(?(open)[ \t]*\)?)",
    re.IGNORECASE,
)
"""A denominator written after a score ("/10", " out of 10", " (out of 10)"), as ``denominator``."""

RANGE_END = re.compile(rf"[ \t]*(?:-|–|—|\bto\b|\bor\b)[ \t]*(?P<end>{UNSIGNED})", re.IGNORECASE)
"""The rest of a range after its first number ("-5", " – 5", " to 5", " or 5"), its top as ``end``."""


def fmt(value: float) -> str:
    """Show a number the way a person would write it: ``8`` for 8.0, ``7.5``, ``0.333333``."""
    if math.isfinite(value) and value == int(value):
        return str(int(value))
    return f"{value:.6g}"


def rounded(value: float, digits: int = 6) -> float:
    """``value`` to ``digits`` significant digits (as `fmt` shows it): a computed score without the
    floating-point noise of its last digits.

    Examples:
        >>> rounded(4.923500379412065), rounded(-0.21612525316243048), rounded(3.0), rounded(1e-12 / 3)
        (4.9235, -0.216125, 3.0, 3.33333e-13)
    """
    return float(f"{value:.{digits}g}")


def number(value: Any) -> float | None:
    """``value`` as a finite float, or None when it is not a real number.

    Examples:
        >>> number(3), number("x"), number(float("nan")), number(True)
        (3.0, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def describe_range(low: float, high: float) -> str:
    """A scale as prose: ``1-10``, or ``-1 to 1`` when a dash would be confusing."""
    if low < 0:
        return f"{fmt(low)} to {fmt(high)}"
    return f"{fmt(low)}-{fmt(high)}"


def denominator_problem(score: str, denominator: str, scale: tuple[float, float]) -> str | None:
    """Why a score written out of ``denominator`` is not on ``scale``, or None when it is out of its top.

    A score is never rescaled: "4/10" is not a 2 on a 1-5 scale, and a judge that scored out of 10 may
    have judged against another scale altogether.

    Args:
        score: How the problem names the score (``the score of Response A ("4/10")``).
        denominator: The denominator as written ("10").
        scale: The (low, high) score range.

    Examples:
        >>> denominator_problem('the score ("4/10")', "10", (1, 5))
        'the score ("4/10") is given out of 10; it must be on a 1-5 scale'
        >>> denominator_problem('the score ("4/5")', "5", (1, 5)) is None
        True
    """
    if float(denominator) == scale[1]:
        return None
    return f"{score} is given out of {denominator}; it must be on a {describe_range(*scale)} scale"


def range_problem(score: str) -> str:
    """The problem of a range ("2-5", "2 to 5") written where one score belongs.

    Examples:
        >>> range_problem('the score of Response A ("2-5")')
        'the score of Response A ("2-5") gives a range, not one score'
    """
    return f"{score} gives a range, not one score"


NO_SPREAD = "no spread"
"""What a CI of zero width is shown as: every item (or resample) gave the same value, which is no sign
of certainty (every judgment tied, say, or a few labels all alike)."""
NO_SPREAD_NOTE = (
    "no spread: a CI of zero width, because every item gave the same value (every judgment tied, or "
    "each exactly ½ over the two orders, or the few labels all alike); it is no sign of certainty, and "
    "more items are needed to say how uncertain the value is."
)
"""What `NO_SPREAD` means, said once under a table that shows it."""


def flat(ci: Sequence[Any] | None) -> bool:
    """Whether ``ci`` is an interval of zero width (its low and high the same number).

    Examples:
        >>> flat((0.5, 0.5)), flat((0.4, 0.6)), flat(None), flat((None, None))
        (True, False, False, False)
    """
    if ci is None or len(ci) != 2:
        return False
    low, high = number(ci[0]), number(ci[1])
    return low is not None and low == high
