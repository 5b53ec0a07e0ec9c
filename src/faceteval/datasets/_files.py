"""Reading benchmark files with errors that name the file, the record and the field."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from faceteval.errors import InputError


def read_json(path: Path) -> Any:
    """A whole JSON file; a broken file raises `InputError` with the line of the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(str(path), None, None, f"not UTF-8 text ({exc.reason})") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON: {exc.msg} (column {exc.colno})"
        raise InputError(str(path), exc.lineno, None, problem) from exc


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a JSONL file."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    with handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(str(path), line_no, None, f"not valid JSON: {exc.msg}") from exc
            if not isinstance(record, dict):
                raise InputError(str(path), line_no, None, "expected a JSON object")
            yield line_no, record


def field(
    record: Mapping[str, Any], name: str, kind: type | tuple[type, ...], *, path: Path, line: int | None
) -> Any:
    """``record[name]``, checked to be of ``kind``; else an `InputError` naming file, line and field.

    For records of a JSON list, pass the record's 1-based position as ``line`` (the message says so
    through the caller's path, e.g. ``dataset.json[12]``).
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
