"""Where scores can hide in a reply: score lines, labelled scores, JSON and score phrases.

Each finder reports what it saw with positions; `faceteval.parsing._scores` decides which reading wins.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from faceteval._util.numbers import NUMBER, UNSIGNED, fmt
from faceteval._util.replies import plain, unbulleted
from faceteval.parsing._mentions import SCORE_WORD, Mentions, score_value

_PREFIX = re.compile(
    r"^(?i:(?:(?:my|the|final|overall|total|combined)\s+)*(?:scores?|ratings?|grades?)"
    r"(?:\s*\([^)]*\))?\s*(?:[:=]|\bis\b|\bare\b|[-–—])\s*)"
)
_VALUE = re.compile(rf"[\[(]*(?P<value>{NUMBER})(?:\s*(?:/|(?i:out\s+of))\s*(?P<denom>{UNSIGNED}))?[\])]*")
_GAP = re.compile(r"\s*(?:[,;|&]\s*)?(?:(?i:and)\s+)?")
_NOT_A_SCORE_END = r"(?!\s*(?:%|[-–]\s*\d|/))"  # "80%", "7-8", "7 / 10": the number goes on
_TAIL_OK = re.compile(rf"{_NOT_A_SCORE_END}(?:\s|[,.;:!?)(\]—–-]){_NOT_A_SCORE_END}")
_PHRASE = re.compile(
    rf"(?:{SCORE_WORD}s?\s*(?:(?i:of|is|at|=)|:)"
    r"|(?i:\b(?:give|gave|rate|rated|award|assign)\s+(?:it|this(?:\s+(?:response|output|answer))?)))"
    rf"\s*(?i:an?\s+)?{score_value()}"
)
_FRACTION = re.compile(
    rf"(?<![\w./])(?P<value>{UNSIGNED})\s*(?:/|(?i:out\s+of))\s*(?P<denom>{UNSIGNED})(?![\w%]|[./]\d)"
)
_DIGIT = re.compile(r"\d")
_SCORE_KEYS = ("scores", "ratings", "score", "rating", "final_score", "overall_score", "final score")
_HEADING_LINE = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*$|__[^_]+__:?\s*$)")


@dataclass(frozen=True, slots=True)
class Value:
    """One score as written.

    Attributes:
        number: The score.
        denominator: The "/10" or "out of 10" part, when written.
    """

    number: float
    denominator: float | None = None

    def __str__(self) -> str:
        if self.denominator is None:
            return fmt(self.number)
        return f"{fmt(self.number)}/{fmt(self.denominator)}"


def _value(match: re.Match[str]) -> Value:
    denom = match["denom"]
    return Value(float(match["value"]), float(denom) if denom is not None else None)


@dataclass(frozen=True, slots=True)
class LineValues:
    """The numbers a line holds when it is (or starts as) a score line.

    Attributes:
        values: The numbers, in order.
        prefixed: Whether the line opens with "Score:", "Ratings:" and the like.
    """

    values: tuple[Value, ...]
    prefixed: bool


def line_values(line: str) -> LineValues | None:
    """Read ``line`` (already plain) as a score line: only numbers, or "Score: ..." then numbers."""
    prefix = _PREFIX.match(line)
    rest = line[prefix.end() :] if prefix else line
    values: list[Value] = []
    position = 0
    while True:
        start = position
        if values:
            gap = _GAP.match(rest, position)
            start = gap.end() if gap else position
            if start == position:
                break
        match = _VALUE.match(rest, start)
        if match is None:
            break
        values.append(_value(match))
        position = match.end()
    if not values:
        return None
    tail = rest[position:]
    if not tail.strip(" .\t"):
        return LineValues(tuple(values), prefix is not None)
    if prefix is not None and _TAIL_OK.match(tail):
        return LineValues(tuple(values), True)
    return None


@dataclass(frozen=True, slots=True)
class Found:
    """A labelled score: which candidate, its value, and where it was written.

    Attributes:
        index: The candidate's position in the labels, or None for one the prompt did not name.
        name: The candidate as written ("Response 3").
        value: The score.
        line: Line number in the reply.
        start: Column where the labelled score starts (in the plain line).
        end: Column where it ends.
    """

    index: int | None
    name: str
    value: Value
    line: int
    start: int
    end: int


class Doc:
    """A reply split into lines, with a plain (markdown-free) copy of each.

    Args:
        text: The reply.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines()
        self.plains = [unbulleted(line) for line in self.lines]


def labelled_scores(doc: Doc, mentions: Mentions, labels: Sequence[str]) -> list[Found]:
    """Every labelled score in ``doc``: "Response 1: 8", "Score for Response 2: 7", and sections.

    A section is a line naming only a candidate ("### Response 1"); a lone "Score: 8" line inside
    it is that candidate's score.
    """
    found: list[Found] = []
    section: int | None = None
    for number, line in enumerate(doc.plains):
        header = mentions.header.match(line)
        if header is not None:
            section = mentions.index(header)
            continue
        on_line = _labelled_on_line(line, number, mentions)
        if on_line:
            found.extend(on_line)
            continue
        read = line_values(line)
        if section is not None and read is not None and len(read.values) == 1:
            found.append(Found(section, labels[section], read.values[0], number, 0, -1))
        elif _HEADING_LINE.match(doc.lines[number]):
            section = None
    return found


def _labelled_on_line(line: str, number: int, mentions: Mentions) -> list[Found]:
    if _DIGIT.search(line) is None:  # every labelled score has one; most prose lines have none
        return []
    by_value: dict[int, Found] = {}
    for pattern in (mentions.score_for, mentions.given, mentions.value_first, mentions.labelled):
        for match in pattern.finditer(line):
            if match.start("value") in by_value:
                continue
            index = mentions.index(match)
            found = Found(index, mentions.named(match), _value(match), number, match.start(), match.end())
            by_value[match.start("value")] = found
    return sorted(by_value.values(), key=lambda f: f.start)


def phrase_scores(doc: Doc, high: float) -> list[Value]:
    """Scores written in prose: "a score of 7", "my rating is 7/10", "7 out of 10".

    A bare fraction counts only when its denominator looks like a scale (``high``, 5, 10 or 100).
    """
    values: list[tuple[int, Value]] = []
    text = "\n".join(plain(line) for line in doc.lines)
    taken: set[int] = set()
    for match in _PHRASE.finditer(text):
        values.append((match.start(), _value(match)))
        taken.add(match.start("value"))
    for match in _FRACTION.finditer(text):
        if match.start("value") in taken:
            continue
        if float(match["denom"]) in {high, 5.0, 10.0, 100.0}:
            values.append((match.start(), _value(match)))
    return [value for _, value in sorted(values, key=lambda pair: pair[0])]


def json_scores(value: object, mentions: Mentions, labels: Sequence[str]) -> list[Found] | None:
    """Scores in a decoded JSON value, or None when it does not look like scores.

    Accepts a list of numbers, a list of objects with a "score", ``{"scores": ...}``, an object keyed
    by candidate (``{"Response 1": 8}``, ``{"response_1": {"score": 8}}``) and ``{"score": 7}`` for one
    candidate. Lists are positional: index k is the k-th label (None past the end).
    """
    if isinstance(value, list):
        return _json_list(value, labels)
    if not isinstance(value, Mapping):
        return None
    lowered = {str(key).strip().lower(): item for key, item in value.items()}
    for key in ("scores", "ratings"):
        if key in lowered:
            return json_scores(lowered[key], mentions, labels)
    keyed = _json_keyed(value, mentions)
    if keyed:
        return keyed
    if len(labels) == 1:
        for key in _SCORE_KEYS:
            number = _json_number(lowered.get(key))
            if number is not None:
                return [Found(0, labels[0], number, 0, 0, 0)]
    return None


def _json_list(items: list[object], labels: Sequence[str]) -> list[Found] | None:
    values = [_json_number(item) for item in items]
    if not values or any(v is None for v in values):
        return None
    return [
        Found(k if k < len(labels) else None, labels[k] if k < len(labels) else f"#{k + 1}", v, 0, 0, 0)
        for k, v in enumerate(values)
        if v is not None
    ]


def _json_keyed(value: Mapping[object, object], mentions: Mentions) -> list[Found]:
    found: list[Found] = []
    for key, item in value.items():
        name = re.sub(r"[_\s]+", " ", str(key)).strip()
        match = mentions.header.fullmatch(name)
        if match is None:
            continue
        number = _json_number(item)
        if number is not None:
            found.append(Found(mentions.index(match), str(key), number, 0, 0, 0))
    return found


def _json_number(item: object) -> Value | None:
    """A score from a JSON value: a number, a numeric string ("8", "8/10"), or an object's "score"."""
    if isinstance(item, bool):
        return None
    if isinstance(item, int | float):
        return Value(float(item))
    if isinstance(item, str):
        match = _VALUE.fullmatch(item.strip())
        return _value(match) if match else None
    if isinstance(item, Mapping):
        lowered = {str(key).lower(): inner for key, inner in item.items()}
        for key in ("score", "rating", "value"):
            if key in lowered:
                return _json_number(lowered[key])
    return None
