"""Reading scores for one or more candidates from a judge's reply.

Precedence, highest first; the first tier that yields a complete reading wins:

1. **JSON**: the whole reply, a code fence, or an inline ``{...}`` object, when it is shaped like
   scores (a list of numbers, ``{"scores": ...}``, ``{"Response 1": 8, ...}``, ``{"score": 7}`` for one
   candidate). A score-shaped JSON value with the wrong count or an unknown candidate is a failure.
   With several score-shaped blocks, ``position`` picks the first or the last.
2. **Score lines and labelled scores.** A score line holds exactly one number per candidate and
   nothing else, optionally after "Scores:" ("8 6", "**Scores:** 8/10, 6/10", "[[7]]"). Labelled
   scores name their candidate ("Response 1: 8", "Score for Response 2: 7", "**Assistant A**: 6",
   a "Score: 8" line under a "### Response 1" heading); they form a reading when every candidate has
   one, and a candidate scored several times keeps its first (``position="first"``) or last score.
   A reply that is nothing but one number per candidate, a line each ("10\n1", as small models
   write the score line), is read in that order.
   Among the complete readings, ``position="first"`` takes the one that starts earliest and
   ``"last"`` the one that ends latest. A different reading that overlaps the chosen one in the
   text (so order cannot decide) is a conflict and fails.
3. **Score phrases**, one candidate only: "a score of 7", "my rating is 7/10", "7 out of 10". They
   must all agree; several different ones are ambiguous and fail.

The chosen values are then checked, never repaired: each must lie on the scale, and a written
denominator ("/5") must be the scale's top.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from faceteval._util.numbers import NUMBER, describe_range, fmt
from faceteval._util.replies import find_json, is_refusal, quote, without_span
from faceteval.core import ScoreSource
from faceteval.errors import ParseError
from faceteval.llm import JsonReply
from faceteval.parsing._json_replies import scores_reply
from faceteval.parsing._mentions import mentions_for
from faceteval.parsing._score_rest import cut, explanation_for, json_explanation, lines_without, without_lines
from faceteval.parsing._score_text import (
    Doc,
    Found,
    Value,
    json_scores,
    labelled_scores,
    line_values,
    phrase_scores,
)

_END = 10**9
_PLAIN_LINE = re.compile(r"\d+(?:\.\d+)?(?:(?:\s*,\s*|\s+)\d+(?:\.\d+)?)*")
_SEPARATOR = re.compile(r"\s*,\s*|\s+")
_NUMBER_LINE = re.compile(r"\d+(?:\.\d+)?")
_RANGE = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d+)?\s*[-–]\s*\d{1,3}(?:\.\d+)?(?!\.?\d)")
"""A range given instead of a score ("7-8", "3 – 4")."""
_EXAMPLE_FRACTIONS = (0.78, 0.56, 0.67, 0.44, 0.89)


@dataclass(frozen=True, slots=True)
class Scores:
    """The scores a judge gave, one per candidate, and what else it wrote.

    Attributes:
        values: One score per label, in label order.
        explanation: The reply without the score line or labelled scores, stripped ("" if nothing is left).
        sources: With ``--score-mode logprobs``, how each value was obtained (``values`` are then the
            expected scores where log-probabilities allowed); None when the scores were parsed.
    """

    values: tuple[float, ...]
    explanation: str
    sources: tuple[ScoreSource, ...] | None = None


@dataclass(frozen=True, slots=True)
class _Reading:
    kind: str
    values: tuple[Value, ...]
    start: tuple[int, int]
    end: tuple[int, int]
    explanation: str

    def overlaps(self, other: _Reading) -> bool:
        return self.start <= other.end and other.start <= self.end


class ScoreParser:
    """Reads one score per candidate from a reply, or raises `ParseError` saying what is wrong.

    Args:
        labels: How the prompt names the candidates, in order ("Response 1", "Response 2").
        scale: The lowest and highest allowed score.
        position: Whether the scores come first or last in the reply (which reading wins when there
            are several).
        explained: Whether the reply explains its scores (changes `instructions` and `example`).

    Examples:
        >>> ScoreParser(["Response 1", "Response 2"]).parse("**Scores:** 8 6").values
        (8.0, 6.0)
    """

    def __init__(
        self,
        labels: Sequence[str],
        *,
        scale: tuple[float, float] = (1, 10),
        position: Literal["first", "last"] = "first",
        explained: bool = False,
    ) -> None:
        if not labels:
            raise ValueError("ScoreParser needs at least one label")
        if scale[0] >= scale[1]:
            raise ValueError(f"scale must be (low, high) with low < high, got {scale!r}")
        if position not in ("first", "last"):
            raise ValueError(f"position must be 'first' or 'last', got {position!r}")
        self._labels = tuple(labels)
        self._low, self._high = float(scale[0]), float(scale[1])
        self._position = position
        self._explained = explained
        self._mentions = mentions_for(self._labels)

    @property
    def scale(self) -> tuple[float, float]:
        """The lowest and highest allowed score."""
        return self._low, self._high

    def scores_of(self, value: Scores) -> tuple[float, ...]:
        """The scores read (`faceteval.parsing.ScoreReader`)."""
        return value.values

    def rescored(self, value: Scores, sources: Sequence[ScoreSource]) -> Scores:
        """``value`` with the sources' scores (`faceteval.parsing.ScoreReader`)."""
        return replace(value, values=tuple(s.score for s in sources), sources=tuple(sources))

    @property
    def instructions(self) -> str:
        """The reply format, in one or two sentences."""
        scale = f"from {fmt(self._low)} to {fmt(self._high)}"
        if len(self._labels) == 1:
            ask = f"Give one score {scale} for {self._labels[0]}, on a line of its own, as a number only."
        else:
            names = ", ".join(self._labels)
            ask = f"Give one score {scale} for each of {names}, on a single line, separated by a space."
        if not self._explained:
            return f"{ask} Write nothing else."
        if self._position == "first":
            return f"{ask} Put that line first, then explain your scores."
        return f"{ask} Explain your scores first, then put the scores on the last line."

    def example(self) -> str:
        """A well-formed reply of typical length."""
        line = " ".join(fmt(v) for v in self._example_values())
        if not self._explained:
            return line
        explanation = explanation_for(self._labels)
        return f"{line}\n\n{explanation}" if self._position == "first" else f"{explanation}\n\n{line}"

    def _example_values(self) -> list[float]:
        span = self._high - self._low
        values = []
        for k in range(len(self._labels)):
            raw = self._low + span * _EXAMPLE_FRACTIONS[k % len(_EXAMPLE_FRACTIONS)]
            values.append(float(round(raw)) if span >= 4 else round(raw, 2))
        return values

    def json_reply(self) -> JsonReply[Scores]:
        """The reply as JSON (structured output): ``scores`` in label order, and the explanation."""
        return scores_reply(
            self._labels,
            (self._low, self._high),
            position=self._position,
            explained=self._explained,
            example=self._example_values(),
            explanation=explanation_for(self._labels),
            make=Scores,
        )

    def parse(self, text: str) -> Scores:
        """Read the scores from ``text``.

        Raises:
            ParseError: When the reply holds no complete, unambiguous set of scores on the scale.
        """
        if not text.strip():
            raise ParseError("the reply is empty", raw=text)
        reading = self._plain_first_line(text)
        if reading is None:
            return self._parse_all(text)
        problems = self._check(reading.values)
        if problems:
            raise ParseError("; ".join(problems), raw=text)
        return Scores(tuple(v.number for v in reading.values), reading.explanation)

    def _parse_all(self, text: str) -> Scores:
        """Every tier, in order of precedence."""
        reading = self._from_json(text) or self._number_per_line(text)
        doc = Doc(text)
        found = labelled_scores(doc, self._mentions, self._labels) if reading is None else []
        reading = reading or self._from_lines(doc, found) or self._from_phrases(doc)
        if reading is None:
            raise ParseError(self._missing(doc, found), raw=text)
        problems = self._check(reading.values)
        if problems:
            raise ParseError("; ".join(problems), raw=text)
        return Scores(tuple(v.number for v in reading.values), reading.explanation)

    # -- the common case, read without building the whole document --------------------------------

    def _plain_first_line(self, text: str) -> _Reading | None:
        """A reply whose first line is just the n scores ("8 6"), with no JSON anywhere in it.

        With ``position="first"`` that line is always the earliest reading, and nothing else can
        overlap it, so the full search would choose it too (a test checks the two agree).
        """
        if self._position != "first" or "{" in text or "[" in text:
            return None
        lines = text.splitlines()
        first = next((k for k, line in enumerate(lines) if line.strip()), 0)
        head = lines[first].strip()
        if not _PLAIN_LINE.fullmatch(head):
            return None
        numbers = _SEPARATOR.split(head)
        if len(numbers) != len(self._labels):
            return None
        values = tuple(Value(float(number)) for number in numbers)
        explanation = lines_without(lines, [first])
        return _Reading("score line", values, (first, 0), (first, _END), explanation)

    def _number_per_line(self, text: str) -> _Reading | None:
        """A reply of nothing but one number per candidate, one a line, in order ("10\n1")."""
        lines = [(k, line.strip()) for k, line in enumerate(text.splitlines()) if line.strip()]
        if len(self._labels) < 2 or len(lines) != len(self._labels):
            return None
        if not all(_NUMBER_LINE.fullmatch(line) for _, line in lines):
            return None
        values = tuple(Value(float(line)) for _, line in lines)
        return _Reading("score lines", values, (lines[0][0], 0), (lines[-1][0], _END), "")

    # -- tier 1: JSON ------------------------------------------------------------------------------

    def _from_json(self, text: str) -> _Reading | None:
        shaped = []
        for block in find_json(text):
            found = json_scores(block.value, self._mentions, self._labels)
            if found is not None:
                shaped.append((block, found))
        if not shaped:
            return None
        block, found = shaped[0] if self._position == "first" else shaped[-1]
        picked = self._pick(found)
        if len(found) != len(self._labels):
            raise ParseError(self._count_problem(found, "in its JSON"), raw=text)
        self._reject_unknown(found, text)
        if len(picked) != len(self._labels):
            raise ParseError(self._count_problem(list(picked.values()), "in its JSON"), raw=text)
        explanation = without_span(text, block.start, block.end)
        if not explanation and isinstance(block.value, Mapping):
            explanation = json_explanation(block.value)
        values = tuple(picked[k].value for k in range(len(self._labels)))
        return _Reading("JSON", values, (0, 0), (0, 0), explanation)

    # -- tier 2: score lines and labelled scores ---------------------------------------------------

    def _from_lines(self, doc: Doc, found: Sequence[Found]) -> _Reading | None:
        readings = [r for i, plain in enumerate(doc.plains) if (r := self._line_reading(doc, i, plain))]
        picked = self._pick([f for f in found if f.index is not None])
        labelled = self._labelled_reading(doc, picked) if len(picked) == len(self._labels) else None
        if labelled is not None:
            readings.append(labelled)
        if not readings:
            return None
        if self._position == "first":
            chosen = min(readings, key=lambda r: r.start)
        else:
            chosen = max(readings, key=lambda r: r.end)
        for other in readings:
            if other is not chosen and _numbers(other) != _numbers(chosen) and other.overlaps(chosen):
                raise ParseError(self._conflict(chosen, other), raw=doc.text)
        if chosen is labelled:
            self._reject_unknown(found, doc.text)
        return chosen

    def _line_reading(self, doc: Doc, number: int, plain: str) -> _Reading | None:
        read = line_values(plain)
        if read is None or len(read.values) != len(self._labels):
            return None
        explanation = without_lines(doc, [number])
        return _Reading("score line", read.values, (number, 0), (number, _END), explanation)

    def _labelled_reading(self, doc: Doc, picked: dict[int, Found]) -> _Reading:
        chosen = [picked[k] for k in range(len(self._labels))]
        start = min((f.line, f.start) for f in chosen)
        end = max((f.line, f.end if f.end >= 0 else _END) for f in chosen)
        values = tuple(f.value for f in chosen)
        return _Reading("labelled scores", values, start, end, cut(doc, chosen))

    # -- tier 3: phrases -----------------------------------------------------------------------------

    def _from_phrases(self, doc: Doc) -> _Reading | None:
        if len(self._labels) != 1:
            return None
        values = phrase_scores(doc, self._high)
        if not values:
            return None
        preferred = [v for v in values if v.denominator in (None, self._high)] or values
        if len({v.number for v in preferred}) > 1:
            shown = ", ".join(dict.fromkeys(str(v) for v in preferred))
            raise ParseError(
                f"the reply gives several possible scores ({shown}) and does not say which one is final",
                raw=doc.text,
            )
        return _Reading("phrase", (preferred[0],), (0, 0), (0, 0), doc.text.strip())

    # -- checks and problems ---------------------------------------------------------------------

    def _pick(self, found: Sequence[Found]) -> dict[int, Found]:
        picked: dict[int, Found] = {}
        for item in found:
            if item.index is None:
                continue
            if item.index not in picked or self._position == "last":
                picked[item.index] = item
        return picked

    def _reject_unknown(self, found: Sequence[Found], text: str) -> None:
        unknown = [f for f in found if f.index is None]
        if unknown:
            raise ParseError(self._unknown_problem(unknown[0]), raw=text)

    def _unknown_problem(self, found: Found) -> str:
        return f"the reply scores {found.name}, but the only candidates are {', '.join(self._labels)}"

    def _check(self, values: Sequence[Value]) -> list[str]:
        problems = []
        scale = describe_range(self._low, self._high)
        for label, value in zip(self._labels, values, strict=True):
            if value.denominator is not None and value.denominator != self._high:
                given = fmt(value.denominator)
                problems.append(f"{label}'s score is given out of {given}; scores must be on a {scale} scale")
            elif not self._low <= value.number <= self._high:
                problems.append(f"score {fmt(value.number)} for {label} is outside {scale}")
        return problems

    def _expected(self) -> str:
        n = len(self._labels)
        noun = "score" if n == 1 else "scores"
        scale = f"from {fmt(self._low)} to {fmt(self._high)}"
        return f"expected {n} {noun} {scale} ({', '.join(self._labels)})"

    def _count_problem(self, found: Sequence[Found], where: str = "") -> str:
        shown = "; ".join(f"{f.name}: {f.value}" for f in found)
        where = f" {where}" if where else ""
        return f"{self._expected()} but found {len(found)}{where} ({shown})"

    def _conflict(self, chosen: _Reading, other: _Reading) -> str:
        def show(reading: _Reading) -> str:
            return " ".join(str(v) for v in reading.values)

        return (
            f"the reply gives two different sets of scores ({chosen.kind} {show(chosen)}; "
            f"{other.kind} {show(other)}) and their order does not say which one is final"
        )

    def _missing(self, doc: Doc, found: Sequence[Found]) -> str:
        unknown = [f for f in found if f.index is None]
        picked = self._pick(found)
        if picked:
            ordered = [picked[k] for k in sorted(picked)]
            return self._count_problem(ordered) + self._cut_off(doc)
        if unknown:
            return self._unknown_problem(unknown[0])
        near = [read for plain in doc.plains if (read := line_values(plain)) is not None]
        if near:
            read = near[0] if self._position == "first" else near[-1]
            shown = " ".join(str(v) for v in read.values)
            return f"{self._expected()} but found {len(read.values)} ({shown})"
        if is_refusal(doc.text):
            return f"the reply contains no scores; it reads as a refusal: {quote(doc.text)}"
        unnamed = self._mentions.mention.sub(" ", doc.text)
        if (span := _RANGE.search(unnamed)) is not None:
            return (
                f"the reply contains no scores: {self._expected()}, each one number, "
                f"but it gives a range ({span[0]})"
            )
        numbers = list(dict.fromkeys(re.findall(rf"(?<![\d.]){NUMBER}", unnamed)))[:5]
        if numbers:
            return (
                f"the reply contains no scores: {self._expected()}, but none of its numbers "
                f"({', '.join(numbers)}) is given as a score"
            )
        return "the reply contains no scores"

    def _cut_off(self, doc: Doc) -> str:
        last = next((p for p in reversed(doc.plains) if p), "")
        header = self._mentions.header.match(last)
        if header is not None and last.rstrip().endswith(":"):
            return f"; the reply stops before {self._mentions.named(header)}'s score"
        return ""


def _numbers(reading: _Reading) -> tuple[float, ...]:
    return tuple(v.number for v in reading.values)
