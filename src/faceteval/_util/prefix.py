"""The longest common prefix of texts: what a server's prefix cache can reuse between prompts."""

from __future__ import annotations

from collections.abc import Iterable


def common_prefix(texts: Iterable[str]) -> int:
    """The length of the longest prefix every one of ``texts`` starts with (0 for none).

    Examples:
        >>> common_prefix(["rate: A. facet: x", "rate: A. facet: y"])
        16
        >>> common_prefix([])
        0
    """
    first: str | None = None
    shared = 0
    for text in texts:
        if first is None:
            first, shared = text, len(text)
            continue
        limit = min(shared, len(text))
        shared = next((i for i in range(limit) if text[i] != first[i]), limit)
    return shared
