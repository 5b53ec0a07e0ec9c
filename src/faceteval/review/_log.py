"""The append-only log of annotators' actions: on criteria (stage 1), on sentences and scores (stage 2).

Nothing another annotator wrote is ever changed: each action is a new row keyed by its annotator, and
what an annotator sees is worked out from their latest actions (``_views.py``). Each function here is
one transaction, its checks made inside it; a posted form's token is stored in the transaction of the
actions it carries (`posting`), so a form sent twice is acted on once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from faceteval.review._annotators import check_annotator
from faceteval.review._database import Database, now
from faceteval.review._model import (
    CRITERION_ACTIONS,
    OVERALL,
    SENTENCE_ACTIONS,
    TIE,
    CriterionAction,
    ReviewError,
    SentenceAction,
)
from faceteval.review._progress import mark, mark_each
from faceteval.review._rows import neighbours
from faceteval.review._settings import read_settings
from faceteval.review._views import annotator_actions, final, reviewed

__all__ = [
    "import_log",
    "posted",
    "posting",
    "record_criterion_action",
    "record_sentence_action",
    "set_candidate_scores",
    "set_preference",
    "set_score",
]

_POSTED = "SELECT annotator, location FROM form_posts WHERE token = ?"


# -- stage 1: criteria ------------------------------------------------------------------------------


def record_criterion_action(
    database: Database,
    task: str,
    annotator: str,
    action: CriterionAction,
    *,
    criterion_id: int | None,
    name: str | None,
    description: str | None,
    reason: str,
) -> int:
    """Log one stage-1 action (see `ReviewStore.record_criterion_action`); its id."""
    if action not in CRITERION_ACTIONS:
        raise ReviewError(f"unknown criteria action {action!r}")
    if (action == "add") != (criterion_id is None):
        raise ReviewError("add takes no criterion; approve, delete and revise need one")
    if action in ("revise", "add") and not (name or "").strip():
        raise ReviewError(f"{action} needs the criterion's name")
    with database.write() as db:
        check_annotator(db, annotator)
        if db.execute("SELECT 1 FROM tasks WHERE name = ?", (task,)).fetchone() is None:
            raise ReviewError(f"no task {task!r}")
        drafted_id, added_id = (criterion_id, None) if (criterion_id or 0) > 0 else (None, criterion_id)
        _check_criterion(db, task, annotator, drafted_id, added_id)
        _check_naming(db, task, annotator, action, name, criterion_id)
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
                now(),
                None if added_id is None else -added_id,
            ),
        )
        return int(cursor.lastrowid or 0)


def _check_criterion(
    db: sqlite3.Connection, task: str, annotator: str, drafted_id: int | None, added_id: int | None
) -> None:
    """ReviewError unless the criterion acted on is one of the task's, or one the annotator added to it."""
    if drafted_id is not None:
        row = db.execute("SELECT task FROM criteria WHERE id = ?", (drafted_id,)).fetchone()
        if row is None or row[0] != task:
            raise ReviewError(f"task {task!r} has no criterion {drafted_id}")
    elif added_id is not None:
        row = db.execute(
            "SELECT 1 FROM criteria_actions WHERE id = ? AND task = ? AND annotator = ? AND action = 'add'",
            (-added_id, task, annotator),
        ).fetchone()
        if row is None:
            raise ReviewError(f"task {task!r} has no criterion {added_id} added by {annotator}")


def _check_naming(
    db: sqlite3.Connection,
    task: str,
    annotator: str,
    action: CriterionAction,
    name: str | None,
    criterion_id: int | None,
) -> None:
    """ReviewError if the name ``action`` gives the criterion (a new one, or its own back) is taken."""
    if action in ("revise", "add"):
        _check_name(db, task, annotator, (name or "").strip(), criterion_id)
    elif action == "approve":  # keeping it as drafted (or added) again: its own name back
        restored = reviewed(db, task, annotator_actions(db, task, annotator))
        row = next(row for row, _ in restored if row.id == criterion_id)
        _check_name(db, task, annotator, row.name, criterion_id)


def _check_name(
    db: sqlite3.Connection, task: str, annotator: str, name: str, criterion_id: int | None
) -> None:
    """ReviewError if ``name`` is another of the annotator's criteria's, or (to add) the key of one.

    An added criterion is keyed by its name, so a name to add must not be a drafted criterion's
    nor one the annotator added and deleted: its drafts, or their scores, would come back with it.
    """
    wanted = name.casefold()
    actions = annotator_actions(db, task, annotator)
    for criterion in final(db, task, actions):
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
    for row, _ in reviewed(db, task, actions):
        if row.id < 0 and row.name.casefold() == wanted:
            raise ReviewError(
                f"you added {row.name!r} before and deleted it: keep it after all (or revise it) "
                "rather than adding it again"
            )


# -- stage 2: sentences and scores ------------------------------------------------------------------


def record_sentence_action(
    database: Database,
    item_id: str,
    criterion: str,
    annotator: str,
    action: SentenceAction,
    *,
    sentence: int | None,
    text: str | None,
) -> int:
    """Log one action on a sentence (see `ReviewStore.record_sentence_action`); its id."""
    if action not in SENTENCE_ACTIONS:
        raise ReviewError(f"unknown sentence action {action!r}")
    if action in ("revise", "add") and not (text or "").strip():
        raise ReviewError(f"{action} needs the sentence's text")
    if (action == "add") != (sentence is None):
        raise ReviewError("add takes no sentence; pass, revise and delete need one")
    with database.write() as db:
        check_annotator(db, annotator)
        _check_item(db, item_id)
        if sentence is not None:
            _check_sentence(db, item_id, criterion, annotator, sentence)
        cursor = db.execute(
            "INSERT INTO sentence_actions "
            "(item_id, criterion, annotator, sentence, action, text, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (item_id, criterion, annotator, sentence, action, _clean(text), now()),
        )
        mark(db, item_id, criterion, annotator)
        return int(cursor.lastrowid or 0)


def _check_sentence(
    db: sqlite3.Connection, item_id: str, criterion: str, annotator: str, sentence: int
) -> None:
    """ReviewError unless ``sentence`` is a draft sentence's index, or ``-id`` of the annotator's ``add``."""
    if sentence >= 0:
        row = db.execute(
            "SELECT sentences FROM drafts WHERE item_id = ? AND criterion = ?", (item_id, criterion)
        ).fetchone()
        if row is None or sentence >= len(json.loads(row[0])):
            raise ReviewError(f"{item_id!r} / {criterion!r} has no sentence {sentence}")
        return
    row = db.execute(
        "SELECT 1 FROM sentence_actions WHERE id = ? AND item_id = ? AND criterion = ? "
        "AND annotator = ? AND action = 'add'",
        (-sentence, item_id, criterion, annotator),
    ).fetchone()
    if row is None:
        raise ReviewError(f"{item_id!r} / {criterion!r} has no added sentence {-sentence}")


def set_score(database: Database, item_id: str, criterion: str, annotator: str, score: float) -> None:
    """Log the annotator's score of an item on a criterion (``OVERALL`` for the overall score)."""
    with database.write() as db:
        check_annotator(db, annotator)
        if _check_item(db, item_id):
            raise ReviewError(
                f"{item_id!r} is a comparison: score each of its candidates, and give a preference"
            )
        blind = criterion == OVERALL and _blind(db, item_id, annotator)
        cursor = db.execute(
            "INSERT INTO score_actions (item_id, criterion, annotator, score, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (item_id, criterion, annotator, float(score), now()),
        )
        if criterion == OVERALL:
            _record_context(db, "score", int(cursor.lastrowid or 0), item_id, blind=blind)
        mark(db, item_id, criterion, annotator)


def set_candidate_scores(
    database: Database, item_id: str, criterion: str, annotator: str, scores: Sequence[float]
) -> None:
    """Log the annotator's score of each candidate of a comparison on a criterion (all at once)."""
    with database.write() as db:
        check_annotator(db, annotator)
        count = _check_item(db, item_id)
        if criterion == OVERALL or len(scores) != count:
            raise ReviewError(
                f"{item_id!r} takes a score of each of its {count} candidates on a criterion"
                if count
                else f"{item_id!r} is one output: give it a score, not candidates' scores"
            )
        stamp = now()
        db.executemany(
            "INSERT INTO candidate_scores (item_id, criterion, candidate, annotator, score, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(item_id, criterion, k, annotator, float(s), stamp) for k, s in enumerate(scores, start=1)],
        )
        mark(db, item_id, criterion, annotator)


def set_preference(database: Database, item_id: str, annotator: str, preference: int) -> None:
    """Log the annotator's preference on a comparison: a candidate (1-based), or `TIE`."""
    with database.write() as db:
        check_annotator(db, annotator)
        count = _check_item(db, item_id)
        if not count:
            raise ReviewError(f"{item_id!r} is one output: give it an overall score, not a preference")
        if isinstance(preference, bool) or not TIE <= preference <= count:
            raise ReviewError(f"a preference on {item_id!r} is a candidate 1-{count}, or {TIE} for a tie")
        blind = _blind(db, item_id, annotator)
        cursor = db.execute(
            "INSERT INTO preferences (item_id, annotator, preference, created_at) VALUES (?, ?, ?, ?)",
            (item_id, annotator, int(preference), now()),
        )
        _record_context(db, "preference", int(cursor.lastrowid or 0), item_id, blind=blind)
        mark(db, item_id, OVERALL, annotator)


def _blind(db: sqlite3.Connection, item_id: str, annotator: str) -> bool:
    """Whether a label the annotator gives the item now is given blind: the project hides the judge's
    drafts, and the annotator has given the item no label yet (their first reveals the drafts)."""
    if not read_settings(db).blind:
        return False
    labelled = db.execute(
        "SELECT EXISTS (SELECT 1 FROM score_actions WHERE item_id = ? AND annotator = ? AND criterion = ?) "
        "OR EXISTS (SELECT 1 FROM preferences WHERE item_id = ? AND annotator = ?)",
        (item_id, annotator, OVERALL, item_id, annotator),
    ).fetchone()[0]
    return not labelled


def _record_context(db: sqlite3.Connection, kind: str, action_id: int, item_id: str, *, blind: bool) -> None:
    """Store what the label ``action_id`` (an overall score or a preference) was given with: whether it
    was ``blind``, the order its item was queued by and the item's position among its task's (from 1).

    A label given with everything shown, of an item in no queue, is stored with none (as those given
    before labels had one).
    """
    queued = db.execute("SELECT ordering FROM queue WHERE item_id = ?", (item_id,)).fetchone()
    if not blind and queued is None:
        return
    db.execute(
        "INSERT INTO label_context (kind, action_id, blind, ordering, queue_position) VALUES (?, ?, ?, ?, ?)",
        (kind, action_id, int(blind), None if queued is None else queued[0], neighbours(db, item_id)[2] + 1),
    )


def _check_item(db: sqlite3.Connection, item_id: str) -> int:
    """ReviewError unless the item exists; how many candidates it compares (0 for one output)."""
    if db.execute("SELECT 1 FROM items WHERE id = ?", (item_id,)).fetchone() is None:
        raise ReviewError(f"no item {item_id!r}")
    return int(db.execute("SELECT COUNT(*) FROM candidates WHERE item_id = ?", (item_id,)).fetchone()[0])


# -- a past review's log, imported whole ------------------------------------------------------------


def import_log(
    database: Database,
    sentence_actions: Sequence[tuple[str, str, str, int | None, SentenceAction, str | None]],
    scores: Sequence[tuple[str, str, str, float]],
) -> None:
    """Append a past review's log in one transaction (see `ReviewStore.import_log`)."""
    _check_log(sentence_actions, scores)
    stamp = now()
    with database.write() as db:
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
            [(*row[:5], _clean(row[5]), stamp) for row in sentence_actions],
        )
        db.executemany(
            "INSERT INTO score_actions (item_id, criterion, annotator, score, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [(*row[:3], float(row[3]), stamp) for row in scores],
        )
        acted = [(row[0], row[1], row[2]) for row in sentence_actions]
        mark_each(db, acted + [(row[0], row[1], row[2]) for row in scores])


def _check_log(
    sentence_actions: Sequence[tuple[str, str, str, int | None, SentenceAction, str | None]],
    scores: Sequence[tuple[str, str, str, float]],
) -> None:
    """ReviewError for an unknown action, a sentence that does not go with its action, or a bad score."""
    for item_id, _, _, sentence, action, _ in sentence_actions:
        if action not in SENTENCE_ACTIONS:
            raise ReviewError(f"{item_id!r}: unknown sentence action {action!r}")
        if (action == "add") != (sentence is None) or (sentence is not None and sentence < 0):
            raise ReviewError(f"{item_id!r}: {action} with sentence {sentence!r}")
    for item_id, _, _, score in scores:
        if isinstance(score, bool) or not isinstance(score, int | float) or not abs(score) < float("inf"):
            raise ReviewError(f"{item_id!r}: score {score!r} is not a finite number")


# -- posted forms -------------------------------------------------------------------------------------


@contextmanager
def posting(database: Database, token: str, annotator: str, location: str) -> Iterator[str | None]:
    """The transaction of one posted form, stored with its ``token`` (see `ReviewStore.posting`)."""
    with database.write() as db:
        row = db.execute(_POSTED, (token,)).fetchone()
        if row is not None and row[0] != annotator:
            raise ReviewError("this form was sent by another annotator")
        if row is None:
            db.execute("INSERT INTO form_posts VALUES (?, ?, ?, ?)", (token, annotator, location, now()))
        yield None if row is None else str(row[1])


def posted(db: sqlite3.Connection, token: str) -> tuple[str, str] | None:
    """``(annotator, location)`` of the form posted with ``token``; None if none was."""
    row = db.execute(_POSTED, (token,)).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def _clean(text: str | None) -> str | None:
    return None if text is None else text.strip()
