"""Weights as LLMs write them: "40%", "0.4", "1/3", on one line or one per line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from faceteval._util.numbers import fmt
from faceteval._util.replies import plain

_TOKEN = r"(?P<sign>-)?(?P<num>\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*(?P<den>\d+(?:\.\d+)?))?(?:\s*(?P<pct>%))?"
_TOKEN_RE = re.compile(_TOKEN)
_GAP = re.compile(r"\s*(?:[,;|&]\s*)?(?:(?i:and)\s+)?")
_PREFIX = re.compile(
    r"^(?i:(?:the\s+|final\s+|suggested\s+|my\s+)?weights?(?:\s*\([^)]*\))?\s*(?:[:=]|\bare\b|[-–—])\s*)"
)
_MARKER = re.compile(r"^(?:\(?(?P<num>\d+)[.)]\s+|\((?P<pnum>\d+)\)\s+|[-*•+]\s+)")
_INDEX_LABEL = re.compile(
    r"^(?i:aspect|criterion|criteria|facet|dimension|question|factor|item)\s*#?\s*(?P<k>\d+)\b"
)
_PERCENT = re.compile(
    r"(?<![\w.])(?P<sign>-)?(?P<num>\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*(?P<den>\d+(?:\.\d+)?))?\s*(?P<pct>%)"
)
_AFTER_SEP = re.compile(
    rf"(?:[:=(|?]|\s[-–—]|(?i:\bis\b|\bweight\b))\s*(?P<token>{_TOKEN})"
    r"(?=\s*$|\s*[),;]|\s*\.(?!\d)|\s+[-–—(])"
)
_LABEL_END = re.compile(r"[\s:=(|?–—-]+$")
_SETTLED = re.compile(r"[\s)\]]*(?:$|[-–—(:;,.])")
_SEP_END = re.compile(r"[:=(|?–—-]\s*$")


@dataclass(frozen=True, slots=True)
class Weight:
    """One weight as written.

    Attributes:
        value: The number (40 for "40%", 0.333 for "1/3").
        percent: Whether it was written with a percent sign.
        text: As written, for problems.
    """

    value: float
    percent: bool
    text: str


@dataclass(frozen=True, slots=True)
class WeightLine:
    """A weight on a line of its own, with what labels it.

    Attributes:
        label: The text before the weight, without list markers ("Accuracy", "Aspect 2", "").
        number: The list number or "Aspect k" number, when there is one.
        weight: The weight.
        marked: Whether the weight is set off from its label (list marker, ":", "(", a dash), which
            tells a weight line from a sentence that mentions a percentage.
        settled: Whether the weight ends its line, or only a comment set off by a dash or a
            parenthesis follows ("Accuracy: 0.5 (most important)").
    """

    label: str
    number: int | None
    weight: Weight
    marked: bool
    settled: bool


def _weight(match: re.Match[str], text: str) -> Weight | None:
    number = float(match["num"])
    if match["den"] is not None:
        denominator = float(match["den"])
        if denominator == 0:
            return None
        number /= denominator
    if match["sign"]:
        number = -number
    return Weight(number, match["pct"] is not None, text.strip())


def weight_of(value: object) -> Weight | None:
    """A weight from a JSON value: a number or a string such as "40%" or "1/3"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return Weight(float(value), False, fmt(float(value)))
    if isinstance(value, str):
        match = _TOKEN_RE.fullmatch(value.strip())
        return _weight(match, value) if match else None
    return None


def single_line(line: str) -> list[Weight] | None:
    """The weights on ``line`` when it holds only weights ("40% 30% 30%", "Weights: [0.5, 0.5]")."""
    prefix = _PREFIX.match(line)
    rest = line[prefix.end() :] if prefix else line
    rest = rest.strip().rstrip(".").strip()
    if rest[:1] in "[(" and rest[-1:] in "])":
        rest = rest[1:-1].strip()
    weights: list[Weight] = []
    position = 0
    while position < len(rest):
        if weights:
            gap = _GAP.match(rest, position)
            if gap is None or gap.end() == position:
                return None
            position = gap.end()
        match = _TOKEN_RE.match(rest, position)
        weight = _weight(match, match[0]) if match else None
        if match is None or weight is None:
            return None
        weights.append(weight)
        position = match.end()
    return weights or None


def line_weights(line: str) -> list[WeightLine]:
    """The labelled weights on ``line`` (already plain): usually one, several for "A 40%, B 60%"."""
    prefix = _PREFIX.match(line)
    if prefix is not None:
        line = line[prefix.end() :]
    marker = _MARKER.match(line)
    number = None
    if marker is not None:
        digits = marker["num"] or marker["pnum"]
        number = int(digits) if digits else None
        line = line[marker.end() :]
    percents = list(_PERCENT.finditer(line))
    if len(percents) > 1:
        segments = [s for s in re.split(r"[,;|]", line) if s.strip()]
        if len(segments) == len(percents):
            return [item for s in segments for item in _segment(s, None, False)]
    return _segment(line, number, marker is not None)


def _segment(text: str, number: int | None, listed: bool) -> list[WeightLine]:
    text = text.strip()
    whole = _TOKEN_RE.fullmatch(text.rstrip("."))
    if whole is not None:
        weight = _weight(whole, whole[0])
        return [WeightLine("", number, weight, marked=True, settled=True)] if weight else []
    percent = _PERCENT.search(text)
    match = percent or _AFTER_SEP.search(text)
    if match is None:
        return []
    token = match if percent else _TOKEN_RE.match(match["token"])
    if token is None:
        return []
    weight = _weight(token, token[0])
    if weight is None:
        return []
    start = match.start() if percent else match.start("token")
    end = match.end() if percent else match.end("token")
    before = text[:start]
    settled = _SETTLED.match(text[end:]) is not None
    label = _LABEL_END.sub("", before).strip()
    marked = percent is None or listed or not label or _SEP_END.search(before) is not None
    index = _INDEX_LABEL.match(label)
    if index is not None:
        number = int(index["k"])
    return [WeightLine(label, number, weight, marked=marked, settled=settled)]


def _norm(text: str) -> str:
    text = re.sub(r"[^\w\s]", " ", plain(text).lower())
    return " ".join(text.split())


def exact_name(label: str, names: Sequence[str]) -> int | None:
    """The index of the name ``label`` equals (ignoring case, punctuation and markdown), or None."""
    wanted = _norm(label)
    exact = [k for k, name in enumerate(names) if wanted and _norm(name) == wanted]
    return exact[0] if len(exact) == 1 else None


def match_name(label: str, names: Sequence[str]) -> int | None:
    """The index of the one name ``label`` refers to: equal, a clear prefix, or contained; else None."""
    wanted = _norm(label)
    if not wanted:
        return None
    normed = [_norm(name) for name in names]
    exact = [k for k, name in enumerate(normed) if name == wanted]
    if len(exact) == 1:
        return exact[0]

    def related(name: str) -> bool:
        if len(wanted) >= 3 and (name.startswith(wanted) or wanted.startswith(name)):
            return True
        return f" {name} " in f" {wanted} " or (len(wanted) >= 8 and f" {wanted} " in f" {name} ")

    close = [k for k, name in enumerate(normed) if name and related(name)]
    return close[0] if len(close) == 1 else None
