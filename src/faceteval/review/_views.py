"""What each annotator sees, worked out from the log: their criteria, their view of an item, their progress.

An annotator's view is never stored: the criteria they review are the task's with their latest
stage-1 action on each applied, and a sentence or a score is what their latest action on it left.
Every function reads over the connection it is given (inside a write, the write's own), and none
writes. The rows themselves are read by ``_rows.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from faceteval.review._model import (
    OVERALL,
    CriterionRow,
    CriterionView,
    Draft,
    SentenceView,
    TaskProgress,
)
from faceteval.review._progress import counts, finished_ids
from faceteval.review._rows import (
    Action,
    candidate_scores,
    criteria,
    drafts,
    item,
    score_actions,
    sentence_actions,
    task_scale,
    tasks,
)

__all__ = [
    "annotator_actions",
    "final",
    "final_criteria",
    "finished_items",
    "item_view",
    "reviewed",
    "reviewed_criteria",
    "task_progress",
]


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
    """The annotator's view of an item: each of their criteria, and their overall score (None on a
    comparison, which takes a `preference` instead)."""
    reviewed = item(db, item_id)
    by_criterion = {draft.criterion: draft for draft in drafts(db, item_id)}
    actions = [a for a in sentence_actions(db, item_id) if a["annotator"] == annotator]
    given = {
        row["criterion"]: row["score"] for row in score_actions(db, item_id) if row["annotator"] == annotator
    }
    each = {
        (row["criterion"], row["candidate"]): row["score"]
        for row in candidate_scores(db, item_id)
        if row["annotator"] == annotator
    }
    numbers = range(1, len(reviewed.candidates) + 1)
    views = []
    for criterion in final_criteria(db, reviewed.task, annotator):
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
                scores=tuple(each.get((criterion.name, k)) for k in numbers),
            )
        )
    return views, given.get(OVERALL)


def task_progress(db: sqlite3.Connection, annotator: str) -> dict[str, TaskProgress]:
    """Per task: the items the annotator finished, of how many, and how many await an overall score.

    Counted from the progress kept as they acted (``_progress.py``), by indexed aggregates.
    """
    out: dict[str, TaskProgress] = {}
    for task, _ in tasks(db):
        kept = [c.name for c in final_criteria(db, task, annotator)]
        total, criteria_done, done = counts(db, task, annotator, kept)
        out[task] = TaskProgress(done, total, awaiting_overall=criteria_done - done)
    return out


def finished_items(db: sqlite3.Connection, annotator: str) -> tuple[set[str], set[str]]:
    """The items whose every criterion the annotator finished, and those of them also scored overall
    (a comparison: given a preference)."""
    criteria_done: set[str] = set()
    done: set[str] = set()
    for task, _ in tasks(db):
        kept = [c.name for c in final_criteria(db, task, annotator)]
        each, overall = finished_ids(db, task, annotator, kept)
        criteria_done |= each
        done |= overall
    return criteria_done, done


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
