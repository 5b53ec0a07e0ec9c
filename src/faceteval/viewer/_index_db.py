"""The index's database: its tables, opened (or made anew) in one file per run."""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["SCHEMA", "open_index"]

SCHEMA = 1
"""The index's own version (``PRAGMA user_version``); an index of another is built again."""

_TABLES = """
CREATE TABLE sources(role TEXT PRIMARY KEY, path TEXT, device INTEGER, inode INTEGER, size INTEGER,
    mtime_ns INTEGER, indexed_to INTEGER, lines INTEGER, tail BLOB);
CREATE TABLE rows(line INTEGER PRIMARY KEY, offset INTEGER NOT NULL, length INTEGER NOT NULL, id TEXT,
    status TEXT NOT NULL, problem TEXT, verdict INTEGER, consistent INTEGER);
CREATE INDEX rows_id ON rows(id);
CREATE TABLE names(name_id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, UNIQUE(kind, name));
CREATE TABLE row_facets(name_id INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY(name_id, line))
    WITHOUT ROWID;
CREATE TABLE inputs(id TEXT PRIMARY KEY, line INTEGER NOT NULL, offset INTEGER NOT NULL,
    length INTEGER NOT NULL, label INTEGER);
CREATE TABLE input_systems(name_id INTEGER NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL,
    PRIMARY KEY(name_id, id, position)) WITHOUT ROWID;
"""


def open_index(path: Path) -> sqlite3.Connection:
    """The index at ``path``, made anew when it is of another version or is not an index at all."""
    for attempt in range(2):
        db = sqlite3.connect(path, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA:
                return db
            with db:
                for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                    db.execute(f'DROP TABLE IF EXISTS "{name}"')
                db.executescript(_TABLES)
                db.execute(f"PRAGMA user_version = {SCHEMA}")
            return db
        except sqlite3.DatabaseError:  # not an index (a file of something else, a torn write): made anew
            db.close()
            if attempt:
                raise
            path.unlink(missing_ok=True)
    raise AssertionError("unreachable")
