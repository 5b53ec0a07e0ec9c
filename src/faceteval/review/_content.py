"""What is reviewed, as imported: tasks with their scales and criteria, items and the LLM's drafts.

Importing appends: a task, criterion, item or draft the project has is left as it is (a run imported
again adds nothing), and one import is one transaction (all of it or, on any conflict, none).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence

from faceteval.review._database import Database
from faceteval.review._model import Draft, Item, ReviewError, describe_conflicts
from faceteval.review._progress import remark_draft
from faceteval.review._queue import Queue
from faceteval.review._rows import item

__all__ = ["add_items", "add_task", "conflicts", "next_position", "queue_start"]

_LOOKED_UP = 500
"""Ids looked up in one query (below SQLite's limit on a query's parameters)."""

_UPSERT_TASK = (
    "INSERT INTO tasks (name, description, scale_min, scale_max, scale_derived) "
    "VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (name) DO UPDATE SET description = excluded.description, "
    "scale_min = COALESCE(excluded.scale_min, scale_min), "
    "scale_max = COALESCE(excluded.scale_max, scale_max), "
    "scale_derived = CASE WHEN excluded.scale_min IS NULL THEN scale_derived "
    "ELSE excluded.scale_derived END"
)


def add_task(
    database: Database,
    name: str,
    description: str,
    criteria: Sequence[tuple[str, str, tuple[float, float]]],
    *,
    scale: tuple[float, float] | None,
    derived: bool,
) -> None:
    """Add a task (or update its description and scale) and append criteria it does not have yet."""
    with database.write() as db:
        row = db.execute(
            "SELECT scale_min, scale_max, scale_derived FROM tasks WHERE name = ?", (name,)
        ).fetchone()
        if scale is not None and row is not None and row[0] is not None:
            scale, derived = _joined_scale(name, (row[0], row[1]), bool(row[2]), scale, derived)
        low, high = scale if scale is not None else (None, None)
        db.execute(_UPSERT_TASK, (name, description, low, high, int(derived)))
        start = db.execute("SELECT COUNT(*) FROM criteria WHERE task = ?", (name,)).fetchone()[0]
        for offset, (criterion, text, (low, high)) in enumerate(criteria):
            db.execute(
                "INSERT INTO criteria (task, position, name, description, scale_min, scale_max) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (task, name) DO NOTHING",
                (name, start + offset, criterion, text, low, high),
            )


def _joined_scale(
    task: str,
    has: tuple[float, float],
    has_derived: bool,
    new: tuple[float, float],
    new_derived: bool,
) -> tuple[tuple[float, float], bool]:
    """The task's scale after an import on ``new``, and whether it is still derived.

    See `ReviewStore.add_task`.
    """

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


def conflicts(db: sqlite3.Connection, items: Sequence[Item]) -> list[tuple[Item, Item]]:
    """``(new, present)`` for each item whose id the project already holds for another output (or
    another comparison: other candidates)."""
    out = []
    for new in items:
        if db.execute("SELECT 1 FROM items WHERE id = ?", (new.id,)).fetchone() is None:
            continue
        present = item(db, new.id)
        if _content_of(present) != _content_of(new):
            out.append((new, present))
    return out


def _content_of(item: Item) -> tuple[str, str, str, tuple[str, ...]]:
    """What makes an item the same one: its task, input, output and candidates' outputs."""
    return item.task, item.query, item.output, tuple(candidate.output for candidate in item.candidates)


def next_position(db: sqlite3.Connection) -> int:
    """The position after every item's: where items added next begin."""
    return int(db.execute("SELECT COALESCE(MAX(position) + 1, 0) FROM items").fetchone()[0])


def queue_start(db: sqlite3.Connection, ordering: str, seed: int, ranks: Mapping[str, int]) -> int:
    """The position a queue of ``ranks`` (each item's place, by id) starts at: where it started before
    when an import of the same items in the same order and seed was cut short (the items there keep
    their places, the rest take theirs: the queue the whole import makes), else after every item."""
    ids = list(ranks)
    for offset in range(0, len(ids), _LOOKED_UP):
        some = ids[offset : offset + _LOOKED_UP]
        row = db.execute(
            "SELECT q.item_id, i.position FROM queue AS q JOIN items AS i ON i.id = q.item_id "
            f"WHERE q.ordering = ? AND q.seed = ? AND q.item_id IN ({', '.join('?' * len(some))}) LIMIT 1",
            (ordering, seed, *some),
        ).fetchone()
        if row is not None:
            start = int(row[1]) - ranks[row[0]]
            return start if start >= 0 and _holds_only(db, start, ranks) else next_position(db)
    return next_position(db)


def _holds_only(db: sqlite3.Connection, start: int, ranks: Mapping[str, int]) -> bool:
    """Whether each item at a position of the queue from ``start`` is one of ``ranks``, in its place."""
    rows = db.execute(
        "SELECT id, position FROM items WHERE position >= ? AND position < ?", (start, start + len(ranks))
    )
    return all(ranks.get(item_id) == position - start for item_id, position in rows)


def add_items(
    database: Database, items: Sequence[Item], drafts: Sequence[Draft], queue: Queue | None = None
) -> int:
    """Add items and their drafts in one transaction, leaving those present as they are; how many were new.

    Without a ``queue``, the new items follow those there in the order given; with one, each new
    item takes its place in the queue (``queue.start`` plus its rank), and the queue's order and seed
    are recorded with it.
    """
    with database.write() as db:
        clashes = conflicts(db, items)
        if clashes:
            raise ReviewError(describe_conflicts(clashes))
        tasks = {row[0] for row in db.execute("SELECT name FROM tasks")}
        position = next_position(db)
        fresh: set[str] = set()  # the items new here: nobody acted on them yet
        for item in items:
            if item.task not in tasks:
                raise ReviewError(f"item {item.id!r}: unknown task {item.task!r}")
            place = position + len(fresh) if queue is None else queue.start + _rank(queue, item.id)
            if _insert_item(db, item, place):
                fresh.add(item.id)
                if queue is not None:
                    db.execute(
                        "INSERT INTO queue (item_id, ordering, seed, rank) VALUES (?, ?, ?, ?)",
                        (item.id, queue.ordering, queue.seed, _rank(queue, item.id)),
                    )
        for draft in drafts:
            _check_scores(db, draft)
            _insert_draft(db, draft, acted_on=draft.item_id not in fresh)
    return len(fresh)


def _rank(queue: Queue, item_id: str) -> int:
    """The item's place in ``queue``."""
    if item_id not in queue.ranks:
        raise ReviewError(f"item {item_id!r} has no place in the {queue.ordering} queue it is added with")
    return queue.ranks[item_id]


def _check_scores(db: sqlite3.Connection, draft: Draft) -> None:
    """ReviewError unless a comparison's draft has a score per candidate (and an output's has none)."""
    count = db.execute("SELECT COUNT(*) FROM candidates WHERE item_id = ?", (draft.item_id,)).fetchone()[0]
    if len(draft.scores) != count or (count and draft.score is not None):
        raise ReviewError(
            f"draft {draft.item_id!r} / {draft.criterion!r}: {len(draft.scores)} candidate scores for "
            f"{count} candidates" + (" and a score of its own" if count and draft.score is not None else "")
        )


def _insert_item(db: sqlite3.Connection, item: Item, position: int) -> int:
    """Insert ``item`` (and its candidates) at ``position`` unless its id is there; how many rows of
    ``items`` were inserted (1 or 0)."""
    if item.compares and len(item.candidates) < 2:
        raise ReviewError(f"item {item.id!r}: a comparison has at least two candidates")
    cursor = db.execute(
        "INSERT INTO items (id, task, position, query, output, system, metadata) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        (
            item.id,
            item.task,
            position,
            item.query,
            item.output,
            item.system,
            json.dumps(dict(item.metadata), ensure_ascii=False),
        ),
    )
    if cursor.rowcount:
        db.executemany(
            "INSERT INTO candidates (item_id, candidate, output, system) VALUES (?, ?, ?, ?)",
            [(item.id, number, c.output, c.system) for number, c in enumerate(item.candidates, start=1)],
        )
    return cursor.rowcount


def _insert_draft(db: sqlite3.Connection, draft: Draft, *, acted_on: bool) -> None:
    """Insert ``draft`` unless the item has one on its criterion; its details (a comparison's scores
    and verdict, the facet's weight, the explanation's parts) only when it has any. A draft added to
    an item annotators may have ``acted_on`` already (one imported before) changes their progress."""
    cursor = db.execute(
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
    if draft.parts and tuple(p.text for p in draft.parts if p.kind == "sentence") != draft.sentences:
        raise ReviewError(
            f"{draft.item_id!r} / {draft.criterion!r}: its sentences are not its parts' sentences"
        )
    if cursor.rowcount and acted_on:
        remark_draft(db, draft.item_id, draft.criterion)
    details = draft.scores or draft.weight is not None or draft.verdict is not None or draft.parts
    if cursor.rowcount and details:
        db.execute(
            "INSERT INTO draft_details (item_id, criterion, scores, weight, verdict, parts) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                draft.item_id,
                draft.criterion,
                json.dumps(list(draft.scores)),
                draft.weight,
                draft.verdict,
                json.dumps([[p.kind, p.text, p.candidate] for p in draft.parts], ensure_ascii=False),
            ),
        )
