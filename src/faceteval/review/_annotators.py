"""Who reviews: the annotators of a project and the invite links they sign in with.

An invite is stored by the hash of its token (the token itself is only in the link); revoking one
marks it, so the sessions opened with it end (``_sessions.py``).
"""

from __future__ import annotations

import sqlite3
import unicodedata

from faceteval.review._database import Database, now
from faceteval.review._model import ReviewError

__all__ = [
    "add_annotator",
    "add_invite",
    "annotators",
    "check_annotator",
    "invite_active",
    "invited",
    "revoke_invites",
]

_ANNOTATOR_MARKS = frozenset(" _.@-'")
"""Besides letters, combining marks and digits (of any script), what an annotator name may hold."""


def annotators(db: sqlite3.Connection) -> list[str]:
    """Every annotator's name, sorted."""
    return [r[0] for r in db.execute("SELECT name FROM annotators ORDER BY name")]


def add_annotator(database: Database, name: str) -> str:
    """Register ``name`` (stripped, NFC) unless it is there, and return it; ReviewError if not a name."""
    name = unicodedata.normalize("NFC", name.strip())
    if not _annotator_name(name):
        raise ReviewError(
            f"{name!r} is not an annotator name: it takes 1-64 letters (of any script), digits, "
            "spaces or _.@-' and starts with a letter or digit"
        )
    with database.write() as db:
        db.execute("INSERT INTO annotators VALUES (?, ?) ON CONFLICT DO NOTHING", (name, now()))
    return name


def _annotator_name(name: str) -> bool:
    """Whether ``name`` is 1-64 letters, marks, digits or `_ANNOTATOR_MARKS`, from a letter or digit."""
    kinds = [unicodedata.category(character)[0] for character in name]
    return (
        1 <= len(name) <= 64
        and kinds[0] in "LN"
        and all(
            kind in "LMN" or character in _ANNOTATOR_MARKS
            for kind, character in zip(kinds, name, strict=True)
        )
    )


def check_annotator(db: sqlite3.Connection, annotator: str) -> None:
    """ReviewError unless ``annotator`` is one of the project's."""
    if db.execute("SELECT 1 FROM annotators WHERE name = ?", (annotator,)).fetchone() is None:
        raise ReviewError(f"no annotator {annotator!r}: sign in first")


def add_invite(database: Database, annotator: str, token_hash: str) -> None:
    """Store an invite of ``annotator`` (known already) by the hash of its token."""
    with database.write() as db:
        check_annotator(db, annotator)
        db.execute(
            "INSERT INTO invites (annotator, token_hash, created_at) VALUES (?, ?, ?)",
            (annotator, token_hash, now()),
        )


def invited(db: sqlite3.Connection, token_hash: str) -> tuple[int, str] | None:
    """``(invite id, annotator)`` of the invite whose token has this hash, unless revoked."""
    row = db.execute(
        "SELECT id, annotator FROM invites WHERE token_hash = ? AND revoked_at IS NULL", (token_hash,)
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def invite_active(db: sqlite3.Connection, invite_id: int, annotator: str) -> bool:
    """Whether invite ``invite_id`` is ``annotator``'s and not revoked."""
    row = db.execute(
        "SELECT 1 FROM invites WHERE id = ? AND annotator = ? AND revoked_at IS NULL", (invite_id, annotator)
    ).fetchone()
    return row is not None


def revoke_invites(database: Database, annotator: str) -> int:
    """Revoke every invite of ``annotator``, and end the sessions opened with them; how many invites."""
    with database.write() as db:
        cursor = db.execute(
            "UPDATE invites SET revoked_at = ? WHERE annotator = ? AND revoked_at IS NULL", (now(), annotator)
        )
        db.execute("DELETE FROM sessions WHERE annotator = ? AND invite IS NOT NULL", (annotator,))
        return cursor.rowcount
