"""A review project holding every kind of row the store writes, and everything the store reads from it.

`populate` made `DUMP` and `reads` made `READS` with faceteval at commit 2c1370a (schema version 4, before
the store was split into its schema, log and views). Both are fixtures: they are not made again by the
code they check. What version 5 added to the values read (`NEW_IN_5`) is taken out by `as_version_4`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from faceteval.review import OVERALL, Draft, Item, ReviewStore
from tests.support.review_project import build_project

FIXTURES = Path(__file__).parents[1] / "unit" / "review"
DUMP = FIXTURES / "version4_project.sql"
"""The dump of the project `populate` made with faceteval at commit 2c1370a."""
READS = FIXTURES / "version4_reads.json"
"""What `reads` read from it with that version."""
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00")


def populate(project: Path) -> ReviewStore:
    """A project using every kind of row: stated, derived and spanned scales, invites, both stages."""
    store = imported(project)
    stage_one(store)
    stage_two(store)
    return store


def imported(project: Path) -> ReviewStore:
    """The project `populate` makes before any annotator acts: its tasks, items, annotators and invites."""
    store = build_project(project)
    store.add_task("rate", "Rate it.", [("Helpful", "Is it helpful?", (0.0, 10.0))], scale=(0.0, 10.0))
    store.add_task("wide", "", [("Tone", "", (1.0, 7.0))], scale=(1.0, 7.0), derived=True)
    store.add_task("wide", "Widened.", [("Style", "Good style.", (1.0, 9.0))], scale=(1.0, 9.0), derived=True)
    store.add_items(
        [
            Item("r1", "rate", "Q?", "A.", metadata={"source": "éval", "n": [1, 2]}),
            Item("w1", "wide", "Q", "O"),
        ],
        [Draft("r1", "Helpful", 7.5, "Good.", "A.", ("Good.", "Short.")), Draft("r1", OVERALL, None)],
    )
    for name in ("alice", "Zoë O'Brien", "bob"):
        store.add_annotator(name)
    for annotator, token_hash in (("alice", "h1"), ("alice", "h2"), ("Zoë O'Brien", "h3")):
        store.add_invite(annotator, token_hash)
    store.revoke_invites("alice")
    store.add_invite("alice", "h4")
    return store


def stage_one(store: ReviewStore) -> None:
    """Stage 1 of the review of `imported`: every criterion action, on drafted and added criteria."""
    clarity, accuracy = store.criteria("eli5")
    store.record_criterion_action("eli5", "alice", "approve", criterion_id=clarity.id, reason="fine")
    store.record_criterion_action(
        "eli5",
        "alice",
        "revise",
        criterion_id=accuracy.id,
        name="Correctness",
        description="Facts.",
        reason="r",
    )
    added = store.record_criterion_action(
        "eli5", "alice", "add", name="Analogy", description="One.", reason="r"
    )
    store.record_criterion_action(
        "eli5", "alice", "revise", criterion_id=-added, name="Analogies", description="Some.", reason="plural"
    )
    store.record_criterion_action("eli5", "Zoë O'Brien", "delete", criterion_id=accuracy.id, reason="vague")
    gone = store.record_criterion_action("eli5", "Zoë O'Brien", "add", name="Fun", reason="r")
    store.record_criterion_action("eli5", "Zoë O'Brien", "delete", criterion_id=-gone, reason="no")


def stage_two(store: ReviewStore) -> None:
    """Stage 2 of the review of `imported`: sentence actions, scores, posted forms, an imported log."""
    with store.posting("token-1", "alice", "/item?id=q1#overall"):
        for criterion, count in (("Clarity", 3), ("Accuracy", 2)):
            for index in range(count):
                store.record_sentence_action("q1", criterion, "alice", "pass", sentence=index)
            store.set_score("q1", criterion, "alice", 2)
        store.set_score("q1", "Analogy", "alice", 3.5)
    with store.posting("token-2", "alice", "/item?id=q1#overall"):
        store.set_score("q1", OVERALL, "alice", 4)
    added = store.record_sentence_action("q2", "Clarity", "alice", "add", text="  Extra.  ")
    store.record_sentence_action("q2", "Clarity", "alice", "revise", sentence=-added, text="Extra, edited.")
    store.record_sentence_action("q2", "Clarity", "alice", "revise", sentence=1, text="Edited.")
    store.record_sentence_action("q2", "Clarity", "alice", "delete", sentence=2)
    store.set_score("q2", "Clarity", "alice", 1)
    store.record_sentence_action("q3", "Clarity", "Zoë O'Brien", "pass", sentence=0)
    store.set_score("q3", "Clarity", "Zoë O'Brien", 5)
    store.import_log(
        [
            ("q3", "Clarity", "bob", 0, "pass", None),
            ("q3", "Clarity", "bob", 1, "revise", None),
            ("q3", "Clarity", "bob", 7, "delete", None),
            ("q3", "Accuracy", "bob", None, "add", " Imported. "),
        ],
        [("q3", "Clarity", "bob", 3), ("q3", OVERALL, "bob", 2.5), ("r1", "Helpful", "bob", 8)],
    )


def reads(store: ReviewStore) -> dict[str, Any]:
    """Everything `ReviewStore` reads from a project, as JSON values."""
    tasks = [name for name, _ in store.tasks()]
    people = store.annotators()
    out: dict[str, Any] = {
        "tasks": store.tasks(),
        "task_scale": {task: store.task_scale(task) for task in tasks},
        "criteria": {task: store.criteria(task) for task in tasks},
        "items": store.items(),
        "items_of": {task: store.items(task) for task in tasks},
        "item": {item.id: store.item(item.id) for item in store.items()},
        "drafts": store.drafts(),
        "drafts_of": {item.id: store.drafts(item.id) for item in store.items()},
        "annotators": people,
        "criteria_actions": store.criteria_actions(),
        "criteria_actions_of": {task: store.criteria_actions(task) for task in tasks},
        "sentence_actions": store.sentence_actions(),
        "score_actions_of_q3": store.score_actions("q3"),
        "score_actions": store.score_actions(),
        "scores": {"|".join(key): score for key, score in sorted(store.scores().items())},
        "posted": {token: store.posted(token) for token in ("token-1", "token-2", "token-3")},
        "invited": {token: store.invited(token) for token in ("h1", "h2", "h3", "h4", "h5")},
        "invite_active": [store.invite_active(invite, "alice") for invite in range(1, 6)],
        "conflicts": store.conflicts([Item("q1", "eli5", "other", "other"), Item("q2", "eli5", "", "")]),
    }
    for name in people:
        out[name] = {
            "reviewed_criteria": {task: store.reviewed_criteria(task, name) for task in tasks},
            "final_criteria": {task: store.final_criteria(task, name) for task in tasks},
            "item_view": {item.id: store.item_view(item.id, name) for item in store.items()},
            "is_done": {item.id: store.is_done(item.id, name) for item in store.items()},
            "progress": store.progress(name),
            "task_progress": {task: tuple(p) for task, p in store.task_progress(name).items()},
            "done_items": sorted(store.done_items(name)),
            "criteria_done_items": sorted(store.done_items(name, overall=False)),
        }
    return json.loads(json.dumps(out, default=_plain, ensure_ascii=False))


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    raise TypeError(f"not a JSON value: {value!r}")


NEW_IN_5 = {
    "item": {"candidates": []},
    "draft": {"scores": [], "weight": None, "verdict": None, "parts": []},
    "view": {"scores": []},
}
"""The fields version 5 added to what the store reads, and what they hold for anything written before."""


def as_version_4(value: Any) -> Any:
    """``value`` (`reads`' JSON) without the fields version 5 added, each checked to hold its default."""
    if isinstance(value, list):
        return [as_version_4(each) for each in value]
    if not isinstance(value, dict):
        return value
    kind = (
        "item"
        if {"query", "output"} <= value.keys()
        else "draft"
        if {"conclusion", "evidence"} <= value.keys()
        else "view"
        if {"draft", "sentences"} <= value.keys()
        else None
    )
    out = dict(value)
    for name, default in NEW_IN_5.get(kind or "", {}).items():
        assert out.pop(name) == default, (kind, name, value)
    return {key: as_version_4(each) for key, each in out.items()}


def dump(database: Path) -> str:
    """The SQL of a project's database."""
    with closing(sqlite3.connect(database)) as db:
        return "\n".join(db.iterdump()) + "\n"


def masked(text: str) -> str:
    """``text`` with its timestamps masked (when an action was taken)."""
    return _TIMESTAMP.sub("<time>", text)


def expected_reads() -> dict[str, Any]:
    """What faceteval read from `DUMP` when it wrote it (`READS`)."""
    return dict(json.loads(READS.read_text(encoding="utf-8")))
