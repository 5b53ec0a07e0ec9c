"""Reading LLM replies: markdown, code fences, embedded JSON, refusals (`faceteval.parsing` and the
method families' own parsers share them)."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Literal

_HEADING = re.compile(r"^\s*#{1,6}\s+")
_STRONG = re.compile(r"\*\*|__|~~|`+")
_EM_STAR = re.compile(r"(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_EM_UNDERSCORE = re.compile(r"(?<![\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])")
_BULLET = re.compile(r"^\s*[-*•+]\s+")
_FENCE = re.compile(
    r"^[ \t]*```[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.S | re.M
)
_REFUSAL = re.compile(
    r"^\W*(?:i['’]?m\s+sorry|i\s+am\s+sorry|sorry\b|i\s+apologi[sz]e|as\s+an\s+ai\b|unfortunately\b"
    r"|i\s+(?:cannot|can['’]?t|am\s+unable|['’]m\s+unable|am\s+not\s+able|won['’]?t|will\s+not)\b)",
    re.I,
)


def plain(line: str) -> str:
    """``line`` without heading marks, emphasis or code marks, stripped."""
    line = _HEADING.sub("", line)
    line = _STRONG.sub("", line)
    line = _EM_STAR.sub(r"\1", line)
    line = _EM_UNDERSCORE.sub(r"\1", line)
    return line.strip()


def unbulleted(line: str) -> str:
    """``plain(line)`` without a leading bullet marker (``-``, ``*``, ``•``, ``+``)."""
    return plain(_BULLET.sub("", line, count=1))


def is_refusal(text: str) -> bool:
    """Whether the reply opens like a refusal or an apology."""
    return _REFUSAL.match(text) is not None


def quote(text: str, limit: int = 60) -> str:
    """``text`` in double quotes, shortened to about ``limit`` characters."""
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return f'"{text}"'


@dataclass(frozen=True, slots=True)
class JsonBlock:
    """A JSON value found in a reply.

    Attributes:
        value: The decoded value.
        start: Offset of the block (fence included) in the reply.
        end: Offset just past the block.
        kind: ``whole`` (the reply is the value), ``fence`` (a code fence) or ``inline``.
    """

    value: object
    start: int
    end: int
    kind: Literal["whole", "fence", "inline"]


def _loads(text: str) -> tuple[bool, object]:
    """Decode JSON, or a Python literal as some models write it; ``(False, None)`` if neither."""
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the decoder goes
        pass
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def find_json(text: str, *, inline: str = "{") -> list[JsonBlock]:
    """The JSON values in ``text``, in order.

    The whole reply when it is one value; otherwise each code fence holding one, then each
    value opening with a character of ``inline`` outside fences (``{`` for objects only).
    """
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        ok, value = _loads(stripped)
        if ok:
            return [JsonBlock(value, 0, len(text), "whole")]
    blocks: list[JsonBlock] = []
    fenced: list[tuple[int, int]] = []
    for match in _FENCE.finditer(text):
        fenced.append(match.span())
        body = match["body"].strip()
        if body[:1] in ("{", "["):
            ok, value = _loads(body)
            if ok:
                blocks.append(JsonBlock(value, match.start(), match.end(), "fence"))
    blocks.extend(_inline_json(text, inline, fenced))
    return sorted(blocks, key=lambda block: block.start)


def _inline_json(text: str, opening: str, fenced: list[tuple[int, int]]) -> list[JsonBlock]:
    decoder = json.JSONDecoder()
    blocks: list[JsonBlock] = []
    resume = 0
    for position, char in enumerate(text):
        if char not in opening or position < resume or any(a <= position < b for a, b in fenced):
            continue
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            continue
        except RecursionError:  # nested past the decoder's depth: every later start nests as deep
            break
        if isinstance(value, dict | list) and value:
            blocks.append(JsonBlock(value, position, end, "inline"))
            resume = end
    return blocks


def without_span(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` cut out, blank runs collapsed, stripped."""
    return tidy(text[:start] + "\n" + text[end:])


def tidy(text: str) -> str:
    """``text`` with runs of blank lines collapsed to one, stripped."""
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text).strip()
