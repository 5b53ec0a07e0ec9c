"""Reading a project's rows: the imported content (tasks, criteria, items, drafts) and the log as written.

Every function reads over the connection it is given (inside a write, the write's own, so the write's
checks see what it wrote), and none writes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from faceteval.review._model import (
    DEFAULT_SCALE,
    OVERALL,
    Candidate,
    CriterionRow,
    Draft,
    Item,
    Part,
    ReviewError,
)

__all__ = [
    "Action",
    "candidate_scores",
    "candidates_scores",
    "criteria",
    "criteria_actions",
    "drafts",
    "item",
    "items",
    "labels",
    "neighbours",
    "preference",
    "preferences",
    "preferred",
    "queued",
    "score_actions",
    "scores",
    "sentence_actions",
    "task_scale",
    "tasks",
]

Action = dict[str, Any]
"""A row of an action table, by column name."""


# -- the content: tasks, criteria, items, drafts ---------------------------------------------------


def tasks(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """``(name, description)`` of every task."""
    return [(r["name"], r["description"]) for r in db.execute("SELECT * FROM tasks ORDER BY name")]


def task_scale(db: sqlite3.Connection, task: str) -> tuple[float, float]:
    """The task's own scale, else the span of its criteria's (`DEFAULT_SCALE` when it has none)."""
    row = db.execute("SELECT scale_min, scale_max FROM tasks WHERE name = ?", (task,)).fetchone()
    if row is None:
        raise ReviewError(f"no task {task!r}")
    if row[0] is not None and row[1] is not None:
        return float(row[0]), float(row[1])
    span = db.execute(
        "SELECT MIN(scale_min), MAX(scale_max) FROM criteria WHERE task = ?", (task,)
    ).fetchone()
    return DEFAULT_SCALE if span[0] is None else (float(span[0]), float(span[1]))


def criteria(db: sqlite3.Connection, task: str) -> list[CriterionRow]:
    """The task's drafted criteria, in order."""
    rows = db.execute("SELECT * FROM criteria WHERE task = ? ORDER BY position", (task,))
    return [_criterion(row) for row in rows]


def items(db: sqlite3.Connection, task: str | None = None) -> list[Item]:
    """Every item (of ``task``), in import order."""
    rows = _select(db, "items", "task", task, order="position")
    candidates = _candidates(db, None if task is None else [row["id"] for row in rows])
    return [_item(row, candidates.get(row["id"], ())) for row in rows]


def item(db: sqlite3.Connection, item_id: str) -> Item:
    """The item ``item_id``."""
    row = db.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        raise ReviewError(f"no item {item_id!r}")
    return _item(row, _candidates(db, [item_id]).get(item_id, ()))


def neighbours(db: sqlite3.Connection, item_id: str) -> tuple[str | None, str | None, int, int]:
    """``(previous, next, index, total)`` of an item among its task's, in import order.

    Each is one query on the index of items by task and position (``items_by_task``): the page of an
    item reads its neighbours, not every item of its task.
    """
    row = db.execute("SELECT task, position FROM items WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        raise ReviewError(f"no item {item_id!r}")
    task, position = row
    before = db.execute(
        "SELECT id FROM items WHERE task = ? AND position < ? ORDER BY position DESC LIMIT 1",
        (task, position),
    ).fetchone()
    after = db.execute(
        "SELECT id FROM items WHERE task = ? AND position > ? ORDER BY position LIMIT 1", (task, position)
    ).fetchone()
    index = db.execute(
        "SELECT COUNT(*) FROM items WHERE task = ? AND position < ?", (task, position)
    ).fetchone()[0]
    total = db.execute("SELECT COUNT(*) FROM items WHERE task = ?", (task,)).fetchone()[0]
    return (None if before is None else before[0]), (None if after is None else after[0]), index, total


def drafts(db: sqlite3.Connection, item_id: str | None = None) -> list[Draft]:
    """The LLM's drafts (of one item), with their details (a comparison's scores, the parts) if any."""
    where = "" if item_id is None else " WHERE d.item_id = ?"
    rows = db.execute(
        "SELECT d.*, x.scores AS candidate_scores, x.weight, x.verdict, x.parts "
        "FROM drafts AS d LEFT JOIN draft_details AS x USING (item_id, criterion)"
        f"{where} ORDER BY d.rowid",
        () if item_id is None else (item_id,),
    )
    return [_draft(row) for row in rows]


# -- the log, as it was written ---------------------------------------------------------------------


def criteria_actions(db: sqlite3.Connection, task: str | None = None) -> list[Action]:
    """Every stage-1 action (of one task), oldest first."""
    return [dict(row) for row in _select(db, "criteria_actions", "task", task)]


def sentence_actions(db: sqlite3.Connection, item_id: str | None = None) -> list[Action]:
    """Every stage-2 sentence action (of one item), oldest first."""
    return [dict(row) for row in _select(db, "sentence_actions", "item_id", item_id)]


def score_actions(db: sqlite3.Connection, item_id: str | None = None) -> list[Action]:
    """Every score given (of one item), oldest first."""
    return [dict(row) for row in _select(db, "score_actions", "item_id", item_id)]


def candidate_scores(db: sqlite3.Connection, item_id: str | None = None) -> list[Action]:
    """Every score given to a candidate of a comparison (of one item), oldest first."""
    return [dict(row) for row in _select(db, "candidate_scores", "item_id", item_id)]


def preferences(db: sqlite3.Connection, item_id: str | None = None) -> list[Action]:
    """Every preference given on a comparison (of one item), oldest first."""
    return [dict(row) for row in _select(db, "preferences", "item_id", item_id)]


def preference(db: sqlite3.Connection, item_id: str, annotator: str) -> int | None:
    """The annotator's latest preference on a comparison (a candidate, or `TIE`); None if none."""
    row = db.execute(
        "SELECT preference FROM preferences WHERE item_id = ? AND annotator = ? ORDER BY id DESC LIMIT 1",
        (item_id, annotator),
    ).fetchone()
    return None if row is None else int(row[0])


def scores(db: sqlite3.Connection) -> dict[tuple[str, str, str], float]:
    """Every annotator's current (latest) score: ``{(item, criterion, annotator): score}``."""
    return {(row["item_id"], row["criterion"], row["annotator"]): row["score"] for row in score_actions(db)}


def candidates_scores(db: sqlite3.Connection) -> dict[tuple[str, str, int, str], float]:
    """Every annotator's current (latest) score of each candidate of a comparison:
    ``{(item, criterion, candidate, annotator): score}``."""
    return {
        (row["item_id"], row["criterion"], row["candidate"], row["annotator"]): row["score"]
        for row in candidate_scores(db)
    }


def preferred(db: sqlite3.Connection) -> dict[tuple[str, str], int]:
    """Every annotator's current (latest) preference: ``{(item, annotator): preference}``."""
    return {(row["item_id"], row["annotator"]): row["preference"] for row in preferences(db)}


def labels(db: sqlite3.Connection) -> list[Action]:
    """Every label, oldest first: each overall score (``kind`` ``score``) and preference (``preference``),
    with its ``item_id``, ``annotator``, ``value`` and ``created_at``, and what it was given with:
    ``shown`` (``blind``: the judge's drafts hidden, else ``open``), the item's queue ``ordering`` and
    its ``queue_position`` (from 1; both None for an item in no queue)."""
    rows = db.execute(
        "SELECT l.*, c.blind, c.ordering, c.queue_position FROM ("
        "SELECT 'score' AS kind, id, item_id, annotator, score AS value, created_at FROM score_actions "
        "WHERE criterion = ? UNION ALL "
        "SELECT 'preference', id, item_id, annotator, preference, created_at FROM preferences) AS l "
        "LEFT JOIN label_context AS c ON c.kind = l.kind AND c.action_id = l.id "
        "ORDER BY l.created_at, l.kind, l.id",
        (OVERALL,),
    )
    return [
        {
            **{key: row[key] for key in ("kind", "id", "item_id", "annotator", "value", "created_at")},
            "shown": "blind" if row["blind"] else "open",
            "ordering": row["ordering"],
            "queue_position": row["queue_position"],
        }
        for row in rows
    ]


def queued(db: sqlite3.Connection) -> dict[str, str]:
    """The order each queued item was queued by (``input``, ``uncertainty``, ...), by id."""
    return {row[0]: row[1] for row in db.execute("SELECT item_id, ordering FROM queue")}


# -- rows ---------------------------------------------------------------------------------------------


def _select(
    db: sqlite3.Connection, table: str, column: str, value: str | None, *, order: str = "id"
) -> list[sqlite3.Row]:
    """Rows of ``table`` (where ``column`` is ``value``, unless None), by ``order``; names are ours."""
    where = f" WHERE {column} = ?" if value is not None else ""
    return list(
        db.execute(f"SELECT * FROM {table}{where} ORDER BY {order}", () if value is None else (value,))
    )


def _criterion(row: sqlite3.Row) -> CriterionRow:
    return CriterionRow(
        id=row["id"],
        task=row["task"],
        position=row["position"],
        name=row["name"],
        description=row["description"],
        scale=(row["scale_min"], row["scale_max"]),
    )


def _item(row: sqlite3.Row, candidates: Sequence[Candidate]) -> Item:
    """The `Item` a row of ``items`` holds, with its candidates if it is a comparison."""
    return Item(
        id=row["id"],
        task=row["task"],
        query=row["query"],
        output=row["output"],
        system=row["system"],
        metadata=json.loads(row["metadata"]),
        position=row["position"],
        candidates=tuple(candidates),
    )


def _candidates(db: sqlite3.Connection, ids: Sequence[str] | None) -> dict[str, list[Candidate]]:
    """The candidates of the comparisons among ``ids`` (of every item when None), in order."""
    where = "" if ids is None else f" WHERE item_id IN ({', '.join('?' * len(ids))})"
    out: dict[str, list[Candidate]] = {}
    rows = db.execute(f"SELECT * FROM candidates{where} ORDER BY item_id, candidate", tuple(ids or ()))
    for row in rows:
        out.setdefault(row["item_id"], []).append(Candidate(row["output"], row["system"]))
    return out


def _draft(row: sqlite3.Row) -> Draft:
    scores = json.loads(row["candidate_scores"]) if row["candidate_scores"] is not None else []
    parts = json.loads(row["parts"]) if row["parts"] is not None else []
    return Draft(
        item_id=row["item_id"],
        criterion=row["criterion"],
        score=row["score"],
        conclusion=row["conclusion"],
        evidence=row["evidence"],
        sentences=tuple(json.loads(row["sentences"])),
        scores=tuple(scores),
        weight=row["weight"],
        verdict=row["verdict"],
        parts=tuple(Part(kind, text, candidate) for kind, text, candidate in parts),
    )
