"""Review statistics on a hand-built project whose answers are known, and the store's bulk import."""

from __future__ import annotations

import itertools
import math
import shutil
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats

from faceteval.review import OVERALL, Draft, Item, ReviewError, ReviewStore
from faceteval.review._stats import LLM, review_stats
from faceteval.review._stats_tables import render_stats_markdown, stats_tables

ITEMS = ("i1", "i2", "i3", "i4", "i5")
ANNOTATORS = ("ann1", "ann2", "ann3")
LLM_A = (4.0, 2.0, 5.0, 3.0, 1.0)
HUMAN_A = {  # per annotator, per item; None = not scored
    "ann1": (4.0, 3.0, 5.0, 2.0, 1.0),
    "ann2": (5.0, 2.0, 4.0, 3.0, 2.0),
    "ann3": (4.0, 1.0, 5.0, None, 1.0),
}
LLM_B = (1.0, 2.0, 3.0, 4.0, 5.0)
HUMAN_B = {"ann1": (1.0, 2.0, 3.0, 4.0, 4.0), "ann2": (2.0, 2.0, 3.0, 5.0, 5.0)}
SENTENCES = ("First.", "Second.", "Third.")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project, built once (each write is a transaction); each test works on a copy."""
    path = tmp_path_factory.mktemp("template") / "project"
    _build(path)
    return path


@pytest.fixture
def store(template: Path, tmp_path: Path) -> ReviewStore:
    return ReviewStore.open(Path(shutil.copytree(template, tmp_path / "project")), create=False)


def _build(path: Path) -> None:
    store = ReviewStore.open(path)
    store.add_task("t", "A task.", [("A", "Criterion A.", (1.0, 5.0)), ("B", "Criterion B.", (1.0, 5.0))])
    drafts = [Draft(i, "A", s, "A.", "", SENTENCES) for i, s in zip(ITEMS, LLM_A, strict=True)]
    drafts += [Draft(i, "B", s, "B.", "", SENTENCES[:2]) for i, s in zip(ITEMS, LLM_B, strict=True)]
    store.add_items([Item(i, "t", f"q {i}", f"o {i}") for i in ITEMS], drafts)
    for name in ANNOTATORS:
        store.add_annotator(name)
    for criterion, table in (("A", HUMAN_A), ("B", HUMAN_B)):
        for annotator, scores in table.items():
            for item, score in zip(ITEMS, scores, strict=True):
                if score is not None:
                    store.set_score(item, criterion, annotator, 1.0 if score != 1.0 else 5.0)  # overwritten
                    store.set_score(item, criterion, annotator, score)


def _actions(store: ReviewStore) -> None:
    store.record_sentence_action("i1", "A", "ann1", "pass", sentence=0)
    store.record_sentence_action("i1", "A", "ann1", "revise", sentence=1, text="Second, better.")
    store.record_sentence_action("i1", "A", "ann1", "delete", sentence=2)
    store.record_sentence_action("i1", "A", "ann1", "pass", sentence=2)  # the latest counts
    added = store.record_sentence_action("i1", "A", "ann1", "add", text="Fourth.")
    store.record_sentence_action("i1", "A", "ann1", "revise", sentence=-added, text="Fourth, again.")
    store.record_sentence_action("i2", "A", "ann2", "delete", sentence=0)
    store.record_sentence_action("i2", "B", "ann3", "revise", sentence=1, text="New.")


def _matrix(rows: list[tuple[float | None, ...]]) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def test_sentence_action_rates_count_the_latest_action_per_sentence_and_every_add(store: ReviewStore) -> None:
    _actions(store)
    result = review_stats(store)["tasks"]["t"]
    a = result["criteria"]["A"]["actions"]
    assert a["counts"] == {"pass": 2, "revise": 1, "delete": 1, "add": 1}
    assert a["n"] == 5
    assert a["rates"] == {"pass": 0.4, "revise": 0.2, "delete": 0.2, "add": 0.2}
    assert result["criteria"]["B"]["actions"]["counts"] == {"pass": 0, "revise": 1, "delete": 0, "add": 0}
    assert result["actions"]["counts"] == {"pass": 2, "revise": 2, "delete": 1, "add": 1}
    assert result["actions"]["rates"]["revise"] == pytest.approx(2 / 6)


def test_no_actions_give_undefined_rates(store: ReviewStore) -> None:
    actions = review_stats(store)["tasks"]["t"]["criteria"]["A"]["actions"]
    assert actions["n"] == 0
    assert actions["rates"] == {"pass": None, "revise": None, "delete": None, "add": None}


def test_criteria_actions_count_the_latest_per_criterion_and_every_add(store: ReviewStore) -> None:
    a, b = (criterion.id for criterion in store.criteria("t"))
    store.record_criterion_action("t", "ann1", "approve", criterion_id=a)
    store.record_criterion_action("t", "ann1", "revise", criterion_id=a, name="A2", description="Better.")
    store.record_criterion_action("t", "ann2", "delete", criterion_id=b)
    c = -store.record_criterion_action("t", "ann3", "add", name="C", description="New.")
    store.record_criterion_action("t", "ann3", "approve", criterion_id=a)
    store.record_criterion_action("t", "ann3", "revise", criterion_id=c, name="C2")  # still one add
    store.record_criterion_action("t", "ann3", "delete", criterion_id=c)
    counts = review_stats(store)["tasks"]["t"]["criteria_actions"]
    assert counts["counts"] == {"approve": 1, "delete": 1, "revise": 1, "add": 1}
    assert counts["rates"]["approve"] == 0.25


def test_scores_and_actions_on_a_criterion_the_annotator_deleted_are_left_out(store: ReviewStore) -> None:
    _actions(store)
    _, b = store.criteria("t")
    before = review_stats(store)["tasks"]["t"]["criteria"]["B"]
    untouched = review_stats(store)["tasks"]["t"]["criteria"]["A"]
    assert before["distribution"]["human"] == {"1": 1, "2": 3, "3": 2, "4": 2, "5": 2}
    assert before["actions"]["counts"]["revise"] == 1  # ann3's
    store.record_criterion_action("t", "ann2", "delete", criterion_id=b.id, reason="not for this task")
    store.record_criterion_action("t", "ann3", "delete", criterion_id=b.id, reason="same")
    after = review_stats(store)["tasks"]["t"]["criteria"]["B"]
    assert after["distribution"]["human"] == {"1": 1, "2": 1, "3": 1, "4": 2}  # ann1's alone
    assert after["actions"]["n"] == 0 and after["score_changes"]["improve"] == 0
    assert review_stats(store)["tasks"]["t"]["criteria"]["A"] == untouched
    store.record_criterion_action("t", "ann2", "approve", criterion_id=b.id)  # back: its scores count again
    again = review_stats(store)["tasks"]["t"]["criteria"]["B"]
    assert again["distribution"]["human"] == {"1": 1, "2": 3, "3": 2, "4": 2, "5": 2}


def test_score_changes_compare_each_latest_human_score_with_the_draft(store: ReviewStore) -> None:
    result = review_stats(store)["tasks"]["t"]
    # A: ann1 (=, +, =, -, =), ann2 (+, =, -, =, +), ann3 (=, -, =, _, =)
    assert result["criteria"]["A"]["score_changes"] == {"improve": 3, "decrease": 3, "unchange": 8}
    # B: ann1 (=, =, =, =, -), ann2 (+, =, =, +, =)
    assert result["criteria"]["B"]["score_changes"] == {"improve": 2, "decrease": 1, "unchange": 7}
    assert result["score_changes"] == {"improve": 5, "decrease": 4, "unchange": 15}


def test_alpha_is_krippendorffs_on_the_expected_matrix(store: ReviewStore) -> None:
    result = review_stats(store)["tasks"]["t"]
    humans = [HUMAN_A[a] for a in ANNOTATORS]
    for level in ("interval", "ordinal"):
        alpha = result["criteria"]["A"]["alpha"]
        with_llm = krippendorff.alpha(reliability_data=_matrix([LLM_A, *humans]), level_of_measurement=level)
        alone = krippendorff.alpha(reliability_data=_matrix(humans), level_of_measurement=level)
        assert alpha["llm_and_annotators"][level] == pytest.approx(with_llm)
        assert alpha["annotators"][level] == pytest.approx(alone)
    # per task: the (item, criterion) units of A then B; ann3 scored no B
    pooled = [LLM_A + LLM_B, *(HUMAN_A[a] + HUMAN_B.get(a, (None,) * 5) for a in ANNOTATORS)]
    expected = krippendorff.alpha(reliability_data=_matrix(pooled), level_of_measurement="ordinal")
    assert result["alpha"]["llm_and_annotators"]["ordinal"] == pytest.approx(expected)
    pair = krippendorff.alpha(reliability_data=_matrix(pooled[:2]), level_of_measurement="interval")
    assert result["pairwise_alpha"][LLM]["ann1"] == pytest.approx(pair)
    assert result["pairwise_alpha"]["ann1"][LLM] == result["pairwise_alpha"][LLM]["ann1"]


def test_pairwise_pearson_is_the_mean_of_scipys_over_shared_items(store: ReviewStore) -> None:
    pearson = review_stats(store)["tasks"]["t"]["criteria"]["A"]["pearson"]
    values = []
    for first, second in itertools.combinations(ANNOTATORS, 2):
        shared = [(x, y) for x, y in zip(HUMAN_A[first], HUMAN_A[second], strict=True) if None not in (x, y)]
        values.append(scipy_stats.pearsonr(*zip(*shared, strict=True)).statistic)
    assert pearson["annotators"] == pytest.approx(np.mean(values))
    with_llm = []
    for annotator in ANNOTATORS:
        shared = [(x, y) for x, y in zip(LLM_A, HUMAN_A[annotator], strict=True) if y is not None]
        with_llm.append(scipy_stats.pearsonr(*zip(*shared, strict=True)).statistic)
    assert pearson["llm_vs_annotators"] == pytest.approx(np.mean(with_llm))


def test_llm_vs_mean_human_is_scipys_pearson_and_spearman(store: ReviewStore) -> None:
    means = [
        np.mean([HUMAN_A[a][k] for a in ANNOTATORS if HUMAN_A[a][k] is not None]) for k in range(len(ITEMS))
    ]
    result = review_stats(store, n_resamples=200)["tasks"]["t"]["criteria"]["A"]["llm_vs_human"]
    assert result["pearson"]["value"] == pytest.approx(scipy_stats.pearsonr(LLM_A, means).statistic)
    assert result["spearman"]["value"] == pytest.approx(scipy_stats.spearmanr(LLM_A, means).statistic)
    assert result["pearson"]["n"] == 5
    low, high = result["pearson"]["ci"]
    assert low <= high
    assert review_stats(store)["tasks"]["t"]["criteria"]["A"]["llm_vs_human"]["pearson"]["ci"] is None


def test_score_distributions_count_each_value(store: ReviewStore) -> None:
    distribution = review_stats(store)["tasks"]["t"]["criteria"]["A"]["distribution"]
    assert distribution["llm"] == {"1": 1, "2": 1, "3": 1, "4": 1, "5": 1}
    assert distribution["human"] == {"1": 3, "2": 3, "3": 2, "4": 3, "5": 3}


def test_the_overall_score_is_a_criterion_of_its_own(store: ReviewStore) -> None:
    store.add_items([], [Draft(i, OVERALL, s) for i, s in zip(ITEMS, LLM_A, strict=True)])
    for item, score in zip(ITEMS, HUMAN_A["ann1"], strict=True):
        store.set_score(item, OVERALL, "ann1", score)
    numbers = review_stats(store)
    result = numbers["tasks"]["t"]
    assert list(result["criteria"]) == ["A", "B", OVERALL]
    assert result["criteria"][OVERALL]["score_changes"] == {"improve": 1, "decrease": 1, "unchange": 3}
    assert result["score_changes"] == {"improve": 5, "decrease": 4, "unchange": 15}  # not pooled
    assert "| t | (overall) | LLM | 5 |" in render_stats_markdown(numbers)


def test_undefined_numbers_are_none(tmp_path: Path) -> None:
    store = ReviewStore.open(tmp_path / "empty")
    store.add_task("t", "", [("A", "", (1.0, 5.0))])
    store.add_items([Item("i1", "t", "q", "o")], [Draft("i1", "A", 3.0)])
    numbers = review_stats(store)["tasks"]["t"]
    assert numbers["alpha"]["llm_and_annotators"] == {"interval": None, "ordinal": None}
    assert numbers["criteria"]["A"]["llm_vs_human"]["pearson"]["value"] is None
    assert numbers["pearson"] == {"annotators": None, "llm_vs_annotators": None}
    assert numbers["pairwise_alpha"] == {LLM: {}}


def test_unknown_task(store: ReviewStore) -> None:
    with pytest.raises(ReviewError, match="no task 'nope'"):
        review_stats(store, tasks=["nope"])
    assert list(review_stats(store, tasks=["t"])["tasks"]) == ["t"]


def test_tables_and_markdown(store: ReviewStore) -> None:
    _actions(store)
    numbers = review_stats(store)
    titles = [table.title or "" for table in stats_tables(numbers)]
    assert titles[0] == "Sentence actions"
    assert any(title.startswith("Pairwise α") for title in titles)
    markdown = render_stats_markdown(numbers)
    assert "| t | A | 5 | 40.0% | 20.0% | 20.0% | 20.0% |" in markdown
    assert "(all criteria)" in markdown


# -- ReviewStore.import_log -----------------------------------------------------------------------


def test_import_log_appends_rows_in_order_and_keeps_unaligned_actions(store: ReviewStore) -> None:
    store.import_log(
        [
            ("i1", "A", "ann1", 0, "pass", None),
            ("i1", "A", "ann1", 1, "revise", None),  # no text: the log recorded only the action
            ("i1", "A", "ann1", 7, "delete", None),  # past the draft's 3 sentences: kept
            ("i1", "A", "ann1", None, "add", None),
        ],
        [("i1", "A", "ann1", 2.0), ("i1", "A", "ann1", 3.0)],
    )
    assert store.scores()[("i1", "A", "ann1")] == 3.0
    assert [row["sentence"] for row in store.sentence_actions("i1")] == [0, 1, 7, None]
    views, _ = store.item_view("i1", "ann1")
    assert [s.action for s in views[0].sentences] == ["pass", "revise", None, "add"]
    counts = review_stats(store)["tasks"]["t"]["criteria"]["A"]["actions"]["counts"]
    assert counts == {"pass": 1, "revise": 1, "delete": 1, "add": 1}


@pytest.mark.parametrize(
    ("actions", "scores", "message"),
    [
        ([("nope", "A", "ann1", 0, "pass", None)], [], "no item 'nope'"),
        ([("i1", "A", "bob", 0, "pass", None)], [], "no annotator 'bob'"),
        ([("i1", "A", "ann1", 0, "approve", None)], [], "unknown sentence action"),
        ([("i1", "A", "ann1", None, "pass", None)], [], "pass with sentence None"),
        ([("i1", "A", "ann1", 0, "add", "x")], [], "add with sentence 0"),
        ([("i1", "A", "ann1", -1, "pass", None)], [], "pass with sentence -1"),
        ([], [("i1", "A", "ann1", math.nan)], "not a finite number"),
        ([], [("i1", "A", "nobody", 3.0)], "no annotator 'nobody'"),
    ],
)
def test_import_log_refuses_bad_rows_and_writes_nothing(
    store: ReviewStore, actions: list, scores: list, message: str
) -> None:
    before = len(store.score_actions())
    with pytest.raises(ReviewError, match=message):
        store.import_log([("i1", "A", "ann1", 0, "pass", None), *actions], scores)
    assert store.sentence_actions() == []
    assert len(store.score_actions()) == before
