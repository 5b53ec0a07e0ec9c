"""A run's lines read back for a page: the judgment (or correction, or bridged record) on each, its
instance, and the candidates as the item page shows them side by side.

Only the lines of the page are read, at the offsets the index gives. A line that is not what the
index says (the file changed meanwhile) raises `Stale`, for the page to index the run again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError
from pydantic_core import from_json

from faceteval.core import Instance, Judgment, TraceEntry
from faceteval.datasets.internal import changed_since, instance_from_line
from faceteval.errors import InputError
from faceteval.viewer._fields import BAD_LINE, input_fields
from faceteval.viewer._index import IndexedRow
from faceteval.viewer._lines import Stale
from faceteval.viewer._opened import OpenedRun

__all__ = ["Candidate", "Line", "candidates", "read_line", "trace_of"]


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a run, read back.

    Attributes:
        row: What the index has of it.
        text: The line as written (bytes that are not UTF-8 shown as such).
        judgment: The judgment on it (judge and meta-eval runs), unless it is a bad line.
        data: The object on it (a correction or bridged record), unless it is a bad line.
        systems: The systems of its instance's candidates, in candidate order.
        instance: Its instance, when it was asked for and found.
        instance_problem: Why its instance is not shown (or is not what was judged), when it is not.
    """

    row: IndexedRow
    text: str
    judgment: Judgment | None = None
    data: dict[str, Any] | None = None
    systems: tuple[str, ...] = ()
    instance: Instance | None = None
    instance_problem: str | None = None

    def system(self, number: int | None) -> str | None:
        """The system of candidate ``number`` (1-based), if it is named."""
        if number is None or not 1 <= number <= len(self.systems):
            return None
        return self.systems[number - 1]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One candidate of an item, as its column on the item page shows it."""

    number: int
    system: str | None
    text: str | None
    """None when the instance is not known."""
    score: float | None
    rank: int | None
    winner: bool
    """The verdict picks it."""
    human: bool
    """The human label picks it."""


def read_line(opened: OpenedRun, row: IndexedRow, *, instance: bool = False) -> Line:
    """Line ``row`` of ``opened``, with its instance read whole when ``instance`` (else its systems).

    Raises:
        Stale: The line (or its instance) is not where the index says.
    """
    index = opened.index
    assert index is not None, "a run without lines has no line to read"
    raw = index.read(row)
    text = raw.decode("utf-8", "replace")
    line = Line(row, text)
    if row.status != BAD_LINE:
        line = _parsed(line, raw, opened.run.command in ("judge", "meta-eval"))
    raw_input = index.read_input(row)
    if raw_input is None:
        return replace(line, systems=opened.systems, instance_problem=_missing(opened, row))
    fields = input_fields(row.input_line or 0, raw_input, opened.systems)
    systems = fields.systems if fields is not None else opened.systems
    if not instance or opened.inputs is None:
        return replace(line, systems=systems)
    found = instance_from_line(opened.inputs, row.input_line or 0, raw_input.decode("utf-8", "replace"))
    if isinstance(found, InputError):
        return replace(
            line, systems=systems, instance_problem=f"its line in the judged input is not valid: {found}"
        )
    if found.id != row.id:
        raise Stale(f"{opened.inputs}: changed since it was indexed")
    changed = changed_since(found, line.judgment) if line.judgment is not None else None
    return replace(line, systems=systems, instance=found, instance_problem=changed)


def _parsed(line: Line, raw: bytes, judgments: bool) -> Line:
    """``line`` with what it holds; `Stale` when that is not what the index read there."""
    judgment: Judgment | None = None
    data: Any = None
    try:
        if judgments:
            judgment = Judgment.model_validate_json(raw)
            found: Any = judgment.id
        else:
            data = from_json(raw)
            found = data.get("id") if isinstance(data, dict) else None
    except ValueError as exc:
        raise Stale(f"line {line.row.line} no longer reads as it did when indexed") from exc
    if found != line.row.id:
        raise Stale(f"line {line.row.line} is no longer the item {line.row.id!r}")
    return replace(line, judgment=judgment, data=data)


def _missing(opened: OpenedRun, row: IndexedRow) -> str | None:
    """Why a line of ``opened`` has no instance (None when its run has no input to have one in)."""
    if opened.input_problem is not None:
        return opened.input_problem
    if opened.inputs is None or row.id is None:
        return None
    return f"instance {row.id!r} is not in the judged input {opened.inputs}"


def candidates(line: Line) -> list[Candidate]:
    """The candidates of a judged line, side by side: their texts, systems, scores and ranks, which one
    the verdict picks and which one the human label picks."""
    judgment, instance = line.judgment, line.instance
    texts: Sequence[str | None] = instance.candidates if instance is not None else ()
    count = max(len(texts), *(len(f.scores) for f in judgment.facets), 0) if judgment else len(texts)
    if judgment is not None and judgment.scores:
        count = max(count, len(judgment.scores))
    verdict = judgment.verdict if judgment is not None else None
    label = instance.label if instance is not None else line.row.label
    return [
        Candidate(
            number=number,
            system=line.system(number),
            text=texts[number - 1] if number <= len(texts) else None,
            score=_at(judgment.scores if judgment else None, number),
            rank=_at(judgment.ranks if judgment else None, number),
            winner=verdict == number,
            human=label == number,
        )
        for number in range(1, count + 1)
    ]


def _at(values: Sequence[Any] | None, number: int) -> Any:
    return values[number - 1] if values is not None and number <= len(values) else None


def trace_of(value: Any) -> list[TraceEntry | str]:
    """The exchanges of a correction's or bridged record's ``trace``: each as a `TraceEntry`, or as its
    JSON when it is not one."""
    if not isinstance(value, list):
        return []
    entries: list[TraceEntry | str] = []
    for item in value:
        try:
            entries.append(TraceEntry.model_validate(item))
        except ValidationError:
            entries.append(json.dumps(item, ensure_ascii=False, indent=2))
    return entries
