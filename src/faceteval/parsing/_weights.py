"""Reading one weight per facet from a reply, normalised to sum to 1.

Precedence: JSON (the whole reply, a code fence, or an inline value with exactly one weight per
facet: a list, ``{"weights": ...}``, ``{name: weight}``), then the first line holding exactly one
weight per facet and nothing else ("40% 30% 30%", "Weights: 0.4, 0.3, 0.3", "1/3 1/3 1/3"), then
one weight per line ("Accuracy: 40%", "1. 40%", "- **Helpfulness** (25%)", "Aspect 2: 30%").

A weight line is matched to its facet by name (ignoring case, punctuation and markdown; a clear
prefix or containment will do), else by "Aspect k" or its list number; lines that match nothing
fill the remaining facets in order. When prose also quotes weights ("Accuracy (50%) matters
most"), the numbered lines, or else the lines that end with their weight, are taken if they are
exactly one per facet.

Weights summing to 50-150 are read as percentages and rescaled to sum to 1 (so "35% 35% 35%" gives
thirds; a plain number beside percentages, as in "40% 30 30%", counts as one); plain numbers summing
to 0.5-1.5 are read as fractions. Any other sum, a negative, all zeros, or percentages mixed with
fractions fail.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from faceteval._util.numbers import fmt
from faceteval._util.replies import find_json, plain, quote
from faceteval._util.text import plural
from faceteval.errors import ParseError
from faceteval.llm import JsonReply
from faceteval.parsing._json_replies import weights_reply
from faceteval.parsing._weight_lines import (
    Weight,
    WeightLine,
    exact_name,
    line_weights,
    match_name,
    single_line,
    weight_of,
)

_TOTAL = re.compile(r"^(?i:total|sum|overall|all)\b")
_NAME_KEYS = ("name", "aspect", "criterion", "facet", "question", "dimension")
_WEIGHT_KEYS = ("weight", "percentage", "percent", "value", "importance")


@dataclass(frozen=True, slots=True)
class _Labelled:
    label: str
    index: int | None
    weight: Weight


class WeightParser:
    """Reads one weight per facet, in ``names`` order, normalised to sum to 1.

    Args:
        names: The facet names, in the order the prompt lists them.

    Examples:
        >>> WeightParser(["Accuracy", "Clarity"]).parse("Accuracy: 60%\\nClarity: 40%")
        (0.6, 0.4)
    """

    def __init__(self, names: Sequence[str]) -> None:
        if not names:
            raise ValueError("WeightParser needs at least one name")
        self._names = tuple(names)

    @property
    def instructions(self) -> str:
        """The reply format, in one or two sentences."""
        n = len(self._names)
        one = "one weight" if n == 1 else f"{n} weights"
        return (
            f"Give {one}, one per aspect in the order the aspects are listed, as whole-number percentages "
            f"that sum to 100%, on a single line separated by spaces (for example: {self.example()})."
        )

    def example(self) -> str:
        """A well-formed reply: whole-number percentages summing to 100."""
        n = len(self._names)
        raw = [n + 2 - k for k in range(n)]
        shares = [100 * r / sum(raw) for r in raw]
        whole = [int(s) for s in shares]
        by_remainder = sorted(range(n), key=lambda k: whole[k] - shares[k])
        for k in by_remainder[: 100 - sum(whole)]:
            whole[k] += 1
        return " ".join(f"{w}%" for w in whole)

    def json_reply(self) -> JsonReply[tuple[float, ...]]:
        """The reply as JSON (structured output): one percentage per facet, in ``names`` order."""
        example = [float(w.rstrip("%")) for w in self.example().split()]
        return weights_reply(len(self._names), self._normalised, example)

    def parse(self, text: str) -> tuple[float, ...]:
        """Read the weights from ``text``, in ``names`` order, summing to 1.

        Raises:
            ParseError: When the reply holds no complete set of weights with a usable sum.
        """
        if not text.strip():
            raise ParseError("the reply is empty", raw=text)
        weights = self._from_json(text) or self._from_lines(text)
        return self._normalised(weights, text)

    def _from_json(self, text: str) -> list[Weight] | None:
        for block in find_json(text, inline="{["):
            labelled = self._json_weights(block.value)
            # Inline JSON must fit exactly: "[1]" in prose is a footnote, not one weight.
            if labelled is not None and (block.kind != "inline" or len(labelled) == len(self._names)):
                return self._arrange(labelled, text)
        return None

    def _json_weights(self, value: object) -> list[_Labelled] | None:
        if isinstance(value, Mapping):
            lowered = {str(k).strip().lower(): v for k, v in value.items()}
            for key in ("weights", "weight", "aspects", "criteria"):
                if key in lowered and isinstance(lowered[key], list | Mapping):
                    return self._json_weights(lowered[key])
            pairs = [(str(k), weight_of(v)) for k, v in value.items()]
        elif isinstance(value, list):
            pairs = [self._json_item(item) for item in value]
        else:
            return None
        if not pairs or any(w is None for _, w in pairs):
            return None
        return [_Labelled(label, self._identify(label, None), w) for label, w in pairs if w is not None]

    def _json_item(self, item: object) -> tuple[str, Weight | None]:
        if not isinstance(item, Mapping):
            return "", weight_of(item)
        lowered = {str(k).lower(): v for k, v in item.items()}
        label = next((str(lowered[k]) for k in _NAME_KEYS if k in lowered), "")
        weight = next((weight_of(lowered[k]) for k in _WEIGHT_KEYS if k in lowered), None)
        return label, weight

    def _from_lines(self, text: str) -> list[Weight]:
        lines = [plain(line) for line in text.splitlines()]
        rows: list[list[Weight]] = [values for line in lines if (values := single_line(line)) is not None]
        match = next((values for values in rows if len(values) == len(self._names)), None)
        if match is not None:
            return match
        items = [
            item
            for line in lines
            if len(single_line(line) or ()) < 2
            for item in line_weights(line)
            if self._counts(item)
        ]
        if len(items) != len(self._names):
            # Prose may quote a weight ("Accuracy (50%) matters most"); the list itself is what counts.
            for subset in ([i for i in items if i.number is not None], [i for i in items if i.settled]):
                if len(subset) == len(self._names):
                    items = subset
                    break
        if items:
            labelled = [_Labelled(i.label, self._identify(i.label, i), i.weight) for i in items]
            return self._arrange(labelled, text)
        if rows:
            raise ParseError(self._count_problem(len(rows[0])), raw=text)
        raise ParseError("the reply contains no weights", raw=text)

    def _counts(self, item: WeightLine) -> bool:
        """Whether a labelled weight is a weight line, not a total or a sentence quoting a percentage."""
        if _TOTAL.match(item.label):
            return False
        return item.marked or exact_name(item.label, self._names) is not None

    def _identify(self, label: str, line: WeightLine | None) -> int | None:
        index = match_name(label, self._names)
        if index is None and line is not None and line.number is not None:
            index = line.number - 1
        return index if index is not None and 0 <= index < len(self._names) else None

    def _arrange(self, labelled: list[_Labelled], text: str) -> list[Weight]:
        """The weights in ``names`` order: identified ones in place, the others in the gaps, in order."""
        n = len(self._names)
        if len(labelled) != n:
            raise ParseError(self._count_problem(len(labelled)), raw=text)
        seen: dict[int, _Labelled] = {}
        for item in labelled:
            if item.index is None:
                continue
            if item.index in seen:
                first = seen[item.index]
                raise ParseError(
                    f"{quote(self._names[item.index])} has two weights ({first.weight.text} and "
                    f"{item.weight.text}); give exactly one weight per aspect",
                    raw=text,
                )
            seen[item.index] = item
        free = iter(k for k in range(n) if k not in seen)
        ordered: dict[int, Weight] = {}
        for item in labelled:
            ordered[item.index if item.index is not None else next(free)] = item.weight
        return [ordered[k] for k in range(n)]

    def _count_problem(self, found: int) -> str:
        return f"expected {plural(len(self._names), 'weight')} (one per aspect) but found {found}"

    def _normalised(self, weights: list[Weight], text: str) -> tuple[float, ...]:
        percent = any(w.percent for w in weights)
        if percent and any(not w.percent and w.value < 1 for w in weights):
            shown = ", ".join(w.text for w in weights)
            raise ParseError(f"the weights mix percentages and fractions ({shown})", raw=text)
        for name, weight in zip(self._names, weights, strict=True):
            if weight.value < 0:
                raise ParseError(
                    f"weight {weight.text} for {quote(name)} is negative; weights must be zero or more",
                    raw=text,
                )
        total = sum(w.value for w in weights)
        if total == 0:
            raise ParseError("all weights are zero; give each aspect a share of 100%", raw=text)
        if not (50 <= total <= 150 or (not percent and 0.5 <= total <= 1.5)):
            unit = "%" if percent else ""
            raise ParseError(
                f"weights must be percentages that sum to 100%; these sum to {fmt(total)}{unit}", raw=text
            )
        return tuple(w.value / total for w in weights)
