"""Splitting one list item into a criterion name and description."""

from __future__ import annotations

import re
from collections.abc import Sequence

from faceteval._util.replies import plain

MAX_HEAD_WORDS = 6
"""A head longer than this is not a name: the whole item is."""

_QUESTION_START = re.compile(
    r"^(?i:does|do|did|is|are|was|were|can|could|will|would|should|has|have|had|how|what|which|who"
    r"|whom|whose|why|when|where|to\s+what\s+extent|in\s+what)\b"
)
_BOLD_HEAD = re.compile(r"^(\*\*|__)(?P<head>.+?)\1(?P<rest>.*)$")
_SEPARATOR = re.compile(r"\s*:(?:\s+|$)|\s+[-–—]\s+|\s*[–—]\s*")


def _is_head(text: str) -> bool:
    """Whether ``text`` can be a short name: a few words, not a question."""
    words = text.split()
    return (
        0 < len(words) <= MAX_HEAD_WORDS
        and not text.endswith("?")
        and _QUESTION_START.match(text) is None
        and re.search(r"[^\W\d_]", text) is not None
    )


def is_bare_head(text: str) -> bool:
    """Whether an item's first line is only a short name ("**Accuracy**", "Accuracy:")."""
    head = plain(text).rstrip(":").strip()
    return _is_head(head) and _SEPARATOR.search(head) is None


def _join(*parts: str) -> str:
    return " ".join(" ".join(part.split()) for part in parts if part.strip())


def _short(name: str) -> str:
    name = name.strip()
    return name.rstrip(":.").strip() if _is_head(name.rstrip(":.")) else name


def split_item(first: str, rest: Sequence[str]) -> tuple[str, str]:
    """``(name, description)`` for an item whose first line is ``first``, continued by ``rest``.

    "**Accuracy**: whether the facts are right" gives ("Accuracy", "whether the facts are right");
    a question, or a head longer than six words, is all name.
    """
    more = _join(*(plain(line) for line in rest))
    bold = _BOLD_HEAD.match(first.strip())
    if bold is not None:
        head = plain(bold["head"]).rstrip(":").strip()
        after = plain(re.sub(r"^\s*[:.–—-]?\s*", "", bold["rest"]))
        if _is_head(head) or (head.endswith("?") and after):
            return head, _join(after, more)
    text = plain(first)
    separator = _SEPARATOR.search(text)
    if separator is not None:
        head = text[: separator.start()].strip()
        if _is_head(head):
            return head, _join(text[separator.end() :], more)
    if more and _is_head(text.rstrip(":")):
        return _short(text), more
    return _short(_join(text, more)), ""
