"""A project's database is recognised before anything is written to it, and a new one is made whole."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path

from faceteval.review import ReviewStore
from faceteval.review._schema import _SCHEMA, SCHEMA_VERSION
from faceteval.review.internal import DATABASE
from tests.support.review_project import build_project


def test_a_project_whose_tables_are_still_in_its_write_ahead_log_opens(tmp_path: Path) -> None:
    """As one made by an earlier faceteval is while a server holds it open: its file has no table yet."""
    (tmp_path / "review").mkdir()
    path = tmp_path / "review" / DATABASE
    with closing(sqlite3.connect(path, isolation_level=None)) as holder:
        holder.execute("PRAGMA journal_mode = WAL")
        holder.executescript(_SCHEMA)
        holder.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        holder.execute("INSERT INTO annotators VALUES ('alice', '2024-01-01')")
        with closing(sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)) as file_alone:
            assert file_alone.execute("SELECT COUNT(*) FROM sqlite_schema").fetchone() == (0,)
        assert ReviewStore.open(tmp_path / "review", create=False).annotators() == ["alice"]


def test_commands_making_one_project_at_once_make_one(tmp_path: Path) -> None:
    project = tmp_path / "review"
    start = threading.Barrier(6)
    opened: list[ReviewStore] = []
    failed: list[BaseException] = []

    def make() -> None:
        start.wait()
        try:
            store = ReviewStore.open(project)
            store.add_annotator(threading.current_thread().name)
            opened.append(store)
        except BaseException as exc:
            failed.append(exc)

    threads = [threading.Thread(target=make, name=f"a{n}") for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == [] and len(opened) == 6
    assert ReviewStore.open(project, create=False).annotators() == [f"a{n}" for n in range(6)]
    assert [p.name for p in project.iterdir() if p.name.startswith(".")] == []


def test_a_project_made_before_its_version_was_recorded_is_brought_up_to_date(tmp_path: Path) -> None:
    """An earlier faceteval made the tables, then recorded the version: a crash between left none."""
    store = build_project(tmp_path / "review")
    with closing(sqlite3.connect(store.path)) as db, db:
        db.execute("DELETE FROM meta WHERE key = 'schema_version'")
    again = ReviewStore.open(tmp_path / "review", create=False)
    assert [item.id for item in again.items()] == ["q1", "q2", "q3"]
    with closing(sqlite3.connect(store.path)) as db:
        assert db.execute("SELECT value FROM meta").fetchall() == [(str(SCHEMA_VERSION),)]
