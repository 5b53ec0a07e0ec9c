"""A project written by an earlier faceteval opens and reads the same; a new one is written the same.

The project and what that version read from it are fixtures (`tests.support.review_rows`).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from faceteval.review import OVERALL, ReviewStore
from tests.support.review_rows import DUMP, dump, expected_reads, masked, populate, reads


def test_a_version_4_project_opens_and_reads_as_the_version_that_wrote_it(tmp_path: Path) -> None:
    with closing(sqlite3.connect(tmp_path / "review.sqlite")) as db:
        db.executescript(DUMP.read_text(encoding="utf-8"))
    store = ReviewStore.open(tmp_path, create=False)
    assert reads(store) == expected_reads()
    store.set_score("w1", OVERALL, "bob", 9)  # and takes new actions
    assert store.scores()[("w1", OVERALL, "bob")] == 9


def test_a_new_project_is_written_as_that_version_wrote_it(tmp_path: Path) -> None:
    store = populate(tmp_path / "review")
    assert masked(dump(store.path)) == masked(DUMP.read_text(encoding="utf-8"))
    assert masked(json.dumps(reads(store))) == masked(json.dumps(expected_reads()))
