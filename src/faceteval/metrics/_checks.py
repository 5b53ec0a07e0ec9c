"""Input checks shared by the metric modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def check_lengths(*columns: Sequence[Any]) -> int:
    """The common length of the columns; ValueError if they differ.

    Examples:
        >>> check_lengths([1, 2], ["a", "b"])
        2
    """
    lengths = [len(column) for column in columns]
    if len(set(lengths)) > 1:
        raise ValueError(f"columns must have the same length, got lengths {lengths}")
    return lengths[0] if lengths else 0


def check_level(level: float) -> None:
    """ValueError unless ``level`` is a confidence level strictly between 0 and 1.

    Examples:
        >>> check_level(0.95)
    """
    if not 0 < level < 1:
        raise ValueError(f"a confidence level is between 0 and 1 (0.95 for 95%), got {level!r}")
