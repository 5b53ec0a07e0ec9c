"""Reading a list of criteria (facets) from a reply.

Precedence: JSON (the whole reply, a code fence, or an inline list/object: a list of strings, a list
of ``{"name", "description"}`` objects, or ``{"criteria": [...]}``), then a numbered list ("1. ",
"1) ", "(1) ", "Aspect 1: ", "Q1: "), then a bulleted list ("- ", "* ", "• "), then lines that end
in "?" when there are no list markers at all.

An item "**Accuracy**: whether the facts are right" (or "Accuracy - ...") becomes name "Accuracy"
and that description, but only when the head is short (at most six words) and not itself a
question; otherwise the whole item is the name. Continuation lines (indented, or following an item
that does not end a sentence) join the item; a paragraph after a bare head ("2. Accuracy", blank
line, text) is its description; other unmarked lines are preamble or epilogue.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from faceteval._util.replies import find_json, plain
from faceteval._util.text import plural
from faceteval.core import Criterion
from faceteval.errors import ParseError
from faceteval.llm import JsonReply
from faceteval.parsing._criteria_items import is_bare_head, split_item
from faceteval.parsing._json_replies import criteria_reply

_NUMBERED = re.compile(
    r"^(?:\(?\d+[.):]|\(\d+\)|(?i:aspect|criterion|criteria|question|facet|dimension|q)\s*#?\s*\d+\s*[:.)-]?)"
    r"(?:\s+|$)"
)
_BULLETED = re.compile(r"^[-*•+](?:\s+|$)")
_BOLD_NUMBER = re.compile(r"^(\*\*|__)(\d+[.)])(?P<close>\1)?\s*")
_HEADING = re.compile(r"^#{1,6}\s+")
_FENCE_LINE = re.compile(r"^\s*```")
_CONTAINER_KEYS = ("criteria", "questions", "aspects", "facets", "items", "rubric")
_NAME_KEYS = ("name", "criterion", "question", "title", "aspect", "facet")
_DESCRIPTION_KEYS = ("description", "definition", "details", "explanation", "desc")
_EXAMPLES = (
    "Does the output answer the question that was actually asked?",
    "Are all factual claims in the output accurate?",
    "Does the output follow every explicit constraint in the instruction, such as length or format?",
    "Is the output organised so that the main point comes first?",
    "Is the output free of irrelevant or repeated content?",
    "Does the output use a tone suited to the audience of the instruction?",
    "Does the output explain its reasoning where the instruction calls for it?",
    "Is the output free of unsafe or harmful content?",
)


@dataclass(slots=True)
class _Item:
    indent: int
    first: str
    rest: list[str] = field(default_factory=list)
    loose: list[str] = field(default_factory=list)  # unattached text up to the next item


@dataclass(frozen=True, slots=True)
class _Line:
    indent: int
    kind: str  # "numbered", "bulleted", "text" or "blank"
    text: str  # without the marker


class CriteriaParser:
    """Reads a list of criteria from a reply, or raises `ParseError` saying what is wrong.

    Args:
        count: How many criteria the reply must hold; None accepts any positive number.
        distinct: Whether a name listed twice is a problem to re-ask about; False keeps every
            item, repeats included, for a caller that merges them itself.

    Examples:
        >>> [c.name for c in CriteriaParser(2).parse("1. Accuracy: facts are right\\n2. Clarity")]
        ['Accuracy', 'Clarity']
    """

    def __init__(self, count: int | None = None, *, distinct: bool = True) -> None:
        if count is not None and count < 1:
            raise ValueError(f"count must be at least 1, got {count}")
        self._count = count
        self._distinct = distinct

    @property
    def instructions(self) -> str:
        """The reply format, in one or two sentences."""
        how_many = f"exactly {plural(self._count, 'criterion')}" if self._count else "the criteria"
        return (
            f'List {how_many} as a numbered list ("1. ", "2. ", ...), one per line. Write each as a short '
            f'yes/no question about the output, such as "{_EXAMPLES[0]}"'
        )

    def example(self) -> str:
        """A well-formed reply: ``count`` (or 3) numbered question-style criteria."""
        count = self._count or 3
        questions = [
            _EXAMPLES[k]
            if k < len(_EXAMPLES)
            else f"Does the output satisfy requirement {k + 1} of the instruction?"
            for k in range(count)
        ]
        return "\n".join(f"{k + 1}. {q}" for k, q in enumerate(questions))

    def json_reply(self, *, limit: int | None = None) -> JsonReply[tuple[Criterion, ...]]:
        """The reply as JSON (structured output): ``criteria``, each a name and a description, as many
        as ``count`` asks (at most ``limit`` when given), checked as the free-text list is."""
        example = [(c.name, c.description) for c in self.parse(self.example())]
        return criteria_reply(self._count, self._checked, example, limit=limit)

    def parse(self, text: str) -> tuple[Criterion, ...]:
        """Read the criteria from ``text``.

        Raises:
            ParseError: When there are no items, the wrong number, or (with ``distinct``) a repeated name.
        """
        if not text.strip():
            raise ParseError("the reply is empty", raw=text)
        pairs = self._from_json(text)
        if pairs is None:
            pairs = _from_lines(text)
        return self._checked(pairs, text)

    def _from_json(self, text: str) -> list[tuple[str, str]] | None:
        for block in find_json(text, inline="[{"):
            pairs = _json_pairs(block.value)
            if pairs:
                return pairs
        return None

    def _checked(self, pairs: list[tuple[str, str]], text: str) -> tuple[Criterion, ...]:
        if not pairs:
            raise ParseError(
                "the reply contains no criteria; list them as a numbered list, one per line", raw=text
            )
        if self._count is not None and len(pairs) != self._count:
            raise ParseError(f"expected {plural(self._count, 'criterion')} but found {len(pairs)}", raw=text)
        seen: dict[str, int] = {}
        for k, (name, _) in enumerate(pairs):
            if not name:
                raise ParseError(f"criterion {k + 1} is empty", raw=text)
            key = " ".join(name.lower().split())
            if key in seen and self._distinct:
                raise ParseError(
                    f'criterion "{name}" is listed twice (items {seen[key] + 1} and {k + 1}); '
                    "each criterion must be different",
                    raw=text,
                )
            seen[key] = k
        return tuple(Criterion(name=name, description=description) for name, description in pairs)


def _json_pairs(value: object) -> list[tuple[str, str]] | None:
    if isinstance(value, Mapping):
        lowered = {str(k).strip().lower(): v for k, v in value.items()}
        for key in _CONTAINER_KEYS:
            if key in lowered:
                return _json_pairs(lowered[key])
        if value and all(isinstance(v, str) for v in value.values()):
            return [(plain(str(k)), plain(str(v))) for k, v in value.items()]
        return None
    if not isinstance(value, list) or not value:
        return None
    pairs = [_json_item(item) for item in value]
    return None if any(p is None for p in pairs) else [p for p in pairs if p is not None]


def _json_item(item: object) -> tuple[str, str] | None:
    if isinstance(item, str):
        return split_item(item, [])
    if not isinstance(item, Mapping):
        return None
    lowered = {str(k).lower(): v for k, v in item.items()}
    name = next((lowered[k] for k in _NAME_KEYS if isinstance(lowered.get(k), str)), None)
    if name is None:
        return None
    description = next((lowered[k] for k in _DESCRIPTION_KEYS if isinstance(lowered.get(k), str)), "")
    return plain(str(name)), plain(str(description))


def _classify(raw: str) -> _Line:
    expanded = raw.expandtabs(4)
    indent = len(expanded) - len(expanded.lstrip())
    text = _HEADING.sub("", expanded.strip())
    text = _BOLD_NUMBER.sub(lambda m: f"{m[2]} " if m["close"] else f"{m[2]} {m[1]}", text)
    if not text or _FENCE_LINE.match(text):
        return _Line(indent, "blank", "")
    if marker := _NUMBERED.match(text):
        return _Line(indent, "numbered", text[marker.end() :].strip())
    if marker := _BULLETED.match(text):
        return _Line(indent, "bulleted", text[marker.end() :].strip())
    return _Line(indent, "text", text)


def _from_lines(text: str) -> list[tuple[str, str]]:
    lines = [_classify(raw) for raw in text.splitlines()]
    kind = next((k for k in ("numbered", "bulleted") if any(line.kind == k for line in lines)), None)
    if kind is None:
        return [(plain(line.text), "") for line in lines if line.kind == "text" and line.text.endswith("?")]
    top = min(line.indent for line in lines if line.kind == kind)
    items: list[_Item] = []
    current: _Item | None = None
    gap = False
    for line in lines:
        if line.kind == kind and line.indent <= top + 1:
            current = _Item(line.indent, line.text)
            items.append(current)
            gap = False
        elif line.kind == "blank":
            gap = gap or current is not None
        elif current is not None and _continues(current, line, gap):
            current.rest.append(line.text)
        else:
            current = None
            if items and line.kind == "text":
                items[-1].loose.append(line.text)
    _attach_paragraphs(items)
    return [split_item(item.first, item.rest) for item in items]


def _attach_paragraphs(items: list[_Item]) -> None:
    """Give bare heads ("2. Accuracy") the paragraph that follows them after a blank line.

    Text between two items describes the first; text after the last item is an epilogue unless
    earlier bare heads were described the same way.
    """
    described = False
    for k, item in enumerate(items):
        bare = not item.rest and is_bare_head(item.first) and bool(item.loose)
        if bare and (k < len(items) - 1 or described):
            item.rest.extend(item.loose)
            described = True


def _continues(item: _Item, line: _Line, gap: bool) -> bool:
    """Whether ``line`` belongs to ``item``: indented under it, a sub-list, or a wrapped line.

    An unindented text line right after the item continues it when the item is a bare head
    ("**Accuracy**") still waiting for its description, or when the item breaks off mid-sentence
    and the line goes on in lower case; otherwise it is an epilogue ("These cover the main points.").
    """
    if line.indent > item.indent:
        return True
    if gap:
        return False
    if line.kind != "text":
        return True
    if not item.rest and is_bare_head(item.first):
        return True
    last = (item.rest[-1] if item.rest else item.first).rstrip("*_ ")
    return not last.endswith((".", "?", "!", ":")) and line.text[:1].islower()
