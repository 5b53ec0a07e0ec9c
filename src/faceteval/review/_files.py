"""A project's files on disk: what its ``review.sqlite`` is, read before anything is written to it, and a
new project made whole, readable by its owner alone.

A folder given as a project may hold another file of that name: another program's database,
faceteval's response cache, a project of a newer faceteval. SQLite changes a file merely by being
used as a project is (tables made, the WAL journal switched on, ``-wal`` and ``-shm`` files made
beside it), so the file is first read without writing anything: its first bytes, then (an SQLite
database) its tables and schema version, through a connection that makes no file beside it.

A new database is built beside its place, then linked in: a crash leaves no half-made project, and
two commands making one at once keep one. Its folder, when faceteval makes it, is the owner's alone
(0700), and so is the database (0600), whose mode SQLite gives its ``-wal`` and ``-shm`` files too.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Callable
from contextlib import closing, suppress
from pathlib import Path

from faceteval._util.files import make_private_dirs
from faceteval.review._model import ReviewError

__all__ = ["make_database", "make_folder", "read_schema"]

_HEADER = b"SQLite format 3\x00"
_WAL = 2
"""The file format's read and write versions (bytes 18 and 19 of the header) of a database in WAL mode."""


def read_schema(path: Path) -> tuple[list[str], str | None]:
    """The tables of the SQLite database ``path`` (sorted) and the ``schema_version`` its ``meta`` table
    holds (None when it has none), read without writing anything or making any file.

    Raises:
        ReviewError: ``path`` cannot be read, is empty, or is not an SQLite database, saying which.
    """
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except OSError as exc:
        raise ReviewError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if not header:
        raise ReviewError(
            f"{path} is an empty file, not a review project: remove it to make a new project there, "
            "or give another folder"
        )
    if not header.startswith(_HEADER):
        raise ReviewError(f"{path} is not an SQLite database, so not a review project: give another folder")
    try:
        with closing(sqlite3.connect(_read_only(path, header), uri=True, timeout=30.0)) as db:
            return _tables(db), _version(db)
    except sqlite3.DatabaseError as exc:
        raise ReviewError(f"{path}: an SQLite database that cannot be read ({exc})") from None


def _read_only(path: Path, header: bytes) -> str:
    """The URI that opens ``path`` to read alone, making no file beside it.

    A read-only connection to a WAL database makes its ``-wal`` and ``-shm`` files when they are not
    there (and leaves them). Without a ``-wal`` file, everything committed is in the database file
    itself, which is then read as immutable (no journal, no lock, no file made); with one, as read-only.
    """
    in_wal = len(header) > 18 and header[18] == _WAL
    immutable = in_wal and not path.with_name(f"{path.name}-wal").exists()
    return f"{path.resolve().as_uri()}?{'immutable=1' if immutable else 'mode=ro'}"


def _tables(db: sqlite3.Connection) -> list[str]:
    query = "SELECT name FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, 7) != 'sqlite_'"
    rows = db.execute(query)
    return sorted(str(row[0]) for row in rows)


def _version(db: sqlite3.Connection) -> str | None:
    """The ``schema_version`` of a ``meta (key, value)`` table; None without one (or such a table)."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:  # no such table, or one of other columns
        return None
    return None if row is None else str(row[0])


def make_folder(folder: Path) -> None:
    """Make the project's ``folder`` and those above it that are missing, each its owner's alone (0700).

    Raises:
        ReviewError: One cannot be made.
    """
    try:
        make_private_dirs(folder)
    except OSError as exc:
        raise ReviewError(f"{folder}: cannot make the project's directory: {exc.strerror or exc}") from None


def make_database(path: Path, build: Callable[[sqlite3.Connection], None]) -> None:
    """Make the SQLite database ``path`` (mode 0600) by ``build`` beside it, then link it in whole; a
    database made there meanwhile (by another command) is kept and this one dropped.

    Raises:
        ReviewError: The file cannot be made (what ``build`` raises is raised as it is).
    """
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise ReviewError(f"{path}: cannot make the project's database: {exc.strerror or exc}") from None
    os.close(handle)  # mkstemp made it 0600; SQLite builds in it
    try:
        with closing(sqlite3.connect(temporary, isolation_level=None)) as db:
            build(db)
        with suppress(FileExistsError):
            os.link(temporary, path)
    except OSError as exc:
        raise ReviewError(f"{path}: cannot make the project's database: {exc.strerror or exc}") from None
    finally:
        for end in ("", "-journal"):
            Path(f"{temporary}{end}").unlink(missing_ok=True)
