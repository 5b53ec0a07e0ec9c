"""An item's page reads its neighbours by index, not every item of its task, and every query it runs
searches an index rather than scanning a table (so a page takes the same time at 100k items as at 3).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from faceteval.review import OVERALL, Draft, Item, ReviewStore
from faceteval.review._pages import item_page
from tests.support.review_project import build_project
from tests.support.review_rows import populate


def two_tasks(path: Path) -> ReviewStore:
    """Two tasks whose items were imported interleaved (positions are the project's, not the task's)."""
    store = ReviewStore.open(path)
    for task in ("a", "b"):
        store.add_task(task, "", [("Clarity", "", (1.0, 5.0))])
    for n in range(3):
        store.add_items(
            [Item(f"a{n}", "a", "q", f"a {n}"), Item(f"b{n}", "b", "q", f"b {n}")],
            [Draft(f"a{n}", "Clarity", 3, sentences=("Clear.",)), Draft(f"a{n}", OVERALL, 3)],
        )
    return store


def test_an_items_neighbours_are_its_tasks_previous_and_next_in_import_order(tmp_path: Path) -> None:
    store = two_tasks(tmp_path)
    assert store.neighbours("a0") == (None, "a1", 0, 3)
    assert store.neighbours("a1") == ("a0", "a2", 1, 3)
    assert store.neighbours("a2") == ("a1", None, 2, 3)
    assert store.neighbours("b1") == ("b0", "b2", 1, 3)
    for task in ("a", "b"):  # as the list of the task's items has them
        ids = [item.id for item in store.items(task)]
        for index, item_id in enumerate(ids):
            previous = ids[index - 1] if index else None
            following = ids[index + 1] if index + 1 < len(ids) else None
            assert store.neighbours(item_id) == (previous, following, index, len(ids))


def test_an_items_page_links_its_neighbours_and_progress_counts_after_actions(tmp_path: Path) -> None:
    store = two_tasks(tmp_path)
    store.add_annotator("ann")
    body = item_page(store, "ann", store.item("a1")).body.decode()
    assert "/item?id=a0" in body and "/item?id=a2" in body and "2 of 3" in body
    assert store.task_progress("ann")["a"].done == 0
    store.record_sentence_action("a1", "Clarity", "ann", "pass", sentence=0)
    store.set_score("a1", "Clarity", "ann", 4)
    store.set_score("a1", OVERALL, "ann", 4)
    progress = store.task_progress("ann")
    assert (progress["a"].done, progress["a"].total, progress["b"].done) == (1, 3, 0)
    assert store.neighbours("a1") == ("a0", "a2", 1, 3)  # actions move nothing


def test_a_project_made_before_the_index_gets_it_when_opened(tmp_path: Path) -> None:
    store = populate(tmp_path)
    with closing(sqlite3.connect(store.path)) as db:
        db.execute("DROP INDEX items_by_task")
        db.commit()
    reopened = ReviewStore.open(tmp_path, create=False)
    with closing(sqlite3.connect(reopened.path)) as db:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "items_by_task" in names
    assert reopened.neighbours("w1")[3] == len(reopened.items(reopened.item("w1").task))


@contextmanager
def traced(store: ReviewStore) -> Iterator[list[str]]:
    """Every statement the store runs meanwhile, its parameters bound."""
    statements: list[str] = []
    database = store._database  # the connections the store's reads open
    connect = database.connect

    def tracing() -> sqlite3.Connection:
        db = connect()
        db.set_trace_callback(statements.append)
        return db

    database.connect = tracing  # type: ignore[method-assign]
    try:
        yield statements
    finally:
        database.connect = connect  # type: ignore[method-assign]


def plans(path: Path, statements: list[str]) -> dict[str, list[str]]:
    """The query plan of each SELECT among ``statements``."""
    out = {}
    with closing(sqlite3.connect(path)) as db:
        for statement in statements:
            if statement.lstrip().upper().startswith("SELECT") and "FROM" in statement.upper():
                out[statement] = [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {statement}")]
    return out


PAGES: dict[str, Callable[[ReviewStore], object]] = {
    "an output's page": lambda store: item_page(store, "ann", store.item("q2")),
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_query_of_an_items_page_searches_an_index(tmp_path: Path, name: str) -> None:
    store = build_project(tmp_path)
    store.add_annotator("ann")
    store.record_sentence_action("q2", "Clarity", "ann", "pass", sentence=0)
    store.set_score("q2", "Clarity", "ann", 4)
    with traced(store) as statements:
        PAGES[name](store)
    planned = plans(store.path, statements)
    assert any("items_by_task" in line for lines in planned.values() for line in lines)
    scans = {s: lines for s, lines in planned.items() if any(line.startswith("SCAN") for line in lines)}
    assert scans == {}
