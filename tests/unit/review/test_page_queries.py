"""An item's page reads its neighbours by index, not every item of its task, and every query it runs
searches an index rather than scanning a table (so a page takes the same time at 100k items as at 3).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from faceteval.review import OVERALL, Candidate, Draft, Item, ReviewStore
from faceteval.review._pages import item_page
from faceteval.review._schema import SCHEMA_VERSION
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


def walk(store: ReviewStore, task: str, annotator: str, size: int) -> list[list[tuple[str, bool]]]:
    """The pages of the task's list of items, from the first by each next link; checked against the
    same pages from the last by each previous link."""
    pages, page = [], store.items_page(task, annotator, size=size)
    while True:
        pages.append([(item.id, done) for item, done in page.items])
        assert page.start == sum(len(shown) for shown in pages[:-1])
        if page.next is None:
            break
        page = store.items_page(task, annotator, after=page.next, size=size)
    back = [[(item.id, done) for item, done in page.items]]
    while page.previous is not None:
        page = store.items_page(task, annotator, before=page.previous, size=size)
        back.insert(0, [(item.id, done) for item, done in page.items])
    assert back == pages and page.start == 0
    return pages


def test_a_tasks_list_of_items_pages_through_its_items_in_import_order(tmp_path: Path) -> None:
    store = ReviewStore.open(tmp_path)
    for task in ("a", "b"):
        store.add_task(task, "", [("Clarity", "", (1.0, 5.0))])
    for n in range(23):  # interleaved: each task's positions have gaps
        items = [Item(f"a{n}", "a", "q", f"a {n}")] + ([Item(f"b{n}", "b", "q", "b")] if n % 3 else [])
        store.add_items(items, [Draft(i.id, "Clarity", 3, sentences=("Clear.",)) for i in items])
    store.add_annotator("ann")
    for n in (0, 4, 5, 22):
        store.record_sentence_action(f"a{n}", "Clarity", "ann", "pass", sentence=0)
        store.set_score(f"a{n}", "Clarity", "ann", 4)
        store.set_score(f"a{n}", OVERALL, "ann", 4 if n else 2)
    store.set_score("a7", OVERALL, "ann", 4)  # its criterion not finished: not done
    done = store.done_items("ann")
    for task in ("a", "b"):
        ids = [item.id for item in store.items(task)]
        for size in (1, 5, 100):
            pages = walk(store, task, "ann", size)
            assert [len(page) for page in pages[:-1]] == [size] * (len(pages) - 1)
            assert [pair for page in pages for pair in page] == [(i, i in done) for i in ids]
        assert store.items_page(task, "ann").total == len(ids)
    assert done == {"a0", "a4", "a5", "a22"}
    past = store.items_page("a", "ann", after=store.item("a22").position)
    assert (past.items, past.start, past.previous, past.next) == ((), 0, None, None)


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
    "the home page's progress": lambda store: store.task_progress("ann"),
    "a page of the task's list of items": lambda store: [
        store.items_page("eli5", "ann", size=1),
        store.items_page("eli5", "ann", after=store.item("q1").position, size=1),
        store.items_page("eli5", "ann", before=store.item("q2").position, size=1),
    ],
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
    scans = {s: lines for s, lines in planned.items() if _scanned(lines)}
    assert scans == {}


def _scanned(lines: list[str]) -> set[str]:
    """The tables a query plan scans whole: but ``tasks`` (the home page lists every task), and the
    rows of its own subqueries."""
    own = {line.split()[1] for line in lines if line.startswith("CO-ROUTINE")}
    scanned = {line.split()[1] for line in lines if line.startswith("SCAN")}
    return scanned - own - {"tasks"}


def mixed(path: Path) -> ReviewStore:
    """A task of outputs and comparisons, two criteria (one without drafts on some items)."""
    store = ReviewStore.open(path)
    store.add_task("t", "", [("Clarity", "", (1.0, 5.0)), ("Depth", "", (1.0, 5.0))])
    items, drafts = [], []
    for n in range(6):
        pair = n % 2 == 1
        candidates = (Candidate("x", "A"), Candidate("y", "B")) if pair else ()
        items.append(Item(f"i{n}", "t", "q", "" if pair else "out", candidates=candidates))
        scores = (3.0, 4.0) if pair else ()
        drafts.append(
            Draft(f"i{n}", "Clarity", None if pair else 3, sentences=("One.", "Two."), scores=scores)
        )
        if n < 3:
            drafts.append(Draft(f"i{n}", "Depth", None if pair else 3, sentences=("Deep.",), scores=scores))
    store.add_items(items, drafts)
    for name in ("ann", "bea"):
        store.add_annotator(name)
    return store


def reference(store: ReviewStore, annotator: str) -> tuple[set[str], int]:
    """The items the annotator finished as each item's page decides, one by one; and those awaiting
    only their overall."""
    done, waiting = set(), 0
    for each in store.items():
        views, _ = store.item_view(each.id, annotator)
        if store.is_done(each.id, annotator):
            done.add(each.id)
        elif all(view.done for view in views):
            waiting += 1
    return done, waiting


def test_progress_kept_as_annotators_act_is_what_each_items_page_decides(tmp_path: Path) -> None:
    store = mixed(tmp_path)
    steps = random.Random(28)
    _, depth = store.criteria("t")
    for step in range(400):
        who = steps.choice(("ann", "bea"))
        each = store.item(f"i{steps.randrange(6)}")
        criterion = steps.choice(("Clarity", "Depth", OVERALL))
        kind = steps.random()
        if step == 150:
            store.record_criterion_action("t", "ann", "delete", criterion_id=depth.id, reason="r")
        elif step == 300:
            store.record_criterion_action("t", "ann", "approve", criterion_id=depth.id, reason="r")
        elif criterion == OVERALL:
            if each.compares:
                store.set_preference(each.id, who, steps.randrange(3))
            else:
                store.set_score(each.id, OVERALL, who, 3)
        elif kind < 0.6 and any(d.criterion == criterion for d in store.drafts(each.id)):
            count = next(len(d.sentences) for d in store.drafts(each.id) if d.criterion == criterion)
            action = steps.choice(("pass", "delete", "revise"))
            text = "New." if action == "revise" else None
            store.record_sentence_action(
                each.id, criterion, who, action, sentence=steps.randrange(count), text=text
            )
        elif each.compares:
            store.set_candidate_scores(
                each.id, criterion, who, [steps.randrange(1, 6) for _ in each.candidates]
            )
        else:
            store.set_score(each.id, criterion, who, steps.randrange(1, 6))
        if step % 20 == 19:
            for name in ("ann", "bea"):
                done, waiting = reference(store, name)
                assert store.done_items(name) == done, (step, name)
                assert {i for page in walk(store, "t", name, 4) for i, marked in page if marked} == done
                progress = store.task_progress(name)["t"]
                assert (progress.done, progress.total, progress.awaiting_overall) == (len(done), 6, waiting)
    assert store.done_items("ann") and store.done_items("bea")  # the walk got somewhere


def test_a_draft_imported_after_a_criterion_was_scored_undoes_its_progress(tmp_path: Path) -> None:
    store = mixed(tmp_path)
    store.set_score("i4", "Clarity", "ann", 3)
    store.record_sentence_action("i4", "Clarity", "ann", "pass", sentence=0)
    store.record_sentence_action("i4", "Clarity", "ann", "pass", sentence=1)
    store.set_score("i4", "Depth", "ann", 3)  # no draft of Depth on i4: scored is finished
    store.set_score("i4", OVERALL, "ann", 3)
    assert "i4" in store.done_items("ann") and store.is_done("i4", "ann")
    store.add_items([Item("i4", "t", "q", "out")], [Draft("i4", "Depth", 2, sentences=("Late.",))])
    assert "i4" not in store.done_items("ann") and not store.is_done("i4", "ann")
    store.record_sentence_action("i4", "Depth", "ann", "pass", sentence=0)
    assert "i4" in store.done_items("ann") and store.is_done("i4", "ann")


def test_a_version_5_project_gets_its_progress_from_its_log_when_opened(tmp_path: Path) -> None:
    store = populate(tmp_path)  # every action of the review fixtures
    names = store.annotators()
    before = {name: (store.task_progress(name), store.done_items(name, overall=False)) for name in names}
    with closing(sqlite3.connect(store.path)) as db:  # as version 5 wrote it: no progress kept
        rows = db.execute("SELECT * FROM finished ORDER BY 1, 2, 3").fetchall()
        db.execute("DROP TABLE finished")
        db.execute("DROP TABLE sessions")
        db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
        db.commit()
    reopened = ReviewStore.open(tmp_path, create=False)
    with closing(sqlite3.connect(reopened.path)) as db:
        assert db.execute("SELECT * FROM finished ORDER BY 1, 2, 3").fetchall() == rows
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
            str(SCHEMA_VERSION),
        )
    assert rows  # the fixtures finished something
    after = {name: (reopened.task_progress(name), reopened.done_items(name, overall=False)) for name in names}
    assert after == before
