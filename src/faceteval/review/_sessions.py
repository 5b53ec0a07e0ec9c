"""The sessions annotators open, kept in the project: each by the hash of its key (the key itself is only
in its cookie), with when it opened and when it was last used.

Signing out removes one; `faceteval.review._access.Sessions` decides, from the times kept, whether one
is still open. Times are stored as `faceteval.review._database.now` writes them (ISO 8601, UTC, to the
millisecond), so that they compare as text.
"""

from __future__ import annotations

from dataclasses import dataclass

from faceteval.review._annotators import check_annotator
from faceteval.review._database import Database

__all__ = ["SessionRecord", "SessionRecords"]


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A session kept in the project: whose, through which invite (None: by name), opened and last used."""

    annotator: str
    invite: int | None
    created_at: str
    seen_at: str


class SessionRecords:
    """The ``sessions`` table of a project."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def open(self, key_hash: str, record: SessionRecord, *, stale: tuple[str, str]) -> None:
        """Keep ``record`` by ``key_hash``; remove those ``stale`` (last used before its first time, or
        opened before its second) meanwhile.

        Raises:
            ReviewError: Its annotator is not one of the project's.
        """
        with self._database.write() as db:
            check_annotator(db, record.annotator)
            db.execute("DELETE FROM sessions WHERE seen_at < ? OR created_at < ?", stale)
            db.execute(
                "INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
                (key_hash, record.annotator, record.invite, record.created_at, record.seen_at),
            )

    def get(self, key_hash: str) -> SessionRecord | None:
        """The session kept by ``key_hash``; None if there is none (never opened, or ended)."""
        with self._database.read() as db:
            row = db.execute(
                "SELECT annotator, invite, created_at, seen_at FROM sessions WHERE key_hash = ?", (key_hash,)
            ).fetchone()
        return None if row is None else SessionRecord(str(row[0]), row[1], str(row[2]), str(row[3]))

    def seen(self, key_hash: str, at: str) -> None:
        """Keep ``at`` as when the session was last used (unless it is kept as used later)."""
        with self._database.write() as db:
            db.execute(
                "UPDATE sessions SET seen_at = ? WHERE key_hash = ? AND seen_at < ?", (at, key_hash, at)
            )

    def end(self, key_hash: str) -> None:
        """Remove the session kept by ``key_hash`` (signed out), if there is one."""
        with self._database.write() as db:
            db.execute("DELETE FROM sessions WHERE key_hash = ?", (key_hash,))
