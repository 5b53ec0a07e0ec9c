"""Small helpers for the wording of messages."""

from __future__ import annotations

from collections.abc import Sequence


def first_few(items: Sequence[str], limit: int = 5, separator: str = ", ") -> str:
    """The first `limit` of `items` joined by `separator`, then how many more there are.

    The count follows the last item after a space, or, when `separator` starts new lines, on a
    line of its own.

    >>> first_few(["a", "b", "c"], limit=2)
    'a, b and 1 more'
    """
    shown = separator.join(items[:limit])
    if len(items) <= limit:
        return shown
    joiner = separator if "\n" in separator else " "
    return f"{shown}{joiner}and {len(items) - limit} more"
