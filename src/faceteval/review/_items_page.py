"""A page of a task's list of items: keyset pagination over the index of items by task and position.

A page is read by where it starts or ends (the position of the item before or after it), never by an
offset: each query is a range of ``items_by_task``, and the annotator's done marks are read for the
page's items only (``finished``'s primary key), so a page costs the same at the end of 100,000 items as
at the start. Only ``start`` and ``total`` (its "n-m of N") count the range before it and the task's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from faceteval.review._model import OVERALL, Item
from faceteval.review._rows import _candidates, _item
from faceteval.review._views import final_criteria

ITEMS_PER_PAGE = 100
"""Items a page of a task's list shows."""


@dataclass(frozen=True, slots=True)
class ItemsPage:
    """Some of a task's items, in import order, with the annotator's done marks."""

    items: tuple[tuple[Item, bool], ...]
    """Each item, and whether the annotator finished it (as `ReviewStore.is_done` decides)."""
    start: int
    """How many of the task's items come before the first (0 on the first page)."""
    total: int
    """The task's items."""
    previous: int | None
    """The position of the first item, when items come before it (the previous page ends there)."""
    next: int | None
    """The position of the last item, when items come after it (the next page starts there)."""


def items_page(
    db: sqlite3.Connection,
    task: str,
    annotator: str,
    *,
    after: int | None = None,
    before: int | None = None,
    size: int = ITEMS_PER_PAGE,
) -> ItemsPage:
    """The page of ``task``'s items that starts after position ``after`` (the first page when neither
    is given), or that ends before position ``before``."""
    if before is not None:
        sql = "SELECT * FROM items WHERE task = ? AND position < ? ORDER BY position DESC LIMIT ?"
        rows = list(reversed(db.execute(sql, (task, before, size)).fetchall()))
    else:
        sql = "SELECT * FROM items WHERE task = ? AND position > ? ORDER BY position LIMIT ?"
        rows = db.execute(sql, (task, -1 if after is None else after, size)).fetchall()
    ids = [row["id"] for row in rows]
    candidates = _candidates(db, ids)
    done = finished_among(db, annotator, [c.name for c in final_criteria(db, task, annotator)], ids)
    items = tuple((_item(row, candidates.get(row["id"], ())), row["id"] in done) for row in rows)
    first, last = (rows[0]["position"], rows[-1]["position"]) if rows else (None, None)
    return ItemsPage(
        items,
        start=0 if first is None else _count(db, "task = ? AND position < ?", (task, first)),
        total=_count(db, "task = ?", (task,)),
        previous=first
        if first is not None and _any(db, "task = ? AND position < ?", (task, first))
        else None,
        next=last if last is not None and _any(db, "task = ? AND position > ?", (task, last)) else None,
    )


def finished_among(
    db: sqlite3.Connection, annotator: str, kept: Sequence[str], ids: Sequence[str]
) -> set[str]:
    """Those of ``ids`` the annotator finished: every ``kept`` criterion, and their overall score (a
    comparison: their preference); as `_progress.finished_ids` decides for a whole task."""
    marks = ", ".join("?" for _ in ids)
    overall = db.execute(
        f"SELECT item_id FROM finished WHERE annotator = ? AND criterion = ? AND item_id IN ({marks})",
        (annotator, OVERALL, *ids),
    )
    done = {row[0] for row in overall}
    names = sorted(set(kept))
    if not names or not done:
        return done
    rows = db.execute(
        f"SELECT item_id FROM finished WHERE annotator = ? AND item_id IN ({marks}) "
        f"AND criterion IN ({', '.join('?' for _ in names)}) GROUP BY item_id HAVING COUNT(*) = ?",
        (annotator, *ids, *names, len(names)),
    )
    return done & {row[0] for row in rows}


def _count(db: sqlite3.Connection, where: str, parameters: tuple[object, ...]) -> int:
    return int(db.execute(f"SELECT COUNT(*) FROM items WHERE {where}", parameters).fetchone()[0])


def _any(db: sqlite3.Connection, where: str, parameters: tuple[object, ...]) -> bool:
    return db.execute(f"SELECT 1 FROM items WHERE {where} LIMIT 1", parameters).fetchone() is not None
