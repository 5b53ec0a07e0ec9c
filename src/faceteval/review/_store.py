"""A review project: LLM drafts and every annotator's actions on them, in one SQLite file.

A project is a directory holding ``review.sqlite``. Nothing is ever updated in place that another
annotator wrote: each action is a new row of an append-only log keyed by its annotator, and an
annotator's current view (which sentences they kept, which score they gave) is the latest action of
theirs. Each action is its own transaction, so a refresh or a crash loses nothing that was sent.

Stage 1 reviews a task's criteria (approve / delete / revise / add, each with a reason; a criterion
the annotator added can itself be revised or deleted). Stage 2 reviews each output: per criterion,
the LLM's explanation sentence by sentence (``pass``, ``revise``, ``delete``, ``add``, CoEval's action
names) and its score; then the overall score. A comparison (an instance judged pairwise or listwise)
is one item holding every candidate: per criterion, the explanation sentence by sentence and a score
of each candidate; then the annotator's preference (a candidate, or a tie).

A criterion is keyed by the name it was drafted (or added) with: drafts, sentence actions and scores
refer to it by that name, whatever the annotator renamed it to (`CriterionRow.label`).

`ReviewStore` is the one door to a project: it opens the file (``_schema.py``: the tables and their
migrations), and each of its methods is one transaction (``_database.py``) over the imported content
(``_content.py``), the annotators (``_annotators.py``), the log of their actions (``_log.py``) or the
views worked out from it (``_views.py``), reading its rows (``_rows.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from faceteval.review import _annotators, _content, _items_page, _log, _rows, _views
from faceteval.review._database import Database
from faceteval.review._files import make_folder
from faceteval.review._items_page import ItemsPage
from faceteval.review._model import (
    CriterionAction,
    CriterionRow,
    CriterionView,
    Draft,
    Item,
    ReviewError,
    SentenceAction,
    TaskProgress,
    finished,
)
from faceteval.review._queue import Ordering, Queue
from faceteval.review._schema import create as create_database
from faceteval.review._schema import install
from faceteval.review._sessions import SessionRecords
from faceteval.review._settings import ProjectSettings, read_settings, write_settings

__all__ = ["DATABASE", "ReviewStore"]

DATABASE = "review.sqlite"
"""The file of a review project, in its folder."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


class ReviewStore:
    """The SQLite file of a review project."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._database = Database(path)

    @classmethod
    def open(cls, project: Path, *, create: bool = True) -> ReviewStore:
        """The store of ``project`` (a directory), created with it when ``create``.

        A project faceteval makes is its owner's alone: the folder (and those made above it) 0700,
        ``review.sqlite`` (and so its ``-wal`` and ``-shm`` files) 0600.

        Raises:
            ReviewError: The project does not exist (and ``create`` is False), its ``review.sqlite`` is
                not a review project (another program's file: left as it was), or it was written by
                a newer faceteval.
        """
        database = project / DATABASE
        if not database.is_file():  # (another command may make it meanwhile: then it is opened)
            if (project.exists() and not project.is_dir()) or (database.exists() and not database.is_file()):
                raise ReviewError(f"{project}: not a review project (not a directory holding {DATABASE})")
            if not create and not database.exists():
                raise ReviewError(f"{project}: not a review project (no {DATABASE})")
            if create:
                make_folder(project)
                create_database(database)
        store = cls(database)
        install(store._database)
        return store

    def kept_open(self) -> AbstractContextManager[None]:
        """Hold a connection for as long as this lasts (a server's lifetime).

        SQLite removes the write-ahead log and its index when the last connection closes, and must
        make them again to read: on a full disk it could not, and nothing could be read. Held open,
        they stay, reads go on, and a write the disk has no room for fails alone (`DiskFullError`).
        """
        return self._database.kept_open()

    def _read(
        self, view: Callable[Concatenate[sqlite3.Connection, _P], _T], *args: _P.args, **kwargs: _P.kwargs
    ) -> _T:
        """What ``view`` reads (inside a write, over the write's connection)."""
        with self._database.read() as db:
            return view(db, *args, **kwargs)

    # -- form posts, invites and sessions ---------------------------------------------------------

    def posting(self, token: str, annotator: str, location: str) -> AbstractContextManager[str | None]:
        """The transaction of one posted form, stored with the form's ``token``.

        Yields None the first time: what is written inside is stored with the token, all or
        nothing. A token stored before yields where its first post went (``location``): do nothing,
        and answer as the first time did.

        Raises:
            ReviewError: The token was another annotator's.
        """
        return _log.posting(self._database, token, annotator, location)

    def posted(self, token: str) -> tuple[str, str] | None:
        """``(annotator, location)`` of the form posted with ``token``; None if none was."""
        return self._read(_log.posted, token)

    def add_invite(self, annotator: str, token_hash: str) -> None:
        """Store an invite of ``annotator`` (known already) by the hash of its token."""
        _annotators.add_invite(self._database, annotator, token_hash)

    def invited(self, token_hash: str) -> tuple[int, str] | None:
        """``(invite id, annotator)`` of the invite whose token has this hash, unless revoked."""
        return self._read(_annotators.invited, token_hash)

    def invite_active(self, invite_id: int, annotator: str) -> bool:
        """Whether invite ``invite_id`` is ``annotator``'s and not revoked."""
        return self._read(_annotators.invite_active, invite_id, annotator)

    def revoke_invites(self, annotator: str) -> int:
        """Revoke every invite of ``annotator`` (and so the sessions opened with them); how many."""
        return _annotators.revoke_invites(self._database, annotator)

    @property
    def sessions(self) -> SessionRecords:
        """The sessions annotators opened, kept in the project (see `SessionRecords`)."""
        return SessionRecords(self._database)

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
        _content.add_task(self._database, name, description, criteria, scale=scale, derived=derived)

    def conflicts(self, items: Sequence[Item]) -> list[tuple[Item, Item]]:
        """``(new, present)`` for each item whose id the project already holds for another output.

        Ids name outputs across the whole project, whatever their task: an item is the same as the
        one present when its task, input and output are the same (a run imported again).
        """
        return self._read(_content.conflicts, items)

    def add_items(
        self, items: Sequence[Item], drafts: Sequence[Draft] = (), *, queue: Queue | None = None
    ) -> int:
        """Add items and their drafts in one transaction; items already present are left as they are.

        A new item goes after those there; with a ``queue`` (`new_queue`), at its place in the queue
        (which annotators meet them in), its queue's order recorded with it.

        Returns:
            How many items were new.

        Raises:
            ReviewError: An item's task is unknown, or its id is the project's for another output (see
                `conflicts`); nothing is added.
        """
        return _content.add_items(self._database, items, drafts, queue)

    def new_queue(self, ordering: Ordering, seed: int, ranks: dict[str, int]) -> Queue:
        """The queue of items about to be added (``ranks``: each one's place in it, by id): after every
        item the project holds, or where the same queue began when its import was cut short."""
        return Queue(ordering, seed, ranks, start=self._read(_content.queue_start, ordering, seed, ranks))

    # -- settings ---------------------------------------------------------------------------------

    def settings(self) -> ProjectSettings:
        """The project's settings (`ProjectSettings`: queue order, blind mode, label targets)."""
        return self._read(read_settings)

    def update_settings(self, **changes: object) -> ProjectSettings:
        """Record the settings given (a None leaves its setting as it is); the settings now.

        Raises:
            ReviewError: A value out of range, or a name that is not a setting.
        """
        return write_settings(self._database, **changes)

    # -- reading ----------------------------------------------------------------------------------

    def tasks(self) -> list[tuple[str, str]]:
        """``(name, description)`` of every task."""
        return self._read(_rows.tasks)

    def task_scale(self, task: str) -> tuple[float, float]:
        """The task's scale: its overall score's and that of criteria annotators add.

        It is the one it was imported with; for a project imported without one, the span of its
        criteria's scales (1-5 when it has none).
        """
        return self._read(_rows.task_scale, task)

    def criteria(self, task: str) -> list[CriterionRow]:
        """The task's drafted criteria, in order."""
        return self._read(_rows.criteria, task)

    def items(self, task: str | None = None) -> list[Item]:
        """Every item (of ``task``), in import order."""
        return self._read(_rows.items, task)

    def item(self, item_id: str) -> Item:
        return self._read(_rows.item, item_id)

    def neighbours(self, item_id: str) -> tuple[str | None, str | None, int, int]:
        """``(previous, next, index, total)`` of an item among its task's items, in import order
        (``index`` from 0), read by index without reading the others."""
        return self._read(_rows.neighbours, item_id)

    def items_page(
        self,
        task: str,
        annotator: str,
        *,
        after: int | None = None,
        before: int | None = None,
        size: int = 100,
    ) -> ItemsPage:
        """A page of ``size`` of the task's items with the annotator's done marks: the one after position
        ``after`` (the first when neither is given) or before ``before``, read by index (`_items_page`)."""
        return self._read(_items_page.items_page, task, annotator, after=after, before=before, size=size)

    def drafts(self, item_id: str | None = None) -> list[Draft]:
        """The LLM's drafts (of one item)."""
        return self._read(_rows.drafts, item_id)

    def annotators(self) -> list[str]:
        return self._read(_annotators.annotators)

    def add_annotator(self, name: str) -> str:
        """Register ``name`` (letters, digits, spaces, ``_.@-``; at most 64) and return it."""
        return _annotators.add_annotator(self._database, name)

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
        return _log.record_criterion_action(
            self._database,
            task,
            annotator,
            action,
            criterion_id=criterion_id,
            name=name,
            description=description,
            reason=reason,
        )

    def criteria_actions(self, task: str | None = None) -> list[dict[str, Any]]:
        """Every stage-1 action, oldest first (one on an added criterion has its ``add`` in ``added_id``)."""
        return self._read(_rows.criteria_actions, task)

    def reviewed_criteria(
        self, task: str, annotator: str
    ) -> list[tuple[CriterionRow, dict[str, Any] | None]]:
        """The task's criteria, then those the annotator added, each with their latest action on it.

        The action is None for a drafted criterion they have not acted on; an added criterion's is
        its ``add`` until they act on it again.
        """
        return self._read(_views.reviewed_criteria, task, annotator)

    def final_criteria(self, task: str, annotator: str) -> list[CriterionRow]:
        """The annotator's criteria after stage 1: deletions removed, revisions applied, additions kept.

        A criterion's ``name`` stays the name it was drafted or added with (it keys the drafts and
        scores); a revision's name is its ``label``, and its text the ``description``.
        """
        return self._read(_views.final_criteria, task, annotator)

    # -- stage 2: sentences and scores ------------------------------------------------------------

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
        return _log.record_sentence_action(
            self._database, item_id, criterion, annotator, action, sentence=sentence, text=text
        )

    def set_score(self, item_id: str, criterion: str, annotator: str, score: float) -> None:
        """Log the annotator's score of an item on a criterion (``OVERALL`` for the overall score)."""
        _log.set_score(self._database, item_id, criterion, annotator, score)

    def set_candidate_scores(
        self, item_id: str, criterion: str, annotator: str, scores: Sequence[float]
    ) -> None:
        """Log the annotator's score of each candidate of a comparison on a criterion, in one go.

        Raises:
            ReviewError: The item is not a comparison, or ``scores`` is not one per candidate.
        """
        _log.set_candidate_scores(self._database, item_id, criterion, annotator, scores)

    def set_preference(self, item_id: str, annotator: str, preference: int) -> None:
        """Log the annotator's preference on a comparison: a candidate (1-based), or `TIE` (0).

        Raises:
            ReviewError: The item is not a comparison, or has no such candidate.
        """
        _log.set_preference(self._database, item_id, annotator, preference)

    def preference(self, item_id: str, annotator: str) -> int | None:
        """The annotator's preference on a comparison (their latest); None until they give one."""
        return self._read(_rows.preference, item_id, annotator)

    def candidate_scores(self, item_id: str | None = None) -> list[dict[str, Any]]:
        """Every score given to a candidate of a comparison (of one item), oldest first."""
        return self._read(_rows.candidate_scores, item_id)

    def preferences(self, item_id: str | None = None) -> list[dict[str, Any]]:
        """Every preference given (on one comparison), oldest first."""
        return self._read(_rows.preferences, item_id)

    def candidates_scores(self) -> dict[tuple[str, str, int, str], float]:
        """Every annotator's current score of each candidate of a comparison:
        ``{(item, criterion, candidate, annotator): score}``."""
        return self._read(_rows.candidates_scores)

    def preferred(self) -> dict[tuple[str, str], int]:
        """Every annotator's current preference: ``{(item, annotator): preference}``."""
        return self._read(_rows.preferred)

    def labels(self) -> list[dict[str, Any]]:
        """Every label (overall score or preference), oldest first, with what it was given with
        (``shown``: ``blind`` or ``open``; the queue ``ordering`` and ``queue_position``)."""
        return self._read(_rows.labels)

    def queued(self) -> dict[str, str]:
        """The order each queued item was queued by, by id (items imported before queues have none)."""
        return self._read(_rows.queued)

    def sentence_actions(self, item_id: str | None = None) -> list[dict[str, Any]]:
        """Every stage-2 sentence action (of one item), oldest first."""
        return self._read(_rows.sentence_actions, item_id)

    def score_actions(self, item_id: str | None = None) -> list[dict[str, Any]]:
        """Every score given (of one item), oldest first."""
        return self._read(_rows.score_actions, item_id)

    def scores(self) -> dict[tuple[str, str, str], float]:
        """Every annotator's current score: ``{(item, criterion, annotator): score}``."""
        return self._read(_rows.scores)

    def item_view(self, item_id: str, annotator: str) -> tuple[list[CriterionView], float | None]:
        """The annotator's view of an item: each of their criteria, and their overall score."""
        return self._read(_views.item_view, item_id, annotator)

    def progress(self, annotator: str) -> dict[str, tuple[int, int]]:
        """Per task: ``(items the annotator finished, items)``; finished = every criterion and overall."""
        return {task: (p.done, p.total) for task, p in self.task_progress(annotator).items()}

    def task_progress(self, annotator: str) -> dict[str, TaskProgress]:
        """Per task: the items the annotator finished, of how many, and how many await an overall score."""
        return self._read(_views.task_progress, annotator)

    def done_items(self, annotator: str, *, overall: bool = True) -> set[str]:
        """The items the annotator finished (as `is_done` decides, for every item in a few queries);
        with ``overall`` False, those whose every criterion is finished, scored overall or not."""
        criteria_done, done = self._read(_views.finished_items, annotator)
        return done if overall else criteria_done

    def is_done(self, item_id: str, annotator: str) -> bool:
        """Whether the annotator finished the item: every criterion, and its overall score (a
        comparison: their preference)."""
        views, overall = self.item_view(item_id, annotator)
        return finished(
            views, self.preference(item_id, annotator) if self.item(item_id).compares else overall
        )

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
        _log.import_log(self._database, sentence_actions, scores)
