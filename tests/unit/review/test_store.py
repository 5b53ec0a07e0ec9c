"""The review store: each annotator's view is their own latest actions over the LLM's drafts."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from faceteval.review import OVERALL, Draft, Item, ReviewError, ReviewStore
from faceteval.review._database import Database
from faceteval.review._schema import SCHEMA_VERSION
from faceteval.review.internal import split_sentences
from tests.support.review_project import build_project


@pytest.fixture
def store(tmp_path: Path) -> ReviewStore:
    built = build_project(tmp_path / "review")
    built.add_annotator("alice")
    built.add_annotator("bob")
    return built


def test_split_sentences() -> None:
    text = 'It is clear. "Really?" she asked! Version 2.5 works.\nA new line\n\nends it'
    assert split_sentences(text) == [
        "It is clear.",
        '"Really?" she asked!',
        "Version 2.5 works.",
        "A new line",
        "ends it",
    ]
    assert split_sentences("  ") == []


def test_the_latest_action_counts_and_added_sentences_can_be_edited_and_deleted(store: ReviewStore) -> None:
    store.record_sentence_action("q1", "Clarity", "alice", "revise", sentence=0, text="Edited once.")
    store.record_sentence_action("q1", "Clarity", "alice", "revise", sentence=0, text="Edited twice.")
    added = store.record_sentence_action("q1", "Clarity", "alice", "add", text="Added.")
    store.record_sentence_action(
        "q1", "Clarity", "alice", "revise", sentence=-added, text="Added, then edited."
    )
    other = store.record_sentence_action("q1", "Clarity", "alice", "add", text="Gone soon.")
    store.record_sentence_action("q1", "Clarity", "alice", "delete", sentence=-other)
    (clarity, _), overall = store.item_view("q1", "alice")
    assert [s.text for s in clarity.sentences] == [
        "Edited twice.",
        "It gives a concrete example.",
        "A child could follow it.",
        "Added, then edited.",
        None,
    ]
    assert [s.action for s in clarity.sentences] == ["revise", None, None, "revise", "delete"]
    assert not clarity.done and overall is None
    bob, _ = store.item_view("q1", "bob")
    assert [s.text for s in bob[0].sentences] == list(bob[0].draft.sentences)  # type: ignore[union-attr]


def test_an_item_is_done_when_every_sentence_and_score_is_given(store: ReviewStore) -> None:
    for criterion, count in (("Clarity", 3), ("Accuracy", 2)):
        for index in range(count):
            store.record_sentence_action("q1", criterion, "alice", "pass", sentence=index)
        store.set_score("q1", criterion, "alice", 2)
    assert not store.is_done("q1", "alice")
    assert store.done_items("alice", overall=False) == {"q1"}
    assert store.task_progress("alice") == {"eli5": (0, 3, 1)}
    store.set_score("q1", "", "alice", 3)
    assert store.task_progress("alice") == {"eli5": (1, 3, 0)}
    assert store.is_done("q1", "alice") and not store.is_done("q1", "bob")
    assert store.done_items("alice") == {"q1"} and store.done_items("bob") == set()
    store.record_sentence_action("q2", "Clarity", "alice", "add", text="Extra.")
    for criterion, count in (("Clarity", 3), ("Accuracy", 2)):
        for index in range(count - 1):
            store.record_sentence_action("q2", criterion, "alice", "delete", sentence=index)
        store.set_score("q2", criterion, "alice", 1)
    store.set_score("q2", "", "alice", 1)
    assert not store.is_done("q2", "alice") and store.done_items("alice") == {"q1"}  # a sentence left
    store.record_sentence_action("q2", "Clarity", "alice", "revise", sentence=2, text="Last.")
    store.record_sentence_action("q2", "Accuracy", "alice", "pass", sentence=1)
    assert store.is_done("q2", "alice") and store.done_items("alice") == {"q1", "q2"}
    assert store.progress("alice") == {"eli5": (2, 3)} and store.progress("bob") == {"eli5": (0, 3)}


def test_stage_one_decides_the_criteria_an_annotator_reviews(store: ReviewStore) -> None:
    clarity, accuracy = store.criteria("eli5")
    store.record_criterion_action("eli5", "alice", "delete", criterion_id=accuracy.id, reason="covered")
    store.record_criterion_action(
        "eli5",
        "alice",
        "revise",
        criterion_id=clarity.id,
        name="Plainness",
        description="Plain words.",
        reason="r",
    )
    store.record_criterion_action(
        "eli5", "alice", "add", name="Analogy", description="An analogy.", reason="r"
    )
    final = store.final_criteria("eli5", "alice")
    assert [(c.name, c.title, c.description) for c in final] == [
        ("Clarity", "Plainness", "Plain words."),
        ("Analogy", "Analogy", "An analogy."),
    ]
    assert [c.name for c in store.final_criteria("eli5", "bob")] == ["Clarity", "Accuracy"]
    store.record_criterion_action("eli5", "alice", "approve", criterion_id=accuracy.id)
    assert [c.name for c in store.final_criteria("eli5", "alice")] == ["Clarity", "Accuracy", "Analogy"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.record_sentence_action("q1", "Clarity", "carol", "pass", sentence=0), "sign in"),
        (lambda s: s.record_sentence_action("q9", "Clarity", "alice", "pass", sentence=0), "no item"),
        (lambda s: s.record_sentence_action("q1", "Clarity", "alice", "pass", sentence=3), "no sentence 3"),
        (lambda s: s.record_sentence_action("q1", "Clarity", "alice", "pass", sentence=-99), "no added"),
        (lambda s: s.record_sentence_action("q1", "Clarity", "alice", "add", text=" "), "needs the"),
        (
            lambda s: s.record_sentence_action("q1", "Clarity", "alice", "add", sentence=1, text="x"),
            "add takes",
        ),
        (lambda s: s.record_criterion_action("eli5", "alice", "add", name=""), "needs the criterion"),
        (lambda s: s.record_criterion_action("nope", "alice", "add", name="X"), "no task"),
        (lambda s: s.record_criterion_action("eli5", "alice", "approve", criterion_id=999), "no criterion"),
        (lambda s: s.add_annotator("<b>"), "annotator name"),
    ],
)
def test_bad_actions_are_refused_and_store_nothing(store: ReviewStore, call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReviewError, match=message):
        call(store)
    assert store.sentence_actions() == [] and store.criteria_actions() == []


def test_concurrent_writers_lose_nothing(store: ReviewStore) -> None:
    def work(annotator: str) -> None:
        mine = ReviewStore.open(store.path.parent)
        for i in range(40):
            mine.set_score("q1", "Clarity", annotator, 1 + i % 5)

    threads = [threading.Thread(target=work, args=(name,)) for name in ("alice", "bob")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.score_actions()) == 80
    assert store.scores()[("q1", "Clarity", "alice")] == 5


def test_reopening_keeps_everything_and_a_missing_project_is_an_error(
    store: ReviewStore, tmp_path: Path
) -> None:
    store.set_score("q1", "Clarity", "alice", 4)
    again = ReviewStore.open(store.path.parent, create=False)
    assert again.scores() == {("q1", "Clarity", "alice"): 4}
    assert len(again.items()) == 3 and again.annotators() == ["alice", "bob"]
    with pytest.raises(ReviewError, match="not a review project"):
        ReviewStore.open(tmp_path / "nothing", create=False)
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_id_already_naming_another_output_is_refused_and_nothing_is_added(store: ReviewStore) -> None:
    store.add_task("other", "", [("Tone", "", (1.0, 3.0))])
    foreign = [Item("q3", "other", "Why?", "Because."), Item("new", "other", "Hi?", "Hello.")]
    assert [(new.id, present.task) for new, present in store.conflicts(foreign)] == [("q3", "eli5")]
    with pytest.raises(ReviewError, match=r"1 output id is already in the project.*'q3' \(task 'eli5'\)"):
        store.add_items(foreign, [Draft("q3", "Tone", 2), Draft("new", "Tone", 1)])
    assert [item.id for item in store.items("other")] == []
    assert {d.criterion for d in store.drafts("q3")} == {"Clarity", "Accuracy", ""}
    same = store.item("q1")  # the same output again (a run imported twice) is no conflict
    assert store.conflicts([same]) == [] and store.add_items([same]) == 0


def test_names_are_unique_among_an_annotators_criteria(store: ReviewStore) -> None:
    clarity, accuracy = store.criteria("eli5")
    with pytest.raises(ReviewError, match="already have a criterion named 'Clarity'"):
        store.record_criterion_action("eli5", "alice", "add", name="clarity", reason="r")
    store.record_criterion_action("eli5", "alice", "delete", criterion_id=clarity.id, reason="r")
    with pytest.raises(ReviewError, match="drafted criteria: approve or revise it"):  # deleted, still drafted
        store.record_criterion_action("eli5", "alice", "add", name="Clarity", reason="r")
    store.record_criterion_action("eli5", "alice", "add", name="Analogy", reason="r")
    with pytest.raises(ReviewError, match="already have a criterion named 'Analogy'"):
        store.record_criterion_action("eli5", "alice", "add", name=" ANALOGY ", reason="r")
    with pytest.raises(ReviewError, match="already have a criterion named 'Analogy'"):
        store.record_criterion_action(
            "eli5", "alice", "revise", criterion_id=accuracy.id, name="analogy", reason="r"
        )
    store.record_criterion_action(  # its own name, or a deleted criterion's, is free to take
        "eli5", "alice", "revise", criterion_id=accuracy.id, name="Clarity", reason="r"
    )
    store.record_criterion_action("eli5", "bob", "add", name="Analogy", reason="bob's own")
    assert [c.title for c in store.final_criteria("eli5", "alice")] == ["Clarity", "Analogy"]
    assert [c.name for c in store.final_criteria("eli5", "alice")] == ["Accuracy", "Analogy"]


def test_a_criterion_the_annotator_added_can_be_revised_deleted_and_kept_again(store: ReviewStore) -> None:
    added = -store.record_criterion_action(
        "eli5", "alice", "add", name="Analogy", description="A.", reason="r"
    )
    store.record_criterion_action(
        "eli5", "alice", "revise", criterion_id=added, name="Analogies", description="Some.", reason="typo"
    )
    *_, analogy = store.final_criteria("eli5", "alice")
    assert (analogy.id, analogy.name, analogy.title, analogy.description) == (
        added,
        "Analogy",
        "Analogies",
        "Some.",
    )
    assert analogy.scale == store.task_scale("eli5") == (1.0, 5.0)
    store.record_criterion_action("eli5", "alice", "delete", criterion_id=added, reason="not needed")
    assert [c.name for c in store.final_criteria("eli5", "alice")] == ["Clarity", "Accuracy"]
    row, action = store.reviewed_criteria("eli5", "alice")[-1]
    assert row.id == added and action is not None and action["action"] == "delete"
    assert action["added_id"] == -added and action["criterion_id"] is None
    store.record_criterion_action("eli5", "alice", "approve", criterion_id=added)
    assert [c.name for c in store.final_criteria("eli5", "alice")] == ["Clarity", "Accuracy", "Analogy"]
    with pytest.raises(ReviewError, match=f"no criterion {added} added by bob"):
        store.record_criterion_action("eli5", "bob", "delete", criterion_id=added, reason="r")
    views, _ = store.item_view("q1", "alice")
    assert [(v.name, v.title) for v in views][-1] == ("Analogy", "Analogy")


def test_the_task_scale_is_the_one_imported_else_the_span_of_its_criteria(store: ReviewStore) -> None:
    assert store.task_scale("eli5") == (1.0, 5.0)  # Clarity 1-5, Accuracy 1-3, no scale of its own
    store.add_task("short", "", [("Tone", "", (1.0, 3.0))])
    assert store.task_scale("short") == (1.0, 3.0)
    store.add_task("short", "", scale=(1.0, 10.0))
    store.add_task("short", "described")  # no scale given: the one it has stays
    assert store.task_scale("short") == (1.0, 10.0)
    with pytest.raises(ReviewError, match="no task 'nope'"):
        store.task_scale("nope")


def test_a_version_1_project_is_brought_up_to_date_and_keeps_everything(store: ReviewStore) -> None:
    store.set_score("q1", "Clarity", "alice", 4)
    clarity, _ = store.criteria("eli5")
    store.record_criterion_action("eli5", "alice", "approve", criterion_id=clarity.id)
    with sqlite3.connect(store.path) as db:  # as faceteval wrote it before version 2
        for table, column in (
            ("tasks", "scale_min"),
            ("tasks", "scale_max"),
            ("criteria_actions", "added_id"),
        ):
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    again = ReviewStore.open(store.path.parent, create=False)
    assert again.scores() == {("q1", "Clarity", "alice"): 4} and len(again.criteria_actions()) == 1
    assert again.task_scale("eli5") == (1.0, 5.0)
    added = -again.record_criterion_action("eli5", "alice", "add", name="Analogy", reason="r")
    again.record_criterion_action("eli5", "alice", "delete", criterion_id=added, reason="r")
    with sqlite3.connect(store.path) as db:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert version == (str(SCHEMA_VERSION),)


def test_what_is_not_a_project_directory_or_database_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ReviewError, match="file/sub: cannot make the project's directory: Not a directory"):
        ReviewStore.open(tmp_path / "file" / "sub")
    with pytest.raises(ReviewError, match="file: not a review project"):
        ReviewStore.open(tmp_path / "file")
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / "review.sqlite").write_text("not a database at all, just text\n" * 10)
    with pytest.raises(ReviewError, match=r"garbage/review.sqlite is not an SQLite database, so not a"):
        ReviewStore.open(tmp_path / "garbage", create=False)


@pytest.mark.parametrize("name", ["José", "李雷", "Anna-Lena M.", "ann_2@lab"])
def test_annotator_names_may_be_in_any_script(store: ReviewStore, name: str) -> None:
    assert store.add_annotator(f" {name} ") == name and name in store.annotators()


@pytest.mark.parametrize("name", ["<b>", "_x", "", "a" * 65, "tab\there"])
def test_annotator_names_that_are_refused_are_named(store: ReviewStore, name: str) -> None:
    with pytest.raises(ReviewError, match="is not an annotator name"):
        store.add_annotator(name)


def test_restoring_or_re_adding_a_criterion_never_gives_two_of_one_name(store: ReviewStore) -> None:
    clarity, accuracy = store.criteria("eli5")
    tone = -store.record_criterion_action("eli5", "alice", "add", name="Tone", reason="r")
    store.set_score("q1", "Tone", "alice", 2)
    store.record_criterion_action("eli5", "alice", "delete", criterion_id=tone, reason="r")
    with pytest.raises(ReviewError, match="you added 'Tone' before and deleted it: keep it after all"):
        store.record_criterion_action(
            "eli5", "alice", "add", name="tone", reason="r"
        )  # its score would return
    store.record_criterion_action("eli5", "bob", "delete", criterion_id=accuracy.id, reason="r")
    store.record_criterion_action(
        "eli5", "bob", "revise", criterion_id=clarity.id, name="Accuracy", description="d", reason="r"
    )
    with pytest.raises(ReviewError, match="already have a criterion named 'Accuracy'"):
        store.record_criterion_action("eli5", "bob", "approve", criterion_id=accuracy.id)
    assert [(c.name, c.title) for c in store.final_criteria("eli5", "bob")] == [("Clarity", "Accuracy")]
    store.record_criterion_action("eli5", "alice", "approve", criterion_id=tone)  # nothing else took it
    assert [c.title for c in store.final_criteria("eli5", "alice")] == ["Clarity", "Accuracy", "Tone"]


@pytest.mark.parametrize("name", ["राम", "O'Brien", "Jose\u0301"])
def test_names_with_combining_marks_or_apostrophes_are_annotator_names(store: ReviewStore, name: str) -> None:
    import unicodedata

    assert store.add_annotator(name) == unicodedata.normalize("NFC", name)


def test_a_locked_project_is_not_called_no_project(
    store: ReviewStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def locked(self: Database) -> sqlite3.Connection:
        raise sqlite3.OperationalError("database is locked")  # what 30 s of another writer's lock gives

    monkeypatch.setattr(Database, "connect", locked)
    with pytest.raises(ReviewError, match=r"review\.sqlite: database is locked$"):
        ReviewStore.open(store.path.parent, create=False)


@pytest.mark.parametrize(
    ("first", "second", "after"),
    [
        (((1.0, 10.0), False), ((3.0, 8.0), True), (1.0, 10.0)),  # drafts within a stated scale
        (((3.0, 8.0), True), ((1.0, 10.0), False), (1.0, 10.0)),  # a stated scale that holds them
        (((3.0, 8.0), True), ((2.0, 9.0), True), (2.0, 9.0)),  # two batches worked out: both held
        (((1.0, 10.0), False), ((3.0, 15.0), True), None),  # drafts past a stated scale
        (((3.0, 15.0), True), ((1.0, 10.0), False), None),  # the same in the other order
        (((1.0, 5.0), False), ((1.0, 10.0), False), None),  # two stated scales
    ],
)
def test_a_task_scale_joins_stated_and_worked_out_ones_in_either_order(
    store: ReviewStore,
    first: tuple[tuple[float, float], bool],
    second: tuple[tuple[float, float], bool],
    after: tuple[float, float] | None,
) -> None:
    store.add_task("t", "", scale=first[0], derived=first[1])
    if after is None:
        with pytest.raises(ReviewError, match="import these as another task"):
            store.add_task("t", "", scale=second[0], derived=second[1])
        assert store.task_scale("t") == first[0]
    else:
        store.add_task("t", "", scale=second[0], derived=second[1])
        assert store.task_scale("t") == after


def test_a_task_keeps_the_scale_it_was_first_imported_with(store: ReviewStore) -> None:
    store.add_task("t", "", [("A", "", (1.0, 5.0))], scale=(1.0, 5.0))
    store.add_task("t", "", [("B", "", (1.0, 5.0))], scale=(1.0, 5.0))  # the same again: fine
    with pytest.raises(ReviewError, match=r"task 't' was imported with scores on 1-5, not 0-10"):
        store.add_task("t", "", scale=(0.0, 10.0))
    assert store.task_scale("t") == (1.0, 5.0)


def test_a_version_2_project_keeps_widening_its_scales(store: ReviewStore) -> None:
    store.add_task("t", "", scale=(1.0, 7.0), derived=True)
    with sqlite3.connect(store.path) as db:  # as version 2 wrote it: no record of how a scale came
        db.execute("ALTER TABLE tasks DROP COLUMN scale_derived")
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    again = ReviewStore.open(store.path.parent, create=False)
    again.add_task("t", "", scale=(1.0, 10.0), derived=True)
    assert again.task_scale("t") == (1.0, 10.0)


def test_a_form_posted_again_does_nothing_and_answers_where_the_first_went(store: ReviewStore) -> None:
    with store.posting("token-1", "alice", "/item?id=q1#overall") as earlier:
        assert earlier is None
        store.set_score("q1", OVERALL, "alice", 4)
        store.set_score("q3", OVERALL, "alice", 2)  # one transaction, however many writes
    with store.posting("token-1", "alice", "/elsewhere") as earlier:
        assert earlier == "/item?id=q1#overall"
    assert store.posted("token-1") == ("alice", "/item?id=q1#overall") and store.posted("token-2") is None
    with pytest.raises(ReviewError, match="another annotator"), store.posting("token-1", "bob", "/"):
        pass
    assert len(store.score_actions()) == 2


def test_a_form_whose_action_fails_stores_neither_and_can_be_sent_again(store: ReviewStore) -> None:
    def score_two() -> None:
        with store.posting("token-1", "alice", "/"):
            store.set_score("q1", OVERALL, "alice", 4)
            store.set_score("nope", OVERALL, "alice", 4)

    with pytest.raises(ReviewError, match="no item"):
        score_two()
    assert store.score_actions() == [] and store.posted("token-1") is None
    with store.posting("token-1", "alice", "/") as earlier:
        assert earlier is None
        store.set_score("q1", OVERALL, "alice", 4)
    assert len(store.score_actions()) == 1
