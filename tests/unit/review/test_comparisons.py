"""Comparison items: a pairwise or listwise judgment is one item holding every candidate, reviewed as one.

Annotators score each candidate on each criterion and give a preference; the export and the
statistics carry both, and the preferences' agreement with the judge and among annotators.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from faceteval.review import OVERALL, TIE, Candidate, Draft, Item, Part, ReviewError, ReviewStore
from faceteval.review.internal import export_actions, export_scores, review_stats, stats_tables

PAIR = (Candidate("Clouds get heavy and drops fall.", "A"), Candidate("Precipitation.", "B"))
PARTS = (
    Part("heading", "Response 1", 1),
    Part("sentence", "Plain words.", 1),
    Part("score", "Score: 4", 1),
    Part("heading", "Response 2", 2),
    Part("sentence", "Jargon.", 2),
    Part("score", "Score: 2", 2),
)


def comparison(item_id: str, candidates: tuple[Candidate, ...] = PAIR) -> Item:
    return Item(item_id, "t", "Why does it rain?", "", metadata={"instance": item_id}, candidates=candidates)


def drafts(item_id: str, scores: tuple[float, ...] = (4, 2), verdict: int | None = 1) -> list[Draft]:
    return [
        Draft(
            item_id,
            "Clarity",
            None,
            sentences=("Plain words.", "Jargon."),
            scores=scores,
            weight=0.6,
            parts=PARTS,
        ),
        Draft(item_id, OVERALL, None, conclusion="The first is clearer.", scores=scores, verdict=verdict),
    ]


@pytest.fixture
def store(tmp_path: Path) -> ReviewStore:
    built = ReviewStore.open(tmp_path / "review")
    built.add_task("t", "Explain.", [("Clarity", "Plain words.", (1.0, 5.0))], scale=(1.0, 5.0))
    built.add_items(
        [comparison("p1"), Item("o1", "t", "Why?", "Because.")],
        [*drafts("p1"), Draft("o1", "Clarity", 3, sentences=("Fine.",)), Draft("o1", OVERALL, 3)],
    )
    for name in ("alice", "bob"):
        built.add_annotator(name)
    return built


def test_a_comparison_is_stored_with_its_candidates_and_the_judges_scores_and_verdict(
    store: ReviewStore,
) -> None:
    item = store.item("p1")
    assert item.compares and item.candidates == PAIR and item.output == ""
    assert not store.item("o1").compares and store.item("o1").candidates == ()
    clarity, overall = store.drafts("p1")
    assert (clarity.score, clarity.scores, clarity.weight, clarity.parts) == (None, (4, 2), 0.6, PARTS)
    assert (overall.scores, overall.verdict) == ((4, 2), 1)
    assert store.drafts("o1")[0].scores == () and store.drafts("o1")[0].parts == ()
    assert store.add_items([comparison("p1")], drafts("p1")) == 0  # imported again: nothing new
    other = (PAIR[1], PAIR[0])
    assert [new.id for new, _ in store.conflicts([comparison("p1", other)])] == ["p1"]  # other candidates


@pytest.mark.parametrize(
    ("items", "drafted", "message"),
    [
        ([comparison("x", PAIR[:1])], [], "at least two candidates"),
        ([comparison("x")], drafts("x", scores=(4,)), "1 candidate scores for 2 candidates"),
        ([comparison("x")], [Draft("x", "Clarity", 3, scores=(4, 2))], "and a score of its own"),
        (
            [Item("y", "t", "q", "o")],
            [Draft("y", "Clarity", None, scores=(4, 2))],
            "2 candidate scores for 0",
        ),
        (
            [Item("y", "t", "q", "o")],
            [Draft("y", "Clarity", 3, sentences=("A.",), parts=PARTS)],
            "its parts'",
        ),
    ],
)
def test_malformed_comparisons_are_refused_whole(
    store: ReviewStore, items: list[Item], drafted: list[Draft], message: str
) -> None:
    before = store.items()
    with pytest.raises(ReviewError, match=message):
        store.add_items(items, drafted)
    assert store.items() == before


def test_an_annotator_scores_each_candidate_and_prefers_one_and_then_the_item_is_done(
    store: ReviewStore,
) -> None:
    views, overall = store.item_view("p1", "alice")
    assert views[0].scores == (None, None) and views[0].score is None and overall is None
    store.record_sentence_action("p1", "Clarity", "alice", "pass", sentence=0)
    store.record_sentence_action("p1", "Clarity", "alice", "delete", sentence=1)
    store.set_candidate_scores("p1", "Clarity", "alice", [5, 1])
    store.set_candidate_scores("p1", "Clarity", "alice", [5, 2])  # the latest counts
    (view,), _ = store.item_view("p1", "alice")
    assert view.scores == (5, 2) and view.done
    assert not store.is_done("p1", "alice") and store.done_items("alice", overall=False) == {"p1"}
    store.set_preference("p1", "alice", 2)
    store.set_preference("p1", "alice", TIE)
    assert store.preference("p1", "alice") == TIE and store.preference("p1", "bob") is None
    assert store.is_done("p1", "alice") and store.done_items("alice") == {"p1"}
    assert store.task_progress("alice")["t"] == (1, 2, 0)
    assert store.item_view("p1", "bob")[0][0].scores == (None, None)  # bob's work is his own


@pytest.mark.parametrize(
    ("act", "message"),
    [
        (lambda s: s.set_score("p1", "Clarity", "alice", 3), "is a comparison: score each of its candidates"),
        (lambda s: s.set_score("p1", OVERALL, "alice", 3), "is a comparison"),
        (lambda s: s.set_candidate_scores("p1", "Clarity", "alice", [3]), "each of its 2 candidates"),
        (lambda s: s.set_candidate_scores("o1", "Clarity", "alice", [3, 3]), "is one output"),
        (lambda s: s.set_preference("p1", "alice", 3), "a candidate 1-2, or 0 for a tie"),
        (lambda s: s.set_preference("p1", "alice", -1), "a candidate 1-2"),
        (lambda s: s.set_preference("o1", "alice", 1), "is one output"),
        (lambda s: s.set_preference("p1", "nobody", 1), "no annotator"),
    ],
)
def test_scores_and_preferences_that_do_not_fit_the_item_are_refused(
    store: ReviewStore, act, message
) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReviewError, match=message):
        act(store)
    assert store.candidate_scores() == [] and store.preferences() == [] and store.score_actions() == []


def test_the_export_carries_each_candidate_and_score_and_the_preference_beside_the_verdict(
    store: ReviewStore,
) -> None:
    store.set_candidate_scores("p1", "Clarity", "alice", [3, 4])
    store.set_preference("p1", "alice", 2)
    store.set_score("o1", "Clarity", "bob", 2)
    rows = {(row["id"], row["annotator"]): row for row in export_scores(store)}
    assert set(rows) == {("p1", "alice"), ("o1", "bob")}
    pair = rows[("p1", "alice")]
    assert pair["kind"] == "comparison" and not pair["done"]  # a sentence left to review
    assert pair["candidates"] == [{"output": c.output, "system": c.system} for c in PAIR]
    assert pair["scores"] == {"Clarity": [3, 4]} and pair["llm_scores"] == {"Clarity": [4, 2]}
    assert (pair["preference"], pair["llm_verdict"], pair["llm_overall"]) == (2, 1, [4, 2])
    assert pair["llm_weights"] == {"Clarity": 0.6}
    assert rows[("o1", "bob")]["kind"] == "output" and rows[("o1", "bob")]["scores"] == {"Clarity": 2}
    log = export_actions(store)
    assert [(row["stage"], row.get("candidate"), row.get("preference")) for row in log] == [
        ("score", 1, None),
        ("score", 2, None),
        ("preference", None, 2),
        ("score", None, None),
    ]


VERDICTS = (1, 2, TIE, 1, 2)
PREFERENCES = {  # per annotator, per comparison; None: not given
    "ann1": (1, 2, 1, 1, None),
    "ann2": (1, 1, TIE, None, None),
    "ann3": (2, 1, TIE, 1, None),
}
CANDIDATE_SCORES = {"ann1": ((5, 2), (1, 4), (3, 3), (4, 4)), "ann2": ((4, 2), (2, 5), (3, 2), (5, 1))}


@pytest.fixture
def judged(tmp_path: Path) -> ReviewStore:
    """Five comparisons (the last preferred by no one) and an output, judged and preferred as above."""
    store = ReviewStore.open(tmp_path / "judged")
    store.add_task("t", "", [("Clarity", "", (1.0, 5.0))], scale=(1.0, 5.0))
    items = [comparison(f"p{k}") for k in range(1, 6)]
    made = [d for k, v in enumerate(VERDICTS, start=1) for d in drafts(f"p{k}", (3, 3), verdict=v)]
    store.add_items([*items, Item("o1", "t", "q", "o")], [*made, Draft("o1", "Clarity", 4)])
    for annotator, chosen in PREFERENCES.items():
        store.add_annotator(annotator)
        for k, preference in enumerate(chosen, start=1):
            if preference is not None:
                store.set_preference(f"p{k}", annotator, preference)
    for annotator, pairs in CANDIDATE_SCORES.items():
        for k, scores in enumerate(pairs, start=1):
            store.set_candidate_scores(f"p{k}", "Clarity", annotator, list(scores))
    return store


def test_preferences_agreement_with_the_judge_is_counted_and_is_cohens_kappa(judged: ReviewStore) -> None:
    numbers = review_stats(judged)["tasks"]["t"]["preferences"]
    given = [
        (v, p)
        for name in PREFERENCES
        for v, p in zip(VERDICTS, PREFERENCES[name], strict=True)
        if p is not None
    ]
    assert (numbers["items"], numbers["preferences"]) == (5, len(given)) == (5, 11)
    judge = numbers["with_judge"]
    assert (judge["n"], judge["agree"]) == (11, sum(v == p for v, p in given)) == (11, 7)
    assert judge["agreement"] == pytest.approx(7 / 11)
    assert judge["cohen_kappa"] == pytest.approx(
        cohen_kappa_score([v for v, _ in given], [p for _, p in given])
    )
    untied = [(v, p) for v, p in given if p != TIE]
    assert judge["without_ties"] == {"n": 9, "agree": sum(v == p for v, p in untied), "agreement": 5 / 9}
    ann2 = judge["by_annotator"]["ann2"]
    assert (ann2["n"], ann2["agree"]) == (3, 2)
    assert numbers["distribution"] == {
        "judge": {"Response 1": 2, "Response 2": 2, "tie": 1},
        "annotators": {"Response 1": 7, "Response 2": 2, "tie": 2},
    }


def test_preferences_agreement_among_annotators_is_counted_over_pairs_and_is_krippendorffs_alpha(
    judged: ReviewStore,
) -> None:
    numbers = review_stats(judged)["tasks"]["t"]["preferences"]
    among = numbers["among_annotators"]
    pairs = [
        (a[k], b[k])
        for k in range(5)
        for a, b in itertools.combinations(PREFERENCES.values(), 2)
        if a[k] is not None and b[k] is not None
    ]
    assert (among["items"], among["pairs"], among["agree"]) == (4, len(pairs), sum(a == b for a, b in pairs))
    assert (among["pairs"], among["agree"]) == (10, 4)
    ann1, ann3 = PREFERENCES["ann1"][:4], PREFERENCES["ann3"][:4]
    assert among["by_pair"]["ann1"]["ann3"] == {
        "n": 4,
        "agree": 1,
        "cohen_kappa": pytest.approx(cohen_kappa_score(ann1, ann3)),
    }
    table = np.array([[np.nan if p is None else p for p in PREFERENCES[a]] for a in PREFERENCES], dtype=float)
    alpha = numbers["alpha"]
    assert alpha["annotators"] == pytest.approx(
        krippendorff.alpha(reliability_data=table, level_of_measurement="nominal")
    )
    with_judge = np.vstack([np.array(VERDICTS, dtype=float), table])
    expected = krippendorff.alpha(reliability_data=with_judge, level_of_measurement="nominal")
    assert alpha["judge_and_annotators"] == pytest.approx(expected)
    titles = [table.title for table in stats_tables(review_stats(judged))]
    assert "Preferences on comparisons" in titles and "Preferences against the judge, per annotator" in titles


def test_each_candidates_scores_count_as_units_of_the_criterions_statistics(judged: ReviewStore) -> None:
    clarity = review_stats(judged)["tasks"]["t"]["criteria"]["Clarity"]
    # ten candidate units of the five comparisons and the output; the judge gave 3 to every candidate
    assert clarity["distribution"]["llm"] == {"3": 10, "4": 1}
    assert clarity["distribution"]["human"] == {"1": 2, "2": 4, "3": 3, "4": 4, "5": 3}
    assert clarity["score_changes"] == {"improve": 7, "decrease": 6, "unchange": 3}
    assert review_stats(judged)["tasks"]["t"]["items"] == 6


def test_a_task_without_comparisons_has_no_preference_numbers(store: ReviewStore, tmp_path: Path) -> None:
    plain = ReviewStore.open(tmp_path / "plain")
    plain.add_task("t", "", [("Clarity", "", (1.0, 5.0))])
    plain.add_items([Item("o1", "t", "q", "o")], [Draft("o1", "Clarity", 3)])
    assert review_stats(plain)["tasks"]["t"]["preferences"] is None
    none_given = review_stats(store)["tasks"]["t"]["preferences"]
    assert none_given is not None and none_given["with_judge"]["n"] == 0
    assert (
        none_given["with_judge"]["agreement"] is None and none_given["among_annotators"]["agreement"] is None
    )
