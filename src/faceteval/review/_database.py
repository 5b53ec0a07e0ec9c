"""The connections to a project's SQLite file and its transactions.

Each write is one transaction, all or nothing: a refresh or a crash loses nothing that was sent, and
a full disk stores nothing of it (`DiskFullError`). A write opened inside another (in the same
context, on the same file) joins it, so a posted form and the actions it carries are stored
together; a read inside a write sees what the write wrote. Reads outside a write each open their
own connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path

from faceteval.review._model import DiskFullError

__all__ = ["Database", "now"]

_SQLITE_FULL = 13
_ACTIVE: ContextVar[tuple[Path, sqlite3.Connection] | None] = ContextVar("review_transaction", default=None)
"""The write transaction open in this context (its database and connection), which nested writes join."""


def now() -> str:
    """The time an action is stored with (UTC, to the millisecond)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Database:
    """The SQLite file at ``path``: its connections and write transactions."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def connect(self) -> sqlite3.Connection:
        """A new connection (in autocommit mode: `write` opens the transactions), rows by name."""
        db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA synchronous = NORMAL")
        return db

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, all or nothing; one opened inside another joins it.

        Raises:
            DiskFullError: The disk is full: nothing of the transaction was stored.
        """
        active = _ACTIVE.get()
        if active is not None and active[0] == self.path:
            yield active[1]
            return
        try:
            with closing(self.connect()) as db:
                db.execute("BEGIN IMMEDIATE")
                joined = _ACTIVE.set((self.path, db))
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:  # SQLite may have rolled back already (a full disk)
                        with suppress(sqlite3.Error):
                            db.execute("ROLLBACK")
                    raise
                finally:
                    _ACTIVE.reset(joined)
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF == _SQLITE_FULL:
                raise DiskFullError(f"{self.path}: the disk is full; nothing of this was saved") from exc
            raise

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A connection to read with: inside a write, the write's own (to read what it wrote)."""
        active = _ACTIVE.get()
        if active is not None and active[0] == self.path:
            yield active[1]
            return
        with closing(self.connect()) as db:
            yield db

    @contextmanager
    def kept_open(self) -> Iterator[None]:
        """Hold a connection for as long as this lasts (see `ReviewStore.kept_open`)."""
        with closing(self.connect()) as db:
            db.execute("SELECT COUNT(*) FROM meta").fetchone()
            yield
