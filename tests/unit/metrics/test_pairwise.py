"""Pairwise agreement metrics, checked against scikit-learn and hand-worked cases."""

import json
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, cohen_kappa_score, confusion_matrix

from faceteval.metrics import (
    Rate,
    accuracy_order_avg,
    agreement,
    agreement_consistent,
    agreement_without_ties,
    by_group,
    cohen_kappa,
    confusion,
    consistency,
    correct,
    vote_agreement,
)

NONE_CLASS = -1


def random_verdicts(seed: int, n: int = 300) -> tuple[list[int | None], list[int]]:
    rng = np.random.default_rng(seed)
    labels = [int(v) for v in rng.choice([1, 2, 0], size=n, p=[0.4, 0.4, 0.2])]
    verdicts: list[int | None] = [
        None if v < 0 else int(v) for v in rng.choice([1, 2, 0, -1], size=n, p=[0.4, 0.35, 0.15, 0.1])
    ]
    # Make the judge better than chance: copy the label on half of the items.
    pairs = enumerate(zip(verdicts, labels, strict=True))
    verdicts = [label if i % 2 else verdict for i, (verdict, label) in pairs]
    return verdicts, labels


def coded(verdicts: list[int | None]) -> list[int]:
    return [NONE_CLASS if v is None else v for v in verdicts]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agreement_matches_sklearn_accuracy(seed: int) -> None:
    verdicts, labels = random_verdicts(seed)
    rate = agreement(verdicts, labels)
    assert rate.value == pytest.approx(accuracy_score(labels, coded(verdicts)))
    assert rate.n == len(labels)
    assert rate.missing == sum(v is None for v in verdicts)
    assert rate.hits == sum(correct(verdicts, labels))


@pytest.mark.parametrize("seed", [0, 1])
def test_agreement_without_ties_matches_sklearn_on_the_non_tie_items(seed: int) -> None:
    verdicts, labels = random_verdicts(seed)
    kept = [i for i, label in enumerate(labels) if label != 0]
    expected = accuracy_score([labels[i] for i in kept], [coded(verdicts)[i] for i in kept])
    rate = agreement_without_ties(verdicts, labels)
    assert rate.value == pytest.approx(expected)
    assert (rate.n, rate.excluded) == (len(kept), len(labels) - len(kept))
    assert rate.missing == sum(verdicts[i] is None for i in kept)


def test_hand_cases_and_the_none_policy() -> None:
    verdicts = [1, 2, 0, None, 1, 0]
    labels = [1, 1, 0, 2, 0, 2]
    assert agreement(verdicts, labels) == Rate(value=2 / 6, hits=2, n=6, missing=1)
    # Ties in the labels are left out; the judge's tie on a non-tie item stays and is wrong.
    assert agreement_without_ties(verdicts, labels) == Rate(value=1 / 4, hits=1, n=4, missing=1, excluded=2)
    assert correct(verdicts, labels) == [True, False, True, False, False, False]


def test_empty_inputs_give_no_value() -> None:
    assert agreement([], []) == Rate(value=None, hits=0, n=0)
    assert agreement_without_ties([1], [0]) == Rate(value=None, hits=0, n=0, excluded=1)
    assert consistency([], []).value is None
    assert agreement_consistent([], [], []).value is None
    assert accuracy_order_avg([], [], []).value is None
    assert cohen_kappa([], []) is None
    assert by_group(agreement, [], [], []) == {}


def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="same length"):
        agreement([1, 2], [1])
    with pytest.raises(ValueError, match="human labels"):
        agreement([1], [None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="same length"):
        agreement_consistent([1], [1, 2], [1])


def test_labels_and_verdicts_that_are_not_classes_are_refused_not_counted_as_misses() -> None:
    read_as_text: list[Any] = ["1", "2"]  # as a CSV reader gives them: they would all count as misses
    with pytest.raises(ValueError, match=r"human labels must be integers \(0 = tie\), got '1' \(item 1\)"):
        agreement([1, 2], read_as_text)
    with pytest.raises(ValueError, match=r"got '2' \(item 2\)"):
        agreement_without_ties([1, 2], [1, "2"])  # type: ignore[list-item]
    with pytest.raises(
        ValueError, match=r"verdicts must be integers \(0 = tie\) or None, got '1' \(item 1\)"
    ):
        agreement(read_as_text, [1, 2])
    with pytest.raises(ValueError, match=r"verdicts .* got '2' \(item 2\)"):
        consistency([1, 2], [1, "2"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"verdicts .* got True"):
        cohen_kappa([True, 2], [1, 2])
    with pytest.raises(ValueError, match=r"human labels .* got 1.5"):
        agreement_consistent([1, 2], [1, 2], [1, 1.5])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"human labels .* got nan"):
        confusion([1, 2], [1.0, float("nan")])  # type: ignore[list-item]
    # numbers that are classes count as before: numpy integers, whole floats (a pandas column)
    assert agreement(list(np.array([1, 2, 0])), [1.0, 2.0, 1.0]).hits == 2
    assert consistency([1, None], [1, 2]).hits == 1


def test_numpy_inputs_give_plain_numbers_that_json_writes() -> None:
    verdicts, labels = np.array([1, 2, 0, 1, 2]), np.array([1, 2, 1, 1, 0])
    rates = [
        agreement(verdicts, labels),
        agreement_without_ties(verdicts, labels),
        consistency(verdicts, verdicts[::-1]),
        agreement_consistent(verdicts, verdicts, labels),
    ]
    for rate in rates:
        assert all(type(v) is int for v in (rate.hits, rate.n, rate.missing, rate.excluded))
        assert rate.value is None or type(rate.value) is float
        json.dumps(rate.as_dict())
    assert type(cohen_kappa(verdicts, labels)) is float


def test_consistency_counts_none_as_inconsistent() -> None:
    first = [1, 2, 0, None, 1, 2]
    second = [1, 1, 0, 1, None, 2]
    assert consistency(first, second) == Rate(value=3 / 6, hits=3, n=6, missing=2)


def test_agreement_consistent_needs_both_orders_right() -> None:
    first = [1, 2, 0, None, 1, 2]
    second = [1, 1, 0, None, 1, 2]
    labels = [1, 1, 0, 2, 2, 2]
    # Items 0, 2 and 5 are consistent and right; 1 is inconsistent; 3 has no verdict; 4 is consistently wrong.
    assert agreement_consistent(first, second, labels) == Rate(value=3 / 6, hits=3, n=6, missing=1)


@pytest.mark.parametrize("seed", [0, 1])
def test_accuracy_order_avg_is_the_mean_of_the_two_accuracies(seed: int) -> None:
    first, labels = random_verdicts(seed)
    second, _ = random_verdicts(seed + 10)
    rate = accuracy_order_avg(first, second, labels)
    a, b = accuracy_score(labels, coded(first)), accuracy_score(labels, coded(second))
    assert rate.value == pytest.approx((a + b) / 2)
    assert rate.n == 2 * len(labels)
    assert rate.missing == first.count(None) + second.count(None)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_cohen_kappa_matches_sklearn(seed: int) -> None:
    verdicts, labels = random_verdicts(seed)
    assert cohen_kappa(verdicts, labels) == pytest.approx(cohen_kappa_score(labels, coded(verdicts)))


def test_cohen_kappa_hand_cases() -> None:
    assert cohen_kappa([1, 2, 1, 2], [1, 2, 1, 2]) == 1.0
    assert cohen_kappa([1, 1, 2, 2], [1, 2, 1, 2]) == 0.0
    # None is its own class: with labels all 1, a None verdict is a disagreement, not "undefined".
    assert cohen_kappa([1, None], [1, 1]) == pytest.approx(cohen_kappa_score([1, 1], [1, NONE_CLASS]))
    # One and the same class on both sides: chance agreement is 1 and kappa is undefined.
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) is None


@pytest.mark.parametrize("seed", [0, 1])
def test_confusion_matches_sklearn(seed: int) -> None:
    verdicts, labels = random_verdicts(seed)
    table = confusion(verdicts, labels)
    expected = confusion_matrix(labels, coded(verdicts), labels=[1, 2, 0, NONE_CLASS])
    got = [[table[row][col] for col in ("1", "2", "0", "none")] for row in ("1", "2", "0")]
    assert got == expected[:3].tolist()


def test_confusion_layout_and_unknown_classes() -> None:
    table = confusion([1, 2, None, 0], [1, 1, 2, 0])
    assert list(table) == ["1", "2", "0"]
    assert table["1"] == {"1": 1, "2": 1, "0": 0, "none": 0}
    assert table["2"]["none"] == 1
    with pytest.raises(ValueError, match="classes"):
        confusion([3], [1])
    with pytest.raises(ValueError, match="classes"):
        confusion([1], [3])


def test_by_group_applies_the_metric_per_group() -> None:
    verdicts, labels = random_verdicts(0, n=60)
    groups = ["writing", "math", "coding"] * 20
    rates = by_group(agreement, groups, verdicts, labels)
    assert list(rates) == ["writing", "math", "coding"]
    for name, rate in rates.items():
        indices = [i for i, g in enumerate(groups) if g == name]
        assert rate == agreement([verdicts[i] for i in indices], [labels[i] for i in indices])
    assert sum(rate.n for rate in rates.values()) == len(labels)


def test_by_group_checks_lengths() -> None:
    with pytest.raises(ValueError, match="same length"):
        by_group(agreement, ["a"], [1, 2], [1, 2])


def test_vote_agreement_hand_cases() -> None:
    judge = {"q1": 1, "q2": 0, "q3": None, "q4": 2}
    votes = [("q1", 1), ("q1", 2), ("q2", 0), ("q3", 1), ("q4", 0), ("unknown", 1)]
    # Ties are a class: q1 (1 of 2 votes) and q2 agree; q3 has no verdict; the unknown key is left out.
    assert vote_agreement(judge, votes) == Rate(value=2 / 5, hits=2, n=5, missing=1, excluded=1)
    # Without ties, q2 (both say tie) and q4 (the human says tie) are left out too.
    assert vote_agreement(judge, votes, ties=False) == Rate(value=1 / 3, hits=1, n=3, missing=1, excluded=3)
    assert vote_agreement({}, []) == Rate(value=None, hits=0, n=0)
