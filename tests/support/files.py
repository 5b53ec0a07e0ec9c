"""Helpers for tests that write JSONL inputs and read JSONL outputs and rich tables."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` as JSON Lines to ``path``; returns ``path``."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of the lines of ``path``."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def table_rows(output: str) -> dict[str, list[str]]:
    """The rows of a rich table in ``output``, by first cell."""
    rows = {}
    for line in output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃|]", line) if c.strip()]
        if len(cells) > 1:
            rows[cells[0]] = cells[1:]
    return rows


def write_indented_json(path: Path, data: list[Any] | dict[str, Any]) -> Path:
    """Write ``data`` as JSON indented by two spaces, one item or key per line (as benchmark files are)."""
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def item_lines(path: Path) -> list[int]:
    """The line on which each top-level item (or key) starts, in a file of `write_indented_json`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [number for number, line in enumerate(lines, start=1) if re.match(r'  [{"\[]', line)]


def sqlite_database(path: Path) -> Path:
    """An SQLite database at ``path`` holding a row of work (as a review project's would)."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE annotations (id TEXT, text TEXT)")
        db.execute("INSERT INTO annotations VALUES ('a', 'hours of work')")
    return path
