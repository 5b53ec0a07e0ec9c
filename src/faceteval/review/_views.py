"""What the pages, exports and statistics read: the imported content, the log, and each annotator's view.

An annotator's view is worked out from the log, never stored: the criteria they review are the task's
with their latest stage-1 action on each applied, and a sentence or a score is what their latest action
on it left. Every function reads over the connection it is given (inside a write, the write's own, so
the write's checks see what it wrote), and none writes.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from faceteval.review._model import (
    DEFAULT_SCALE,
    OVERALL,
    CriterionRow,
    CriterionView,
    Draft,
    Item,
    ReviewError,
    SentenceView,
    TaskProgress,
)

__all__ = [
    "annotator_actions",
    "criteria",
    "criteria_actions",
    "drafts",
    "final",
    "final_criteria",
    "finished_items",
    "item",
    "item_from",
    "item_view",
    "items",
    "reviewed",
    "reviewed_criteria",
    "score_actions",
    "scores",
    "sentence_actions",
    "task_progress",
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
    return [item_from(row) for row in _select(db, "items", "task", task, order="position")]


def item(db: sqlite3.Connection, item_id: str) -> Item:
    """The item ``item_id``."""
    row = db.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        raise ReviewError(f"no item {item_id!r}")
    return item_from(row)


def drafts(db: sqlite3.Connection, item_id: str | None = None) -> list[Draft]:
    """The LLM's drafts (of one item)."""
    return [_draft(row) for row in _select(db, "drafts", "item_id", item_id, order="rowid")]


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


def scores(db: sqlite3.Connection) -> dict[tuple[str, str, str], float]:
    """Every annotator's current (latest) score: ``{(item, criterion, annotator): score}``."""
    return {(row["item_id"], row["criterion"], row["annotator"]): row["score"] for row in score_actions(db)}


# -- stage 1: the criteria each annotator reviews -----------------------------------------------


def annotator_actions(db: sqlite3.Connection, task: str, annotator: str) -> list[Action]:
    """The annotator's stage-1 actions on the task, oldest first."""
    rows = db.execute(
        "SELECT * FROM criteria_actions WHERE task = ? AND annotator = ? ORDER BY id", (task, annotator)
    )
    return [dict(row) for row in rows]


def reviewed_criteria(
    db: sqlite3.Connection, task: str, annotator: str
) -> list[tuple[CriterionRow, Action | None]]:
    """The task's criteria, then those the annotator added, each with their latest action on it."""
    return reviewed(db, task, annotator_actions(db, task, annotator))


def final_criteria(db: sqlite3.Connection, task: str, annotator: str) -> list[CriterionRow]:
    """The annotator's criteria after stage 1: deletions removed, revisions applied, additions kept."""
    return final(db, task, annotator_actions(db, task, annotator))


def reviewed(
    db: sqlite3.Connection, task: str, actions: Sequence[Action]
) -> list[tuple[CriterionRow, Action | None]]:
    """`reviewed_criteria` after ``actions`` (one annotator's on the task, oldest first)."""
    latest: dict[int, Action] = {}
    for action in actions:
        if action["criterion_id"] is not None:
            latest[action["criterion_id"]] = action
        elif action["added_id"] is not None:
            latest[-action["added_id"]] = action
    out: list[tuple[CriterionRow, Action | None]] = [
        (criterion, latest.get(criterion.id)) for criterion in criteria(db, task)
    ]
    scale = task_scale(db, task)
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


def final(db: sqlite3.Connection, task: str, actions: Sequence[Action]) -> list[CriterionRow]:
    """`final_criteria` after ``actions`` (one annotator's on the task, oldest first)."""
    out = []
    for criterion, action in reviewed(db, task, actions):
        if action is None or action["action"] in ("approve", "add"):
            out.append(criterion)
        elif action["action"] == "revise":
            label = action["name"] if action["name"] and action["name"] != criterion.name else ""
            description = action["description"] or criterion.description
            out.append(replace(criterion, label=label, description=description))
    return out


# -- stage 2: each annotator's view of an item, and their progress ---------------------------------


def item_view(
    db: sqlite3.Connection, item_id: str, annotator: str
) -> tuple[list[CriterionView], float | None]:
    """The annotator's view of an item: each of their criteria, and their overall score."""
    task = item(db, item_id).task
    by_criterion = {draft.criterion: draft for draft in drafts(db, item_id)}
    actions = [a for a in sentence_actions(db, item_id) if a["annotator"] == annotator]
    given = {
        row["criterion"]: row["score"] for row in score_actions(db, item_id) if row["annotator"] == annotator
    }
    views = []
    for criterion in final_criteria(db, task, annotator):
        draft = by_criterion.get(criterion.name)
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


def task_progress(db: sqlite3.Connection, annotator: str) -> dict[str, TaskProgress]:
    """Per task: the items the annotator finished, of how many, and how many await an overall score."""
    criteria_done, done = finished_items(db, annotator)
    out: dict[str, TaskProgress] = {}
    for task, _ in tasks(db):
        ids = [each.id for each in items(db, task)]
        waiting = sum(i in criteria_done and i not in done for i in ids)
        out[task] = TaskProgress(sum(i in done for i in ids), len(ids), awaiting_overall=waiting)
    return out


def finished_items(db: sqlite3.Connection, annotator: str) -> tuple[set[str], set[str]]:
    """The items whose every criterion the annotator finished, and those of them also scored overall."""
    sentences = {(d.item_id, d.criterion): len(d.sentences) for d in drafts(db)}
    acted = _acted(sentence_actions(db), annotator)
    scored = {(each, criterion) for each, criterion, who in scores(db) if who == annotator}
    kept = {task: [c.name for c in final_criteria(db, task, annotator)] for task, _ in tasks(db)}
    criteria_done = {
        each.id
        for each in items(db)
        if all(
            (each.id, name) in scored
            and len(acted[(each.id, name)] & set(range(sentences.get((each.id, name), 0))))
            == sentences.get((each.id, name), 0)
            for name in kept[each.task]
        )
    }
    return criteria_done, {i for i in criteria_done if (i, OVERALL) in scored}


def _acted(actions: Sequence[Action], annotator: str) -> defaultdict[tuple[str, str], set[int]]:
    """Per ``(item, criterion)``: the draft sentences the annotator acted on."""
    acted: defaultdict[tuple[str, str], set[int]] = defaultdict(set)
    for action in actions:
        if action["annotator"] == annotator and (action["sentence"] or 0) >= 0 and action["action"] != "add":
            acted[(action["item_id"], action["criterion"])].add(action["sentence"])
    return acted


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


def item_from(row: sqlite3.Row) -> Item:
    """The `Item` a row of ``items`` holds."""
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
