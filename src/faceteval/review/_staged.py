"""What an import looks up while it reads a run, kept in a temporary SQLite file rather than in memory:
the judged instances by id, and the line of each judgment id (to name the lines of an id judged twice).

The file is the import's own (in the system's temporary folder) and goes when the import ends. Lookups
are by primary key, so an import's memory does not grow with the run however many instances it has.
"""

from __future__ import annotations

import pickle
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from itertools import islice
from pathlib import Path
from typing import TypeVar

from faceteval.core import Instance
from faceteval.errors import InputError

_SCHEMA = """
CREATE TABLE instances (id TEXT PRIMARY KEY, instance BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE invalid (id TEXT PRIMARY KEY, error TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE lines (id TEXT NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (id, line)) WITHOUT ROWID;
"""
BATCH = 1_000
"""Rows written to the staging file in one transaction."""
T = TypeVar("T")


class Staged:
    """A temporary SQLite file of what an import looks up (see the module's docstring)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def add_instances(self, entries: Iterable[Instance | InputError]) -> None:
        """Keep the instances of a judged input (as `faceteval.datasets.internal.judged_instances` reads
        them) by id; a line that is not one by the ids a judgment of it has: its record's, else its line
        number (an id-less line judged when it was valid) and ``line-N`` (the error judgment
        `judge` wrote)."""
        for chunk in chunked(entries, BATCH):
            rows: list[tuple[str, bytes]] = []
            invalid: list[tuple[str, str]] = []
            for entry in chunk:
                if isinstance(entry, Instance):
                    rows.append((entry.id, pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)))
                elif entry.record_id is not None:
                    invalid.append((entry.record_id, str(entry)))
                elif entry.line is not None:
                    invalid += [(str(entry.line), str(entry)), (f"line-{entry.line}", str(entry))]
            with self._transaction():
                self._db.executemany("INSERT OR REPLACE INTO instances VALUES (?, ?)", rows)
                self._db.executemany("INSERT OR REPLACE INTO invalid VALUES (?, ?)", invalid)

    def instance(self, instance_id: str) -> Instance | None:
        """The instance ``instance_id``, if the input has it."""
        row = self._db.execute("SELECT instance FROM instances WHERE id = ?", (instance_id,)).fetchone()
        return None if row is None else pickle.loads(row[0])

    def why_missing(self, instance_id: str) -> str:
        """Why the input has no ``instance_id`` (as `faceteval.datasets.internal.why_missing` says it)."""
        row = self._db.execute("SELECT error FROM invalid WHERE id = ?", (instance_id,)).fetchone()
        if row is not None:
            return f"its line in the judged input is not valid: {row[0]}"
        return "it is not in the judged input"

    def add_lines(self, lines: Iterable[tuple[str, int]]) -> None:
        """Keep the line of each judgment id read."""
        for chunk in chunked(lines, BATCH):
            with self._transaction():
                self._db.executemany("INSERT OR IGNORE INTO lines VALUES (?, ?)", chunk)

    def repeated(self) -> list[tuple[str, list[int]]]:
        """Each judgment id read on several lines, with its lines, in the order of their first lines."""
        ids = self._db.execute(
            "SELECT id FROM lines GROUP BY id HAVING COUNT(*) > 1 ORDER BY MIN(line)"
        ).fetchall()
        lines = "SELECT line FROM lines WHERE id = ? ORDER BY line"
        return [(row[0], [line for (line,) in self._db.execute(lines, row)]) for row in ids]

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN")
        yield
        self._db.execute("COMMIT")


@contextmanager
def staged() -> Iterator[Staged]:
    """A new staging file, removed when the block ends."""
    with (
        tempfile.TemporaryDirectory(prefix="faceteval-import-") as folder,
        closing(sqlite3.connect(Path(folder) / "staged.sqlite", isolation_level=None)) as db,
    ):
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.executescript(_SCHEMA)
        yield Staged(db)


def chunked(values: Iterable[T], size: int) -> Iterator[list[T]]:
    """``values`` in lists of ``size`` (the last shorter), read as they are needed.

    Examples:
        >>> list(chunked(range(5), 2))
        [[0, 1], [2, 3], [4]]
    """
    iterator = iter(values)
    while chunk := list(islice(iterator, size)):
        yield chunk
