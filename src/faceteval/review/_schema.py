"""The tables of a review project, their schema's version, and how an older project is brought up to date.

A project records the version of the schema it was written with (``meta.schema_version``). Opening
one written by an older faceteval makes the tables later versions added, adds the columns they added
to tables it has, fills them for the rows already there, and records the new version; nothing
already there changes. One written by a newer faceteval is refused, and so is a file that is not a
review project at all, both before anything is written to them (`check`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from faceteval.review._database import Database
from faceteval.review._files import make_database, read_schema
from faceteval.review._model import ReviewError
from faceteval.review._progress import mark_all

__all__ = ["SCHEMA_VERSION", "check", "create", "install"]

SCHEMA_VERSION = 8
"""2 added each task's own scale (``tasks.scale_min``, ``scale_max``) and actions on added criteria
(``criteria_actions.added_id``), 3 whether a task's scale was worked out from drafts
(``tasks.scale_derived``), 4 invite links (``invites``) and the tokens of the forms posted
(``form_posts``), 5 comparisons: the candidates of an item judged pairwise or listwise
(``candidates``), what a draft holds beyond its score and sentences (``draft_details``: each
candidate's score, the facet's weight, the judge's verdict, the explanation's headings and score
lines), and each annotator's scores of candidates (``candidate_scores``) and preferences
(``preferences``), 6 each annotator's progress kept as they act (``finished``: the criteria of
items they finished, and the items they gave their overall; see ``_progress.py``), 7 the sessions
annotators open (``sessions``: each by the hash of its key, with when it opened and was last used),
so that signing out ends one on the server and one left unused expires, 8 the labelling queue
(``queue``: the order each imported item was queued by, its seed and the item's place) and what a
label was given with (``label_context``: of an overall score or a preference, whether the judge's
drafts were hidden, the item's queue order and its position in it; a label without one was given with
everything shown, of an item in no queue, as every label before version 8). Each version's
tables are made when an older project is opened; an older faceteval, which would not read them,
refuses a newer project.

Indexes are not versions: an older faceteval reads a project with more of them as it was, so an
index added later (``items_by_task``, for an item's neighbours) is made in every project opened,
old or new, without changing its version."""

_FIRST_TABLES = frozenset(
    {
        "meta",
        "tasks",
        "criteria",
        "annotators",
        "criteria_actions",
        "items",
        "drafts",
        "sentence_actions",
        "score_actions",
    }
)
"""The tables of version 1, which every project has: a database without them is not a review project."""
_LISTED = 10
"""How many of a database's tables an error lists."""

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
CREATE TABLE IF NOT EXISTS candidates (
    item_id TEXT NOT NULL REFERENCES items(id),
    candidate INTEGER NOT NULL CHECK (candidate >= 1),
    output TEXT NOT NULL,
    system TEXT,
    PRIMARY KEY (item_id, candidate)
);
CREATE TABLE IF NOT EXISTS draft_details (
    item_id TEXT NOT NULL,
    criterion TEXT NOT NULL,
    scores TEXT NOT NULL DEFAULT '[]',
    weight REAL,
    verdict INTEGER,
    parts TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (item_id, criterion),
    FOREIGN KEY (item_id, criterion) REFERENCES drafts(item_id, criterion)
);
CREATE TABLE IF NOT EXISTS candidate_scores (
    id INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES items(id),
    criterion TEXT NOT NULL,
    candidate INTEGER NOT NULL CHECK (candidate >= 1),
    annotator TEXT NOT NULL REFERENCES annotators(name),
    score REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS preferences (
    id INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES items(id),
    annotator TEXT NOT NULL REFERENCES annotators(name),
    preference INTEGER NOT NULL CHECK (preference >= 0),
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    key_hash TEXT PRIMARY KEY,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    invite INTEGER REFERENCES invites(id),
    created_at TEXT NOT NULL,
    seen_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS finished (
    annotator TEXT NOT NULL,
    item_id TEXT NOT NULL,
    criterion TEXT NOT NULL,
    PRIMARY KEY (annotator, item_id, criterion)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS queue (
    item_id TEXT PRIMARY KEY REFERENCES items(id),
    ordering TEXT NOT NULL CHECK (ordering IN ('input', 'uncertainty', 'disagreement', 'random')),
    seed INTEGER NOT NULL,
    rank INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS label_context (
    kind TEXT NOT NULL CHECK (kind IN ('score', 'preference')),
    action_id INTEGER NOT NULL,
    blind INTEGER NOT NULL,
    ordering TEXT,
    queue_position INTEGER,
    PRIMARY KEY (kind, action_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sentence_actions_by_item ON sentence_actions (item_id, annotator, criterion);
CREATE INDEX IF NOT EXISTS score_actions_by_item ON score_actions (item_id, annotator, criterion);
CREATE INDEX IF NOT EXISTS criteria_actions_by_task ON criteria_actions (task, annotator);
CREATE INDEX IF NOT EXISTS candidate_scores_by_item ON candidate_scores (item_id, annotator, criterion);
CREATE INDEX IF NOT EXISTS preferences_by_item ON preferences (item_id, annotator);
CREATE INDEX IF NOT EXISTS items_by_task ON items (task, position);
"""
_MIGRATIONS = {  # columns each version added to tables it did not make (versions 5 to 8 made tables only)
    2: (
        ("tasks", "scale_min", "REAL"),
        ("tasks", "scale_max", "REAL"),
        ("criteria_actions", "added_id", "INTEGER"),
    ),
    3: (("tasks", "scale_derived", "INTEGER NOT NULL DEFAULT 0"),),
}
_BACKFILLS: dict[int, str | Callable[[sqlite3.Connection], None]] = {
    # what each version's new columns and tables hold for rows written before it
    # Version 2 did not record which scales were worked out from drafts: taken as such (widened).
    3: "UPDATE tasks SET scale_derived = 1 WHERE scale_min IS NOT NULL",
    6: mark_all,  # the progress of the actions already logged
}


def check(path: Path) -> None:
    """Refuse, having written nothing, a file that is not a review project this faceteval can open.

    Raises:
        ReviewError: ``path`` is not an SQLite database, has not a review project's tables (naming
            those it has), or was written by a newer faceteval.
    """
    tables, version = read_schema(path)
    if not set(tables) >= _FIRST_TABLES:
        more = f" and {len(tables) - _LISTED} more" if len(tables) > _LISTED else ""
        what = f"tables: {', '.join(tables[:_LISTED])}{more}" if tables else "no tables"
        raise ReviewError(
            f"{path} is an SQLite database but not a review project ({what}): give another folder"
        )
    if version is not None and not (version.isascii() and version.isdigit()):
        raise ReviewError(f"{path}: not a review project (its schema version is {version!r})")
    if version is not None and int(version) > SCHEMA_VERSION:
        raise ReviewError(_newer(path, int(version)))


def _newer(path: Path, version: int) -> str:
    return f"{path}: written by a newer faceteval (schema {version}); this one opens up to {SCHEMA_VERSION}"


def create(path: Path) -> None:
    """Make a new project's database at ``path`` whole (every table, the schema's version), mode 0600.

    Raises:
        ReviewError: It cannot be made (a full disk, a folder that cannot be written).
    """

    def build(db: sqlite3.Connection) -> None:
        version = f"INSERT INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}');"
        db.executescript(f"BEGIN;\n{_SCHEMA}\n{version}\nCOMMIT;")

    try:
        make_database(path, build)
    except sqlite3.Error as exc:
        raise ReviewError(f"{path}: cannot make the project's database: {exc}") from None


def install(database: Database) -> None:
    """Make the tables a project lacks; record the schema's version, or bring an older project's up to date.

    What the file is, is checked first (`check`): nothing is written to a file that is not a review
    project this faceteval can open.

    Raises:
        ReviewError: The file is not a review project, was written by a newer faceteval, or cannot be
            written (locked, read-only).
        DiskFullError: The disk is full.
    """
    check(database.path)
    try:
        with closing(database.connect()) as db:
            db.executescript(_SCHEMA)  # idempotent; executescript manages its own transaction
        with database.write() as db:
            _upgrade(db, database.path)
    except sqlite3.OperationalError as exc:  # locked, read-only, disk: the project may be fine
        raise ReviewError(f"{database.path}: {exc}") from None
    except sqlite3.DatabaseError as exc:
        raise ReviewError(f"{database.path}: not a review project ({exc})") from None


def _upgrade(db: sqlite3.Connection, path: Path) -> None:
    """Add what later versions added to an older project, and record this version (read again under the
    write's lock: `check` read it before)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:  # its making was cut short, by a faceteval that made tables before the version
        db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    version = 1 if row is None else int(row[0])
    if version > SCHEMA_VERSION:
        raise ReviewError(_newer(path, version))
    for later in range(version + 1, SCHEMA_VERSION + 1):
        _migrate(db, later)
    if version < SCHEMA_VERSION:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))


def _migrate(db: sqlite3.Connection, version: int) -> None:
    """Add the columns ``version`` added (those the project lacks), and fill them for the rows there."""
    for table, column, kind in _MIGRATIONS.get(version, ()):
        if column not in {info[1] for info in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    backfill = _BACKFILLS.get(version)
    if isinstance(backfill, str):
        db.execute(backfill)
    elif backfill is not None:
        backfill(db)
