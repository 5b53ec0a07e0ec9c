"""The review store's concerns keep to their part: views only read, and the log only appends to its tables.

Every statement the store prepares goes past SQLite's authorizer, which sees what it would do to which
table; these tests watch it while the store reads and while annotators act.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from faceteval.review import Candidate, Draft, Item, ReviewStore
from faceteval.review._database import Database
from tests.support.review_project import build_project
from tests.support.review_rows import (
    as_version_4,
    expected_reads,
    imported,
    masked,
    populate,
    reads,
    stage_one,
    stage_two,
)

# The log, and the progress its actions make (``finished``, only ever added to as well).
_LOG_TABLES = frozenset({"criteria_actions", "sentence_actions", "score_actions", "form_posts", "finished"})
_COMPARISON_TABLES = frozenset(
    {"candidate_scores", "preferences", "sentence_actions", "form_posts", "finished"}
)
_READING = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION})
_TRANSACTION = frozenset({sqlite3.SQLITE_TRANSACTION, sqlite3.SQLITE_SAVEPOINT})


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str | None]]:
    """Every ``(action, table)`` the store's connections prepare from now on, but reading ones."""
    done: list[tuple[int, str | None]] = []
    connect = Database.connect

    def watched(self: Database) -> sqlite3.Connection:
        db = connect(self)

        def note(action: int, table: str | None, *_: str | None) -> int:
            if action not in _READING:
                done.append((action, table))
            return sqlite3.SQLITE_OK

        db.set_authorizer(note)
        return db

    monkeypatch.setattr(Database, "connect", watched)
    return done


def test_reading_everything_writes_nothing(tmp_path: Path, seen: list[tuple[int, str | None]]) -> None:
    store = populate(tmp_path / "review")
    seen.clear()
    assert masked(json.dumps(as_version_4(reads(store)))) == masked(json.dumps(expected_reads()))
    assert seen == []


def test_annotators_actions_only_append_to_the_log(
    tmp_path: Path, seen: list[tuple[int, str | None]]
) -> None:
    store = imported(tmp_path / "review")
    seen.clear()
    stage_one(store)
    stage_two(store)
    writes = {(action, table) for action, table in seen if action not in _TRANSACTION}
    assert writes == {(sqlite3.SQLITE_INSERT, table) for table in _LOG_TABLES}


def test_a_write_is_one_transaction_that_nested_writes_join(
    tmp_path: Path, seen: list[tuple[int, str | None]]
) -> None:
    store: ReviewStore = build_project(tmp_path / "review")
    store.add_annotator("alice")
    seen.clear()
    with store.posting("token", "alice", "/"):
        store.set_score("q1", "Clarity", "alice", 4)
        store.record_sentence_action("q1", "Clarity", "alice", "pass", sentence=0)
    assert [action for action, _ in seen if action in _TRANSACTION] == [sqlite3.SQLITE_TRANSACTION] * 2


def test_annotators_actions_on_a_comparison_only_append_to_the_log(
    tmp_path: Path, seen: list[tuple[int, str | None]]
) -> None:
    store = imported(tmp_path / "review")
    pair = Item("p1", "eli5", "Why?", "", candidates=(Candidate("One."), Candidate("Two.")))
    store.add_items([pair], [Draft("p1", "Clarity", None, sentences=("Both.",), scores=(3, 4))])
    seen.clear()
    with store.posting("token", "alice", "/"):
        store.record_sentence_action("p1", "Clarity", "alice", "pass", sentence=0)
        store.set_candidate_scores("p1", "Clarity", "alice", [2, 5])
        store.set_preference("p1", "alice", 2)
    writes = {(action, table) for action, table in seen if action not in _TRANSACTION}
    assert writes == {(sqlite3.SQLITE_INSERT, table) for table in _COMPARISON_TABLES}
