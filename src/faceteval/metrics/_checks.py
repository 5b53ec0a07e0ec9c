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
