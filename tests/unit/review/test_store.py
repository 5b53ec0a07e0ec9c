"""The review store: each annotator's view is their own latest actions over the LLM's drafts."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from faceteval.review import ReviewError, ReviewStore, split_sentences
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
    store.set_score("q1", "", "alice", 3)
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
    assert [(c.name, c.description) for c in final] == [
        ("Clarity", "Plainness: Plain words."),
        ("Analogy", "An analogy."),
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
