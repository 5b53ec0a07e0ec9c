"""A project written by an earlier faceteval opens, is brought up to date losing nothing, and reads the same.

The version-4 project and what that version read from it are fixtures (`tests.support.review_rows`).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from faceteval.review import OVERALL, Candidate, Draft, Item, ReviewStore
from faceteval.review._schema import SCHEMA_VERSION
from tests.support.review_rows import DUMP, as_version_4, dump, expected_reads, masked, populate, reads


def version_4_project(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path / "review.sqlite")) as db:
        db.executescript(DUMP.read_text(encoding="utf-8"))
    return path


def test_a_version_4_project_opens_and_reads_as_the_version_that_wrote_it(tmp_path: Path) -> None:
    store = ReviewStore.open(version_4_project(tmp_path), create=False)
    assert as_version_4(reads(store)) == expected_reads()
    store.set_score("w1", OVERALL, "bob", 9)  # and takes new actions
    assert store.scores()[("w1", OVERALL, "bob")] == 9


def test_a_version_4_project_is_brought_up_to_date_as_a_new_project_is_written(tmp_path: Path) -> None:
    old = ReviewStore.open(version_4_project(tmp_path / "old"), create=False)
    new = populate(tmp_path / "new")
    assert masked(dump(old.path)) == masked(dump(new.path))  # the same tables, rows and version
    assert f"INSERT INTO \"meta\" VALUES('schema_version','{SCHEMA_VERSION}');" in dump(old.path)
    assert masked(json.dumps(as_version_4(reads(new)))) == masked(json.dumps(expected_reads()))


def test_a_version_4_project_brought_up_to_date_takes_comparisons_and_keeps_its_outputs(
    tmp_path: Path,
) -> None:
    store = ReviewStore.open(version_4_project(tmp_path), create=False)
    pair = Item(
        "p1", "eli5", "Why rain?", "", candidates=(Candidate("Clouds.", "A"), Candidate("Water.", "B"))
    )
    store.add_items(
        [pair],
        [
            Draft("p1", "Clarity", None, sentences=("Both are short.",), scores=(4, 2)),
            Draft("p1", OVERALL, None, scores=(4, 2), verdict=1),
        ],
    )
    store.set_candidate_scores("p1", "Clarity", "bob", [3, 3])
    store.set_preference("p1", "bob", 0)
    assert store.item("p1").candidates == pair.candidates and store.preference("p1", "bob") == 0
    before, after = expected_reads(), reads(store)
    assert as_version_4([i for i in after["items"] if i["id"] != "p1"]) == before["items"]
    assert after["scores"] == before["scores"] and after["sentence_actions"] == before["sentence_actions"]
    for name in ("alice", "bob", "Zoë O'Brien"):
        views = {i: v for i, v in after[name]["item_view"].items() if i != "p1"}
        assert as_version_4(views) == before[name]["item_view"]


def test_a_version_7_project_gains_the_queue_and_label_context_keeping_its_labels(tmp_path: Path) -> None:
    store = populate(tmp_path / "p")
    with closing(sqlite3.connect(store.path)) as db, db:  # as version 7 wrote it: no queue, no contexts
        db.execute("DROP TABLE queue")
        db.execute("DROP TABLE label_context")
        db.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    before = reads(store)
    again = ReviewStore.open(store.path.parent, create=False)
    with closing(sqlite3.connect(store.path)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert {"queue", "label_context"} <= tables and version == (str(SCHEMA_VERSION),) and SCHEMA_VERSION == 8
    assert reads(again) == before  # nothing there changes
    labels = again.labels()  # the labels given before: with everything shown, of items in no queue
    assert [(x["item_id"], x["annotator"], x["value"]) for x in labels] == [
        ("q1", "alice", 4.0),
        ("q3", "bob", 2.5),
    ]
    assert {(x["shown"], x["ordering"], x["queue_position"]) for x in labels} == {("open", None, None)}
    assert again.settings().blind is False and again.queued() == {}
    again.update_settings(blind=True)
    again.set_score("q2", OVERALL, "alice", 3)  # alice's first label on q2: given blind
    again.set_score("q2", OVERALL, "alice", 4)  # the drafts are shown once she gave one
    latest = [(x["item_id"], x["shown"], x["queue_position"]) for x in again.labels()[-2:]]
    assert latest == [("q2", "blind", 2), ("q2", "open", None)]
