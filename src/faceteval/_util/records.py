"""Objects read from JSON and JSONL files that report a bad field with the file, the line and the field.

A benchmark's reader (`faceteval.datasets`) and the human weights of a meta-evaluation read their
records through `Record`; `json_records` and `jsonl_records` give the records of a file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval._util.files import read_json, read_jsonl
from faceteval.errors import InputError


def field(
    record: Mapping[str, Any], name: str, kind: type | tuple[type, ...], *, path: Path, line: int | None
) -> Any:
    """``record[name]``, checked to be of ``kind``; else an `InputError` naming file, line and field.

    For the items of a JSON list or object, use `Record`, which finds an item's line when it reports.
    """
    if name not in record:
        raise InputError(str(path), line, name, "missing")
    value = record[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        expected = " or ".join(k.__name__ for k in _as_tuple(kind))
        raise InputError(str(path), line, name, f"expected {expected}, got {type(value).__name__}")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


@dataclass(frozen=True, slots=True)
class Record:
    """An object read from a benchmark file, able to report a bad field with its file and position."""

    path: Path
    line: int | None
    """The line of a JSONL file, or None (an item of a JSON list or object: see ``position``)."""
    data: Mapping[str, Any]
    label: str = ""
    """Where the object is, in words, put before each problem (``record 12``, ``input 3``)."""
    prefix: str = ""
    """The dotted field path of ``data`` within the record."""
    position: int | None = None
    """The 1-based position of an item of a JSON list or object (ids use it); its line is found
    only when there is a problem to report."""

    def get(self, name: str, kind: type | tuple[type, ...]) -> Any:
        try:
            return field(self.data, name, kind, path=self.path, line=self.line)
        except InputError as exc:
            raise self.error(name, exc.problem) from None

    def number(self, name: str, low: float, high: float) -> float:
        """``data[name]`` as a float within ``[low, high]``."""
        value = float(self.get(name, (int, float)))
        if not low <= value <= high:
            raise self.error(name, f"expected a score in [{low:g}, {high:g}], got {value!r}")
        return value

    def whole(self, name: str, low: int, high: int) -> int:
        """``data[name]`` as an integer within ``[low, high]``."""
        value: int = self.get(name, int)
        if not low <= value <= high:
            raise self.error(name, f"expected an integer score {low}-{high}, got {value!r}")
        return value

    def child(self, name: str) -> Record:
        """The object under ``name``, reporting its fields as ``name.field``."""
        return Record(
            self.path, self.line, self.get(name, dict), self.label, self._field(name), self.position
        )

    def error(self, name: str | None, problem: str) -> InputError:
        where = self._field(name) if name is not None else self.prefix or None
        line = self.line
        if line is None and self.position is not None:
            line = item_line(self.path, self.position)
        return InputError(str(self.path), line, where, f"{self.label}: {problem}" if self.label else problem)

    def _field(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name


_SPACE = re.compile(r"[ \t\n\r]*")


def item_line(path: Path, position: int) -> int | None:
    """The line on which the ``position``-th item (1-based) of the JSON list or object in ``path``
    starts (for an object, its key's line); None if the file no longer reads so."""

    def past_space(at: int) -> int:
        match = _SPACE.match(text, at)
        return match.end() if match else at

    try:
        text = path.read_text(encoding="utf-8-sig")  # as read_json reads it: a byte-order mark left out
        decoder = json.JSONDecoder()
        at = past_space(0)
        if text[at : at + 1] not in ("[", "{"):
            return None
        pairs = text[at] == "{"
        for index in range(1, position + 1):
            at = start = past_space(at + 1)  # past the "[", "{" or ","
            if pairs:
                _, at = decoder.raw_decode(text, at)  # the key
                at = past_space(past_space(at) + 1)  # past the ":"
            if index == position:
                return text.count("\n", 0, start) + 1
            _, at = decoder.raw_decode(text, at)
            at = past_space(at)
            if text[at : at + 1] != ",":
                return None
    except (OSError, ValueError, RecursionError):
        return None
    return None


def json_records(path: Path) -> list[Record]:
    """The records of a file holding one JSON list of objects (``position`` = 1-based position)."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(str(path), None, None, f"expected a JSON list of records, got {type(data).__name__}")
    records = []
    for position, item in enumerate(data, start=1):
        record = Record(
            path, None, item if isinstance(item, dict) else {}, f"record {position}", position=position
        )
        if not isinstance(item, dict):
            raise record.error(None, f"expected a JSON object, got {type(item).__name__}")
        records.append(record)
    return records


def jsonl_records(path: Path) -> list[Record]:
    """The objects of a JSONL file (``line`` = the line number)."""
    return [Record(path, line, record) for line, record in read_jsonl(path)]
