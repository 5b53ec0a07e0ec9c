"""A review project: LLM drafts and every annotator's actions on them, in one SQLite file.

A project is a directory holding ``review.sqlite``. Nothing is ever updated in place that another
annotator wrote: each action is a new row of an append-only log keyed by its annotator, and an
annotator's current view (which sentences they kept, which score they gave) is the latest action of
theirs. Each action is its own transaction, so a refresh or a crash loses nothing that was sent.

Stage 1 reviews a task's criteria (approve / delete / revise / add, each with a reason; a criterion
the annotator added can itself be revised or deleted). Stage 2 reviews each output: per criterion,
the LLM's explanation sentence by sentence (``pass``, ``revise``, ``delete``, ``add``, CoEval's action
names) and its score; then the overall score.

A criterion is keyed by the name it was drafted (or added) with: drafts, sentence actions and scores
refer to it by that name, whatever the annotator renamed it to (`CriterionRow.label`).
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple

from faceteval._text import first_few
from faceteval.errors import FacetevalError

__all__ = [
    "CRITERION_ACTIONS",
    "DATABASE",
    "OVERALL",
    "SENTENCE_ACTIONS",
    "CriterionRow",
    "CriterionView",
    "DiskFullError",
    "Draft",
    "Item",
    "ReviewError",
    "ReviewStore",
    "SentenceView",
    "describe_conflicts",
    "finished",
    "split_sentences",
]

DATABASE = "review.sqlite"
SCHEMA_VERSION = 4
"""2 added each task's own scale (``tasks.scale_min``, ``scale_max``) and actions on added criteria
(``criteria_actions.added_id``), 3 whether a task's scale was worked out from drafts
(``tasks.scale_derived``), 4 invite links (``invites``) and the tokens of the forms posted
(``form_posts``); an older project is brought up to date when opened (an older faceteval, which
would not ask for invites, refuses a newer project)."""
OVERALL = ""
"""The criterion name under which the overall score is stored."""

CriterionAction = Literal["approve", "delete", "revise", "add"]
SentenceAction = Literal["pass", "revise", "delete", "add"]
CRITERION_ACTIONS: tuple[CriterionAction, ...] = ("approve", "delete", "revise", "add")
SENTENCE_ACTIONS: tuple[SentenceAction, ...] = ("pass", "revise", "delete", "add")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    scale_min REAL,
    scale_max REAL,
    scale_derived INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS criteria (
    id INTEGER PRIMARY KEY,
    task TEXT NOT NULL REFERENCES tasks(name),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    scale_min REAL NOT NULL DEFAULT 1,
    scale_max REAL NOT NULL DEFAULT 5,
    UNIQUE (task, name)
);
CREATE TABLE IF NOT EXISTS annotators (name TEXT PRIMARY KEY, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS criteria_actions (
    id INTEGER PRIMARY KEY,
    task TEXT NOT NULL REFERENCES tasks(name),
    annotator TEXT NOT NULL REFERENCES annotators(name),
    criterion_id INTEGER REFERENCES criteria(id),
    action TEXT NOT NULL CHECK (action IN ('approve', 'delete', 'revise', 'add')),
    name TEXT,
    description TEXT,
    reason TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    added_id INTEGER REFERENCES criteria_actions(id)
);
CREATE TABLE IF NOT EXISTS items (
    id TEXT PRIMARY KEY,
    task TEXT NOT NULL REFERENCES tasks(name),
    position INTEGER NOT NULL,
    query TEXT NOT NULL,
    output TEXT NOT NULL,
    system TEXT,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS drafts (
    item_id TEXT NOT NULL REFERENCES items(id),
    criterion TEXT NOT NULL,
    score REAL,
    conclusion TEXT NOT NULL DEFAULT '',
    evidence TEXT NOT NULL DEFAULT '',
    sentences TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (item_id, criterion)
);
CREATE TABLE IF NOT EXISTS sentence_actions (
    id INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES items(id),
    criterion TEXT NOT NULL,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    sentence INTEGER,
    action TEXT NOT NULL CHECK (action IN ('pass', 'revise', 'delete', 'add')),
    text TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS score_actions (
    id INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES items(id),
    criterion TEXT NOT NULL,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    score REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS invites (
    id INTEGER PRIMARY KEY,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS form_posts (
    token TEXT PRIMARY KEY,
    annotator TEXT NOT NULL,
    location TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sentence_actions_by_item ON sentence_actions (item_id, annotator, criterion);
CREATE INDEX IF NOT EXISTS score_actions_by_item ON score_actions (item_id, annotator, criterion);
CREATE INDEX IF NOT EXISTS criteria_actions_by_task ON criteria_actions (task, annotator);
"""
_MIGRATIONS = {  # columns each version added, for projects written by an older faceteval
    2: (
        ("tasks", "scale_min", "REAL"),
        ("tasks", "scale_max", "REAL"),
        ("criteria_actions", "added_id", "INTEGER"),
    ),
    3: (("tasks", "scale_derived", "INTEGER NOT NULL DEFAULT 0"),),
}
_BACKFILLS = {  # what each version's new columns hold for rows written before it
    # Version 2 did not record which scales were worked out from drafts: taken as such (widened).
    3: "UPDATE tasks SET scale_derived = 1 WHERE scale_min IS NOT NULL",
}
DEFAULT_SCALE = (1.0, 5.0)

_ANNOTATOR_MARKS = frozenset(" _.@-'")
"""Besides letters, combining marks and digits (of any script), what an annotator name may hold."""
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")


_SQLITE_FULL = 13
_POSTED = "SELECT annotator, location FROM form_posts WHERE token = ?"
_ACTIVE: ContextVar[tuple[Path, sqlite3.Connection] | None] = ContextVar("review_transaction", default=None)
"""The write transaction open in this context (its database and connection), which nested writes join."""


class ReviewError(FacetevalError):
    """A review request that cannot be carried out (unknown item, bad score, bad name)."""


class DiskFullError(ReviewError):
    """A write refused because the disk holding the project is full; it was rolled back whole."""


def split_sentences(text: str) -> list[str]:
    """The sentences of an explanation, as the review shows them one by one (blank ones dropped)."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part and part.strip()]


class TaskProgress(NamedTuple):
    """An annotator's progress on one task."""

    done: int
    """Items finished: every criterion and the overall score."""
    total: int
    """Items of the task."""
    awaiting_overall: int
    """Items whose every criterion is finished, without an overall score (as in CoEval's released review)."""


@dataclass(frozen=True, slots=True)
class CriterionRow:
    """A task's criterion as drafted (or imported) for review, or as an annotator added or revised it.

    ``id`` is the drafted criterion's (> 0), or minus the id of the ``add`` action of a criterion an
    annotator added. ``name`` keys the criterion's drafts and scores; ``label`` is the name the
    annotator gave it when they revised it ("" while it has its own).
    """

    id: int
    task: str
    position: int
    name: str
    description: str = ""
    scale: tuple[float, float] = DEFAULT_SCALE
    label: str = ""

    @property
    def title(self) -> str:
        """The name to show: the annotator's, else the drafted one."""
        return self.label or self.name


@dataclass(frozen=True, slots=True)
class Item:
    """One output to review."""

    id: str
    task: str
    query: str
    output: str
    system: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    position: int = 0


@dataclass(frozen=True, slots=True)
class Draft:
    """The LLM's evaluation of an item on one criterion (or, with ``OVERALL``, overall)."""

    item_id: str
    criterion: str
    score: float | None
    conclusion: str = ""
    evidence: str = ""
    sentences: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SentenceView:
    """A sentence of the explanation as one annotator left it."""

    index: int | None
    """Position in the draft; None for a sentence the annotator added."""
    original: str | None
    text: str | None
    """The current text; None when deleted."""
    action: SentenceAction | None
    """The annotator's latest action on it; None while untouched."""
    action_id: int | None = None


@dataclass(frozen=True, slots=True)
class CriterionView:
    """What one annotator sees and has done for one criterion of one item."""

    name: str
    """The criterion's key (the name it was drafted or added with)."""
    description: str
    scale: tuple[float, float]
    draft: Draft | None
    sentences: tuple[SentenceView, ...]
    score: float | None
    """The annotator's score; None until they give or confirm one."""
    title: str = ""
    """The name to show (the annotator's revision of it, else ``name``)."""

    @property
    def done(self) -> bool:
        return self.score is not None and all(s.action is not None for s in self.sentences)


def finished(views: Sequence[CriterionView], overall: float | None) -> bool:
    """Whether an item is done: every criterion reviewed and scored, and an overall score given."""
    return overall is not None and all(view.done for view in views)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class ReviewStore:
    """The SQLite file of a review project."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def open(cls, project: Path, *, create: bool = True) -> ReviewStore:
        """The store of ``project`` (a directory), created with it when ``create``.

        Raises:
            ReviewError: The project does not exist (and ``create`` is False), or was written by a
                newer faceteval.
        """
        database = project / DATABASE
        if not database.is_file():
            if database.exists() or (project.exists() and not project.is_dir()):
                raise ReviewError(f"{project}: not a review project (not a directory holding {DATABASE})")
            if not create:
                raise ReviewError(f"{project}: not a review project (no {DATABASE})")
            try:
                project.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ReviewError(f"{project}: cannot make the project's directory: {exc.strerror}") from None
        store = cls(database)
        try:
            with closing(store._connect()) as db:
                db.executescript(_SCHEMA)  # idempotent; executescript manages its own transaction
            with store._write() as db:
                store._upgrade(db, database)
        except sqlite3.OperationalError as exc:  # locked, read-only, disk: the project may be fine
            raise ReviewError(f"{database}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise ReviewError(f"{database}: not a review project ({exc})") from None
        return store

    @staticmethod
    def _upgrade(db: sqlite3.Connection, database: Path) -> None:
        """Record the schema's version in a new project; add what later versions added to an old one."""
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            return
        version = int(row[0])
        if version > SCHEMA_VERSION:
            raise ReviewError(f"{database}: written by a newer faceteval (schema {version})")
        for later in range(version + 1, SCHEMA_VERSION + 1):
            for table, column, kind in _MIGRATIONS.get(later, ()):
                if column not in {info[1] for info in db.execute(f"PRAGMA table_info({table})")}:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            if later in _BACKFILLS:
                db.execute(_BACKFILLS[later])
        if version < SCHEMA_VERSION:
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA synchronous = NORMAL")
        return db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, all or nothing; one opened inside another joins it.

        Raises:
            DiskFullError: The disk is full: nothing of the transaction was stored.
        """
        active = _ACTIVE.get()
        if active is not None and active[0] == self.path:
            yield active[1]
            return
        try:
            with closing(self._connect()) as db:
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
    def _read(self) -> Iterator[sqlite3.Connection]:
        active = _ACTIVE.get()
        if active is not None and active[0] == self.path:  # inside a write: read what it wrote
            yield active[1]
            return
        with closing(self._connect()) as db:
            yield db

    @contextmanager
    def kept_open(self) -> Iterator[None]:
        """Hold a connection for as long as this lasts (a server's lifetime).

        SQLite removes the write-ahead log and its index when the last connection closes, and must
        make them again to read: on a full disk it could not, and nothing could be read. Held open,
        they stay, reads go on, and a write the disk has no room for fails alone (`DiskFullError`).
        """
        with closing(self._connect()) as db:
            db.execute("SELECT COUNT(*) FROM meta").fetchone()
            yield

    # -- form posts and invites -------------------------------------------------------------------

    @contextmanager
    def posting(self, token: str, annotator: str, location: str) -> Iterator[str | None]:
        """The transaction of one posted form, stored with the form's ``token``.

        Yields None the first time: what is written inside is stored with the token, all or
        nothing. A token stored before yields where its first post went (``location``): do nothing,
        and answer as the first time did.

        Raises:
            ReviewError: The token was another annotator's.
        """
        with self._write() as db:
            row = db.execute(_POSTED, (token,)).fetchone()
            if row is not None and row[0] != annotator:
                raise ReviewError("this form was sent by another annotator")
            if row is None:
                db.execute("INSERT INTO form_posts VALUES (?, ?, ?, ?)", (token, annotator, location, _now()))
            yield None if row is None else str(row[1])

    def posted(self, token: str) -> tuple[str, str] | None:
        """``(annotator, location)`` of the form posted with ``token``; None if none was."""
        with self._read() as db:
            row = db.execute(_POSTED, (token,)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def add_invite(self, annotator: str, token_hash: str) -> None:
        """Store an invite of ``annotator`` (known already) by the hash of its token."""
        with self._write() as db:
            self._check_annotator(db, annotator)
            db.execute(
                "INSERT INTO invites (annotator, token_hash, created_at) VALUES (?, ?, ?)",
                (annotator, token_hash, _now()),
            )

    def invited(self, token_hash: str) -> tuple[int, str] | None:
        """``(invite id, annotator)`` of the invite whose token has this hash, unless revoked."""
        with self._read() as db:
            row = db.execute(
                "SELECT id, annotator FROM invites WHERE token_hash = ? AND revoked_at IS NULL", (token_hash,)
            ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def invite_active(self, invite_id: int, annotator: str) -> bool:
        """Whether invite ``invite_id`` is ``annotator``'s and not revoked."""
        with self._read() as db:
            row = db.execute(
                "SELECT 1 FROM invites WHERE id = ? AND annotator = ? AND revoked_at IS NULL",
                (invite_id, annotator),
            ).fetchone()
        return row is not None

    def revoke_invites(self, annotator: str) -> int:
        """Revoke every invite of ``annotator`` (and so the sessions opened with them); how many."""
        with self._write() as db:
            cursor = db.execute(
                "UPDATE invites SET revoked_at = ? WHERE annotator = ? AND revoked_at IS NULL",
                (_now(), annotator),
            )
            return cursor.rowcount

    # -- importing drafts -------------------------------------------------------------------------

    def add_task(
        self,
        name: str,
        description: str = "",
        criteria: Sequence[tuple[str, str, tuple[float, float]]] = (),
        *,
        scale: tuple[float, float] | None = None,
        derived: bool = False,
    ) -> None:
        """Add a task (or update its description) and append criteria it does not have yet.

        ``scale`` is the task's own: the overall score's, and that of the criteria annotators add.
        Without it, `task_scale` spans the criteria's scales. A scale the judging method states must
        be the one the task has; one ``derived`` (worked out from the drafts) widens a derived one,
        must fit in a stated one, and gives way to a stated one that holds it.

        Raises:
            ReviewError: The scale does not go with the one the task has (its drafts were judged on it).
        """
        with self._write() as db:
            row = db.execute(
                "SELECT scale_min, scale_max, scale_derived FROM tasks WHERE name = ?", (name,)
            ).fetchone()
            if scale is not None and row is not None and row[0] is not None:
                scale, derived = _joined_scale(name, (row[0], row[1]), bool(row[2]), scale, derived)
            low, high = scale if scale is not None else (None, None)
            db.execute(
                "INSERT INTO tasks (name, description, scale_min, scale_max, scale_derived) "
                "VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET description = excluded.description, "
                "scale_min = COALESCE(excluded.scale_min, scale_min), "
                "scale_max = COALESCE(excluded.scale_max, scale_max), "
                "scale_derived = CASE WHEN excluded.scale_min IS NULL THEN scale_derived "
                "ELSE excluded.scale_derived END",
                (name, description, low, high, int(derived)),
            )
            start = db.execute("SELECT COUNT(*) FROM criteria WHERE task = ?", (name,)).fetchone()[0]
            for offset, (criterion, text, (low, high)) in enumerate(criteria):
                db.execute(
                    "INSERT INTO criteria (task, position, name, description, scale_min, scale_max) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (task, name) DO NOTHING",
                    (name, start + offset, criterion, text, low, high),
                )

    def conflicts(self, items: Sequence[Item]) -> list[tuple[Item, Item]]:
        """``(new, present)`` for each item whose id the project already holds for another output.

        Ids name outputs across the whole project, whatever their task: an item is the same as the
        one present when its task, input and output are the same (a run imported again).
        """
        with self._read() as db:
            return self._conflicts(db, items)

    @staticmethod
    def _conflicts(db: sqlite3.Connection, items: Sequence[Item]) -> list[tuple[Item, Item]]:
        out = []
        for item in items:
            row = db.execute("SELECT * FROM items WHERE id = ?", (item.id,)).fetchone()
            if row is not None and (row["task"], row["query"], row["output"]) != (
                item.task,
                item.query,
                item.output,
            ):
                out.append((item, _item(row)))
        return out

    def add_items(self, items: Sequence[Item], drafts: Sequence[Draft] = ()) -> int:
        """Add items and their drafts in one transaction; items already present are left as they are.

        Returns:
            How many items were new.

        Raises:
            ReviewError: An item's task is unknown, or its id is the project's for another output (see
                `conflicts`); nothing is added.
        """
        with self._write() as db:
            clashes = self._conflicts(db, items)
            if clashes:
                raise ReviewError(describe_conflicts(clashes))
            tasks = {row[0] for row in db.execute("SELECT name FROM tasks")}
            position = db.execute("SELECT COALESCE(MAX(position) + 1, 0) FROM items").fetchone()[0]
            added = 0
            for item in items:
                if item.task not in tasks:
                    raise ReviewError(f"item {item.id!r}: unknown task {item.task!r}")
                cursor = db.execute(
                    "INSERT INTO items (id, task, position, query, output, system, metadata) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                    (
                        item.id,
                        item.task,
                        position + added,
                        item.query,
                        item.output,
                        item.system,
                        json.dumps(dict(item.metadata), ensure_ascii=False),
                    ),
                )
                added += cursor.rowcount
            for draft in drafts:
                db.execute(
                    "INSERT INTO drafts (item_id, criterion, score, conclusion, evidence, sentences) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (item_id, criterion) DO NOTHING",
                    (
                        draft.item_id,
                        draft.criterion,
                        draft.score,
                        draft.conclusion,
                        draft.evidence,
                        json.dumps(list(draft.sentences), ensure_ascii=False),
                    ),
                )
        return added

    # -- reading ----------------------------------------------------------------------------------

    def tasks(self) -> list[tuple[str, str]]:
        """``(name, description)`` of every task."""
        with self._read() as db:
            return [(r["name"], r["description"]) for r in db.execute("SELECT * FROM tasks ORDER BY name")]

    def task_scale(self, task: str) -> tuple[float, float]:
        """The task's scale: its overall score's and that of criteria annotators add.

        It is the one it was imported with; for a project imported without one, the span of its
        criteria's scales (1-5 when it has none).
        """
        with self._read() as db:
            return self._task_scale(db, task)

    @staticmethod
    def _task_scale(db: sqlite3.Connection, task: str) -> tuple[float, float]:
        row = db.execute("SELECT scale_min, scale_max FROM tasks WHERE name = ?", (task,)).fetchone()
        if row is None:
            raise ReviewError(f"no task {task!r}")
        if row[0] is not None and row[1] is not None:
            return float(row[0]), float(row[1])
        span = db.execute(
            "SELECT MIN(scale_min), MAX(scale_max) FROM criteria WHERE task = ?", (task,)
        ).fetchone()
        return DEFAULT_SCALE if span[0] is None else (float(span[0]), float(span[1]))

    def criteria(self, task: str) -> list[CriterionRow]:
        """The task's drafted criteria, in order."""
        with self._read() as db:
            return [
                _criterion(row)
                for row in db.execute("SELECT * FROM criteria WHERE task = ? ORDER BY position", (task,))
            ]

    def items(self, task: str | None = None) -> list[Item]:
        """Every item (of ``task``), in import order."""
        return [_item(row) for row in self._rows("items", "task", task, order="position")]

    def item(self, item_id: str) -> Item:
        with self._read() as db:
            row = db.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            raise ReviewError(f"no item {item_id!r}")
        return _item(row)

    def drafts(self, item_id: str | None = None) -> list[Draft]:
        """The LLM's drafts (of one item)."""
        return [_draft(row) for row in self._rows("drafts", "item_id", item_id, order="rowid")]

    def annotators(self) -> list[str]:
        with self._read() as db:
            return [r[0] for r in db.execute("SELECT name FROM annotators ORDER BY name")]

    def add_annotator(self, name: str) -> str:
        """Register ``name`` (letters, digits, spaces, ``_.@-``; at most 64) and return it."""
        name = unicodedata.normalize("NFC", name.strip())
        if not _annotator_name(name):
            raise ReviewError(
                f"{name!r} is not an annotator name: it takes 1-64 letters (of any script), digits, "
                "spaces or _.@-' and starts with a letter or digit"
            )
        with self._write() as db:
            db.execute("INSERT INTO annotators VALUES (?, ?) ON CONFLICT DO NOTHING", (name, _now()))
        return name

    # -- stage 1: criteria ------------------------------------------------------------------------

    def record_criterion_action(
        self,
        task: str,
        annotator: str,
        action: CriterionAction,
        *,
        criterion_id: int | None = None,
        name: str | None = None,
        description: str | None = None,
        reason: str = "",
    ) -> int:
        """Log one stage-1 action; ``revise`` and ``add`` carry the new name and description.

        ``criterion_id`` is a drafted criterion's id, or for one the annotator added, minus the id of
        its ``add`` (`CriterionRow.id`). A name (added or revised) must differ from the names of the
        annotator's other criteria, and an added one from the task's drafted criteria (approve or
        revise a drafted criterion rather than adding it again).
        """
        if action not in CRITERION_ACTIONS:
            raise ReviewError(f"unknown criteria action {action!r}")
        if (action == "add") != (criterion_id is None):
            raise ReviewError("add takes no criterion; approve, delete and revise need one")
        if action in ("revise", "add") and not (name or "").strip():
            raise ReviewError(f"{action} needs the criterion's name")
        with self._write() as db:
            self._check_annotator(db, annotator)
            if db.execute("SELECT 1 FROM tasks WHERE name = ?", (task,)).fetchone() is None:
                raise ReviewError(f"no task {task!r}")
            drafted_id, added_id = (criterion_id, None) if (criterion_id or 0) > 0 else (None, criterion_id)
            if drafted_id is not None:
                row = db.execute("SELECT task FROM criteria WHERE id = ?", (drafted_id,)).fetchone()
                if row is None or row[0] != task:
                    raise ReviewError(f"task {task!r} has no criterion {drafted_id}")
            elif added_id is not None:
                row = db.execute(
                    "SELECT 1 FROM criteria_actions WHERE id = ? AND task = ? AND annotator = ? "
                    "AND action = 'add'",
                    (-added_id, task, annotator),
                ).fetchone()
                if row is None:
                    raise ReviewError(f"task {task!r} has no criterion {added_id} added by {annotator}")
            if action in ("revise", "add"):
                self._check_name(db, task, annotator, (name or "").strip(), criterion_id)
            elif action == "approve":  # keeping it as drafted (or added) again: its own name back
                restored = self._reviewed(task, self._criteria_actions(db, task, annotator), db)
                row = next(row for row, _ in restored if row.id == criterion_id)
                self._check_name(db, task, annotator, row.name, criterion_id)
            cursor = db.execute(
                "INSERT INTO criteria_actions "
                "(task, annotator, criterion_id, action, name, description, reason, created_at, added_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    task,
                    annotator,
                    drafted_id,
                    action,
                    _clean(name),
                    _clean(description),
                    reason,
                    _now(),
                    None if added_id is None else -added_id,
                ),
            )
            return int(cursor.lastrowid or 0)

    def _check_name(
        self, db: sqlite3.Connection, task: str, annotator: str, name: str, criterion_id: int | None
    ) -> None:
        """ReviewError if ``name`` is another of the annotator's criteria's, or (to add) the key of one.

        An added criterion is keyed by its name, so a name to add must not be a drafted criterion's
        nor one the annotator added and deleted: its drafts, or their scores, would come back with it.
        """
        wanted = name.casefold()
        actions = self._criteria_actions(db, task, annotator)
        for criterion in self._final(task, actions, db):
            taken = (criterion.name.casefold(), criterion.title.casefold())
            if criterion.id != criterion_id and wanted in taken:
                raise ReviewError(f"you already have a criterion named {criterion.title!r}")
        if criterion_id is not None:
            return
        for (drafted,) in db.execute("SELECT name FROM criteria WHERE task = ?", (task,)):
            if drafted.casefold() == wanted:
                raise ReviewError(
                    f"{drafted!r} is one of the task's drafted criteria: approve or revise it "
                    "rather than adding it again"
                )
        for row, _ in self._reviewed(task, actions, db):
            if row.id < 0 and row.name.casefold() == wanted:
                raise ReviewError(
                    f"you added {row.name!r} before and deleted it: keep it after all (or revise it) "
                    "rather than adding it again"
                )

    def criteria_actions(self, task: str | None = None) -> list[dict[str, Any]]:
        """Every stage-1 action, oldest first (one on an added criterion has its ``add`` in ``added_id``)."""
        return [dict(row) for row in self._rows("criteria_actions", "task", task)]

    @staticmethod
    def _criteria_actions(db: sqlite3.Connection, task: str, annotator: str) -> list[dict[str, Any]]:
        rows = db.execute(
            "SELECT * FROM criteria_actions WHERE task = ? AND annotator = ? ORDER BY id", (task, annotator)
        )
        return [dict(row) for row in rows]

    def reviewed_criteria(
        self, task: str, annotator: str
    ) -> list[tuple[CriterionRow, dict[str, Any] | None]]:
        """The task's criteria, then those the annotator added, each with their latest action on it.

        The action is None for a drafted criterion they have not acted on; an added criterion's is
        its ``add`` until they act on it again.
        """
        with self._read() as db:
            return self._reviewed(task, self._criteria_actions(db, task, annotator), db)

    def _reviewed(
        self, task: str, actions: Sequence[dict[str, Any]], db: sqlite3.Connection
    ) -> list[tuple[CriterionRow, dict[str, Any] | None]]:
        latest: dict[int, dict[str, Any]] = {}
        for action in actions:
            if action["criterion_id"] is not None:
                latest[action["criterion_id"]] = action
            elif action["added_id"] is not None:
                latest[-action["added_id"]] = action
        drafted = db.execute("SELECT * FROM criteria WHERE task = ? ORDER BY position", (task,))
        out: list[tuple[CriterionRow, dict[str, Any] | None]] = [
            (criterion, latest.get(criterion.id)) for criterion in map(_criterion, drafted)
        ]
        scale = self._task_scale(db, task)
        for action in actions:
            if action["action"] == "add":
                added = CriterionRow(
                    id=-int(action["id"]),
                    task=task,
                    position=len(out),
                    name=action["name"] or "",
                    description=action["description"] or "",
                    scale=scale,
                )
                out.append((added, latest.get(added.id, action)))
        return out

    def final_criteria(self, task: str, annotator: str) -> list[CriterionRow]:
        """The annotator's criteria after stage 1: deletions removed, revisions applied, additions kept.

        A criterion's ``name`` stays the name it was drafted or added with (it keys the drafts and
        scores); a revision's name is its ``label``, and its text the ``description``.
        """
        with self._read() as db:
            return self._final(task, self._criteria_actions(db, task, annotator), db)

    def _final(
        self, task: str, actions: Sequence[dict[str, Any]], db: sqlite3.Connection
    ) -> list[CriterionRow]:
        out = []
        for criterion, action in self._reviewed(task, actions, db):
            if action is None or action["action"] in ("approve", "add"):
                out.append(criterion)
            elif action["action"] == "revise":
                label = action["name"] if action["name"] and action["name"] != criterion.name else ""
                description = action["description"] or criterion.description
                out.append(replace(criterion, label=label, description=description))
        return out

    def record_sentence_action(
        self,
        item_id: str,
        criterion: str,
        annotator: str,
        action: SentenceAction,
        *,
        sentence: int | None = None,
        text: str | None = None,
    ) -> int:
        """Log one action on a sentence of a criterion's explanation.

        ``pass`` / ``delete`` name a draft sentence (``sentence``: its index) or an added one (``-id`` of
        its ``add`` action); ``revise`` also carries the new ``text``; ``add`` carries only ``text``.
        """
        if action not in SENTENCE_ACTIONS:
            raise ReviewError(f"unknown sentence action {action!r}")
        if action in ("revise", "add") and not (text or "").strip():
            raise ReviewError(f"{action} needs the sentence's text")
        if (action == "add") != (sentence is None):
            raise ReviewError("add takes no sentence; pass, revise and delete need one")
        with self._write() as db:
            self._check_annotator(db, annotator)
            if db.execute("SELECT 1 FROM items WHERE id = ?", (item_id,)).fetchone() is None:
                raise ReviewError(f"no item {item_id!r}")
            if sentence is not None and sentence >= 0:
                row = db.execute(
                    "SELECT sentences FROM drafts WHERE item_id = ? AND criterion = ?", (item_id, criterion)
                ).fetchone()
                if row is None or sentence >= len(json.loads(row[0])):
                    raise ReviewError(f"{item_id!r} / {criterion!r} has no sentence {sentence}")
            elif sentence is not None:
                row = db.execute(
                    "SELECT 1 FROM sentence_actions WHERE id = ? AND item_id = ? AND criterion = ? "
                    "AND annotator = ? AND action = 'add'",
                    (-sentence, item_id, criterion, annotator),
                ).fetchone()
                if row is None:
                    raise ReviewError(f"{item_id!r} / {criterion!r} has no added sentence {-sentence}")
            cursor = db.execute(
                "INSERT INTO sentence_actions "
                "(item_id, criterion, annotator, sentence, action, text, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (item_id, criterion, annotator, sentence, action, _clean(text), _now()),
            )
            return int(cursor.lastrowid or 0)

    def set_score(self, item_id: str, criterion: str, annotator: str, score: float) -> None:
        """Log the annotator's score of an item on a criterion (``OVERALL`` for the overall score)."""
        with self._write() as db:
            self._check_annotator(db, annotator)
            if db.execute("SELECT 1 FROM items WHERE id = ?", (item_id,)).fetchone() is None:
                raise ReviewError(f"no item {item_id!r}")
            db.execute(
                "INSERT INTO score_actions (item_id, criterion, annotator, score, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (item_id, criterion, annotator, float(score), _now()),
            )

    def sentence_actions(self, item_id: str | None = None) -> list[dict[str, Any]]:
        """Every stage-2 sentence action (of one item), oldest first."""
        return [dict(row) for row in self._rows("sentence_actions", "item_id", item_id)]

    def score_actions(self, item_id: str | None = None) -> list[dict[str, Any]]:
        """Every score given (of one item), oldest first."""
        return [dict(row) for row in self._rows("score_actions", "item_id", item_id)]

    def scores(self) -> dict[tuple[str, str, str], float]:
        """Every annotator's current score: ``{(item, criterion, annotator): score}``."""
        out: dict[tuple[str, str, str], float] = {}
        for row in self.score_actions():
            out[(row["item_id"], row["criterion"], row["annotator"])] = row["score"]
        return out

    def item_view(self, item_id: str, annotator: str) -> tuple[list[CriterionView], float | None]:
        """The annotator's view of an item: each of their criteria, and their overall score."""
        item = self.item(item_id)
        drafts = {draft.criterion: draft for draft in self.drafts(item_id)}
        actions = [a for a in self.sentence_actions(item_id) if a["annotator"] == annotator]
        given = {
            row["criterion"]: row["score"]
            for row in self.score_actions(item_id)
            if row["annotator"] == annotator
        }
        views = []
        for criterion in self.final_criteria(item.task, annotator):
            draft = drafts.get(criterion.name)
            views.append(
                CriterionView(
                    name=criterion.name,
                    description=criterion.description,
                    scale=criterion.scale,
                    draft=draft,
                    sentences=_sentences(draft, [a for a in actions if a["criterion"] == criterion.name]),
                    score=given.get(criterion.name),
                    title=criterion.title,
                )
            )
        return views, given.get(OVERALL)

    def progress(self, annotator: str) -> dict[str, tuple[int, int]]:
        """Per task: ``(items the annotator finished, items)``; finished = every criterion and overall."""
        return {task: (p.done, p.total) for task, p in self.task_progress(annotator).items()}

    def task_progress(self, annotator: str) -> dict[str, TaskProgress]:
        """Per task: the items the annotator finished, of how many, and how many await an overall score."""
        criteria_done, done = self._finished_items(annotator)
        out: dict[str, TaskProgress] = {}
        for task, _ in self.tasks():
            ids = [item.id for item in self.items(task)]
            waiting = sum(i in criteria_done and i not in done for i in ids)
            out[task] = TaskProgress(sum(i in done for i in ids), len(ids), awaiting_overall=waiting)
        return out

    def done_items(self, annotator: str, *, overall: bool = True) -> set[str]:
        """The items the annotator finished (as `is_done` decides, for every item in a few queries);
        with ``overall`` False, those whose every criterion is finished, scored overall or not."""
        criteria_done, done = self._finished_items(annotator)
        return done if overall else criteria_done

    def _finished_items(self, annotator: str) -> tuple[set[str], set[str]]:
        """The items whose every criterion the annotator finished, and those of them also scored overall."""
        sentences = {(d.item_id, d.criterion): len(d.sentences) for d in self.drafts()}
        acted: dict[tuple[str, str], set[int]] = defaultdict(set)
        for action in self.sentence_actions():
            if (
                action["annotator"] == annotator
                and (action["sentence"] or 0) >= 0
                and action["action"] != "add"
            ):
                acted[(action["item_id"], action["criterion"])].add(action["sentence"])
        scored = {(item, criterion) for item, criterion, who in self.scores() if who == annotator}
        criteria = {task: [c.name for c in self.final_criteria(task, annotator)] for task, _ in self.tasks()}
        criteria_done = {
            item.id
            for item in self.items()
            if all(
                (item.id, name) in scored
                and len(acted[(item.id, name)] & set(range(sentences.get((item.id, name), 0))))
                == sentences.get((item.id, name), 0)
                for name in criteria[item.task]
            )
        }
        return criteria_done, {i for i in criteria_done if (i, OVERALL) in scored}

    def is_done(self, item_id: str, annotator: str) -> bool:
        return finished(*self.item_view(item_id, annotator))

    def _rows(self, table: str, column: str, value: str | None, *, order: str = "id") -> list[sqlite3.Row]:
        """Rows of ``table`` (where ``column`` is ``value``, unless None), by ``order``; names are ours."""
        where = f" WHERE {column} = ?" if value is not None else ""
        with self._read() as db:
            return list(
                db.execute(
                    f"SELECT * FROM {table}{where} ORDER BY {order}", () if value is None else (value,)
                )
            )

    def _check_annotator(self, db: sqlite3.Connection, annotator: str) -> None:
        if db.execute("SELECT 1 FROM annotators WHERE name = ?", (annotator,)).fetchone() is None:
            raise ReviewError(f"no annotator {annotator!r}: sign in first")

    # -- bulk import --

    def import_log(
        self,
        sentence_actions: Sequence[tuple[str, str, str, int | None, SentenceAction, str | None]] = (),
        scores: Sequence[tuple[str, str, str, float]] = (),
    ) -> None:
        """Append a past review's log in one transaction: all rows or, on any bad row, none.

        For importing many rows at once (another tool's annotations). ``sentence_actions`` rows are
        ``(item_id, criterion, annotator, sentence, action, text)`` and ``scores`` rows are ``(item_id,
        criterion, annotator, score)``, appended in the order given (later rows count as later).

        Unlike `record_sentence_action`, a row may lack the text of a ``revise`` or ``add`` (a log that
        records only which action was taken), and a ``sentence`` index is not checked against the
        draft: an imported log that does not line up with its draft keeps its actions. Views show only
        the draft's own sentences; an action past them still counts in statistics.
        A ``sentence`` is a draft index (>= 0), or None for ``add``.

        Raises:
            ReviewError: An unknown item, annotator or action, a negative index, an ``add`` with a
                sentence or another action without one, or a score that is not a finite number.
        """
        for item_id, _, _, sentence, action, _ in sentence_actions:
            if action not in SENTENCE_ACTIONS:
                raise ReviewError(f"{item_id!r}: unknown sentence action {action!r}")
            if (action == "add") != (sentence is None) or (sentence is not None and sentence < 0):
                raise ReviewError(f"{item_id!r}: {action} with sentence {sentence!r}")
        for item_id, _, _, score in scores:
            if isinstance(score, bool) or not isinstance(score, int | float) or not abs(score) < float("inf"):
                raise ReviewError(f"{item_id!r}: score {score!r} is not a finite number")
        now = _now()
        with self._write() as db:
            known_items = {row[0] for row in db.execute("SELECT id FROM items")}
            known_annotators = {row[0] for row in db.execute("SELECT name FROM annotators")}
            for row in [*sentence_actions, *scores]:
                if row[0] not in known_items:
                    raise ReviewError(f"no item {row[0]!r}")
                if row[2] not in known_annotators:
                    raise ReviewError(f"no annotator {row[2]!r}: add them first")
            db.executemany(
                "INSERT INTO sentence_actions "
                "(item_id, criterion, annotator, sentence, action, text, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(*row[:5], _clean(row[5]), now) for row in sentence_actions],
            )
            db.executemany(
                "INSERT INTO score_actions (item_id, criterion, annotator, score, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [(*row[:3], float(row[3]), now) for row in scores],
            )


def _joined_scale(
    task: str,
    has: tuple[float, float],
    has_derived: bool,
    new: tuple[float, float],
    new_derived: bool,
) -> tuple[tuple[float, float], bool]:
    """The task's scale after an import on ``new``, and whether it is still derived (see `add_task`)."""

    def within(inner: tuple[float, float], outer: tuple[float, float]) -> bool:
        return outer[0] <= inner[0] and inner[1] <= outer[1]

    if has_derived and new_derived:
        return (min(has[0], new[0]), max(has[1], new[1])), True
    if new_derived and within(new, has):
        return has, False
    if has_derived and within(has, new):
        return new, False
    if not has_derived and not new_derived and has == new:
        return has, False
    raise ReviewError(
        f"task {task!r} was imported with scores on {has[0]:g}-{has[1]:g}, not {new[0]:g}-{new[1]:g}: "
        "import these as another task"
    )


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


def describe_conflicts(clashes: Sequence[tuple[Item, Item]]) -> str:
    """What `ReviewStore.conflicts` found, for an error message."""
    shown = first_few([f"{new.id!r} (task {present.task!r})" for new, present in clashes])
    return (
        f"{len(clashes)} output id(s) are already in the project for other outputs: {shown}. "
        "An id names one output in the whole project: import into another project, or give these "
        "instances ids of their own"
    )


def _clean(text: str | None) -> str | None:
    return None if text is None else text.strip()


def _criterion(row: sqlite3.Row) -> CriterionRow:
    return CriterionRow(
        id=row["id"],
        task=row["task"],
        position=row["position"],
        name=row["name"],
        description=row["description"],
        scale=(row["scale_min"], row["scale_max"]),
    )


def _item(row: sqlite3.Row) -> Item:
    return Item(
        id=row["id"],
        task=row["task"],
        query=row["query"],
        output=row["output"],
        system=row["system"],
        metadata=json.loads(row["metadata"]),
        position=row["position"],
    )


def _draft(row: sqlite3.Row) -> Draft:
    return Draft(
        item_id=row["item_id"],
        criterion=row["criterion"],
        score=row["score"],
        conclusion=row["conclusion"],
        evidence=row["evidence"],
        sentences=tuple(json.loads(row["sentences"])),
    )


def _sentences(draft: Draft | None, actions: Sequence[Mapping[str, Any]]) -> tuple[SentenceView, ...]:
    """Draft sentences and added ones, each with the annotator's latest action applied."""
    latest: dict[int, Mapping[str, Any]] = {}
    added: list[Mapping[str, Any]] = []
    for action in actions:
        if action["action"] == "add":
            added.append(action)
        else:
            latest[action["sentence"]] = action
    out = []
    for index, original in enumerate(draft.sentences if draft else ()):
        out.append(_sentence(index, original, latest.get(index)))
    for action in added:
        key = -int(action["id"])
        last = latest.get(key)
        view = _sentence(None, action["text"], last)
        out.append(
            SentenceView(
                index=None,
                original=None,
                text=view.text,
                action=last["action"] if last else "add",
                action_id=int(action["id"]),
            )
        )
    return tuple(out)


def _sentence(index: int | None, original: str, action: Mapping[str, Any] | None) -> SentenceView:
    if action is None:
        return SentenceView(index, original, original, None)
    kind = action["action"]
    text = None if kind == "delete" else action["text"] if kind == "revise" else original
    return SentenceView(index, original, text, kind)
