"""Each annotator's progress, kept as they act: which criteria of which items they finished.

An annotator finished a criterion of an item once they scored it (a comparison: scored each of its
candidates) and acted on every sentence of its draft; they gave an item its overall once they scored it
overall (a comparison: gave a preference). Actions are only ever added, so each of these, once true,
stays true: each is a row of ``finished`` (``OVERALL`` for the overall), added in the transaction of
the action that made it true (`mark`). A draft imported later for a criterion an item already had
actions on can make it false again: its rows are worked out anew (`remark`).

An item is finished when every criterion the annotator kept after stage 1 is, and its overall; the
home page counts them per task by an aggregate over the annotator's rows (`counts`), never reading
every item or action.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from faceteval.review._model import OVERALL

__all__ = ["counts", "finished_ids", "mark", "mark_all", "mark_each", "remark", "remark_draft"]


def mark(db: sqlite3.Connection, item_id: str, criterion: str, annotator: str) -> None:
    """Add the row of ``(item_id, criterion)`` to the annotator's finished ones if it now is."""
    if _finished(db, item_id, criterion, annotator):
        db.execute("INSERT OR IGNORE INTO finished VALUES (?, ?, ?)", (annotator, item_id, criterion))


def mark_each(db: sqlite3.Connection, keys: Iterable[tuple[str, str, str]]) -> None:
    """`mark` each ``(item_id, criterion, annotator)`` (once each)."""
    for item_id, criterion, annotator in sorted({(str(i), str(c), str(a)) for i, c, a in keys}):
        mark(db, item_id, criterion, annotator)


def mark_all(db: sqlite3.Connection) -> None:
    """Work out every row from the log (a project written before they were kept)."""
    mark_each(
        db,
        db.execute(
            "SELECT item_id, criterion, annotator FROM sentence_actions "
            "UNION SELECT item_id, criterion, annotator FROM score_actions "
            "UNION SELECT item_id, criterion, annotator FROM candidate_scores "
            "UNION SELECT item_id, ?, annotator FROM preferences",
            (OVERALL,),
        ).fetchall(),
    )


def remark(db: sqlite3.Connection, item_id: str, criterion: str) -> None:
    """Work out anew every annotator's row of ``(item_id, criterion)`` (its draft has just been added)."""
    db.execute("DELETE FROM finished WHERE item_id = ? AND criterion = ?", (item_id, criterion))
    for (annotator,) in db.execute("SELECT name FROM annotators").fetchall():
        mark(db, item_id, criterion, annotator)


def remark_draft(db: sqlite3.Connection, item_id: str, criterion: str) -> None:
    """`remark` ``(item_id, criterion)`` if anyone scored it already (else no row of it can change)."""
    scored = _one(
        db,
        "SELECT EXISTS (SELECT 1 FROM score_actions WHERE item_id = ? AND criterion = ?) "
        "OR EXISTS (SELECT 1 FROM candidate_scores WHERE item_id = ? AND criterion = ?)",
        (item_id, criterion, item_id, criterion),
    )
    if scored:
        remark(db, item_id, criterion)


def _finished(db: sqlite3.Connection, item_id: str, criterion: str, annotator: str) -> bool:
    """Whether the annotator finished ``criterion`` of the item (its overall, for ``OVERALL``)."""
    key = (item_id, annotator, criterion)
    scored = _one(
        db,
        "SELECT EXISTS (SELECT 1 FROM score_actions WHERE item_id = ? AND annotator = ? AND criterion = ?)",
        key,
    )
    if criterion == OVERALL:
        return bool(scored) or bool(
            _one(db, "SELECT EXISTS (SELECT 1 FROM preferences WHERE item_id = ? AND annotator = ?)", key[:2])
        )
    candidates = _one(db, "SELECT COUNT(*) FROM candidates WHERE item_id = ?", (item_id,))
    if candidates:
        each = _one(
            db,
            "SELECT COUNT(DISTINCT candidate) FROM candidate_scores "
            "WHERE item_id = ? AND annotator = ? AND criterion = ?",
            key,
        )
        scored = each == candidates
    if not scored:
        return False
    row = db.execute(
        "SELECT sentences FROM drafts WHERE item_id = ? AND criterion = ?", (item_id, criterion)
    ).fetchone()
    sentences = 0 if row is None else len(json.loads(row[0]))
    acted = _one(
        db,
        "SELECT COUNT(DISTINCT sentence) FROM sentence_actions WHERE item_id = ? AND annotator = ? "
        "AND criterion = ? AND action != 'add' AND sentence >= 0 AND sentence < ?",
        (*key, sentences),
    )
    return acted == sentences


def _one(db: sqlite3.Connection, sql: str, parameters: Sequence[object]) -> int:
    return int(db.execute(sql, tuple(parameters)).fetchone()[0])


def counts(db: sqlite3.Connection, task: str, annotator: str, kept: Sequence[str]) -> tuple[int, int, int]:
    """``(items, with every kept criterion finished, also given their overall)`` of the task."""
    total = _one(db, "SELECT COUNT(*) FROM items WHERE task = ?", (task,))
    names = sorted(set(kept))
    if not names:
        overall = _one(
            db,
            "SELECT COUNT(*) FROM finished AS f JOIN items AS i ON i.id = f.item_id "
            "WHERE f.annotator = ? AND f.criterion = ? AND i.task = ?",
            (annotator, OVERALL, task),
        )
        return total, total, overall
    row = db.execute(
        f"SELECT COUNT(*), COALESCE(SUM(o.item_id IS NOT NULL), 0) FROM ({_KEPT.format(_marks(names))}) AS g "
        "LEFT JOIN finished AS o ON o.annotator = ? AND o.item_id = g.item_id AND o.criterion = ?",
        (annotator, task, *names, len(names), annotator, OVERALL),
    ).fetchone()
    return total, int(row[0]), int(row[1])


def finished_ids(
    db: sqlite3.Connection, task: str, annotator: str, kept: Sequence[str]
) -> tuple[set[str], set[str]]:
    """The task's items with every kept criterion finished, and those of them also given their overall."""
    names = sorted(set(kept))
    if names:
        rows = db.execute(_KEPT.format(_marks(names)), (annotator, task, *names, len(names)))
    else:
        rows = db.execute("SELECT id AS item_id FROM items WHERE task = ?", (task,))
    criteria_done = {row[0] for row in rows}
    overall = db.execute(
        "SELECT f.item_id FROM finished AS f JOIN items AS i ON i.id = f.item_id "
        "WHERE f.annotator = ? AND f.criterion = ? AND i.task = ?",
        (annotator, OVERALL, task),
    )
    return criteria_done, {row[0] for row in overall} & criteria_done


_KEPT = (
    "SELECT f.item_id FROM finished AS f JOIN items AS i ON i.id = f.item_id "
    "WHERE f.annotator = ? AND i.task = ? AND f.criterion IN ({}) "
    "GROUP BY f.item_id HAVING COUNT(*) = ?"
)
"""The task's items whose every kept criterion (the placeholders) the annotator finished."""


def _marks(names: Sequence[str]) -> str:
    return ", ".join("?" for _ in names)
