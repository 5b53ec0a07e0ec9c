"""The labelling queue: each order ranks a run's items as it says, ties at random, the same for a seed."""

from __future__ import annotations

from typing import Any

import pytest

from faceteval.core import Judgment, OrderResult, PanelMember
from faceteval.review._queue import disagreement, queue_key, ranked, sampling_of

CONFIDENCES = {"i0": 0.9, "i1": None, "i2": 0.2, "i3": 0.2, "i4": 0.5, "i5": 0.9}


def judgment(item_id: str, **fields: Any) -> Judgment:
    return Judgment(id=item_id, method="direct", status="ok", verdict=1, **fields)


def queue(judgments: list[Judgment], ordering: Any, seed: int = 0) -> list[str]:
    ranks = ranked([(j.id, queue_key(j, ordering)) for j in judgments], ordering, seed)
    return sorted(ranks, key=ranks.__getitem__)


def sure(seed: int) -> list[str]:
    return queue([judgment(i, confidence=c) for i, c in CONFIDENCES.items()], "uncertainty", seed)


def test_input_order_is_the_runs_whatever_the_seed() -> None:
    judgments = [judgment(i, confidence=c) for i, c in CONFIDENCES.items()]
    assert queue(judgments, "input", 0) == queue(judgments, "input", 7) == list(CONFIDENCES)


def test_uncertainty_puts_the_least_confident_first_a_judgment_without_one_before_all() -> None:
    for seed in range(10):
        order = sure(seed)
        assert order[0] == "i1"  # no confidence: the least sure
        assert set(order[1:3]) == {"i2", "i3"} and order[3] == "i4" and set(order[4:]) == {"i0", "i5"}


def test_uncertainty_breaks_ties_at_random_the_same_for_one_seed() -> None:
    assert sure(3) == sure(3)
    tie_orders = {tuple(sure(seed)[1:3]) for seed in range(20)}
    assert tie_orders == {("i2", "i3"), ("i3", "i2")}  # not the run's order every time


def test_disagreement_measures_orders_and_panel_members_against_their_majority() -> None:
    swapped = [OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=2)]
    panel = [PanelMember(judge=name, status="ok", verdict=v) for name, v in (("a", 1), ("b", 1), ("c", 2))]
    failed = PanelMember(judge="d", status="error", error="down")
    assert disagreement(judgment("x")) == 0
    assert disagreement(judgment("x", orders=swapped, consistent=False)) == 0.5
    assert disagreement(judgment("x", consistent=False)) == 0.5  # inconsistent, orders not kept
    assert disagreement(judgment("x", panel=[*panel, failed])) == pytest.approx(1 / 3)
    both = judgment("x", orders=swapped, consistent=False, panel=panel)
    assert disagreement(both) == pytest.approx(0.5 + 1 / 3)
    scored = [PanelMember(judge=n, status="ok", scores=[s]) for n, s in (("a", 4), ("b", 2))]
    assert disagreement(judgment("x", panel=scored)) == 0.5  # one output: members' scores are the votes


def test_disagreement_puts_the_most_disagreeing_first_ties_at_random() -> None:
    swapped = [OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=2)]
    split = [PanelMember(judge=n, status="ok", verdict=v) for n, v in (("a", 1), ("b", 2), ("c", 2))]
    judgments = [
        judgment("calm"),
        judgment("swapped", orders=swapped, consistent=False),
        judgment("both", orders=swapped, consistent=False, panel=split),
        judgment("also-calm"),
        judgment("panel", panel=split),
    ]
    orders = [queue(judgments, "disagreement", seed) for seed in range(20)]
    for order in orders:
        assert order[:3] == ["both", "swapped", "panel"] and set(order[3:]) == {"calm", "also-calm"}
    assert {tuple(order[3:]) for order in orders} == {("calm", "also-calm"), ("also-calm", "calm")}
    assert queue(judgments, "disagreement", 5) == queue(judgments, "disagreement", 5)


def test_random_is_a_seeded_shuffle() -> None:
    judgments = [judgment(f"i{k}") for k in range(30)]
    ids = [j.id for j in judgments]
    shuffled = queue(judgments, "random", 1)
    assert sorted(shuffled) == sorted(ids) and shuffled != ids
    assert queue(judgments, "random", 1) == shuffled
    assert queue(judgments, "random", 2) != shuffled


def test_each_order_is_a_sampling_of_the_labels_file() -> None:
    assert [sampling_of(o) for o in ("input", None, "random", "uncertainty", "disagreement")] == [
        None,
        None,
        "random",
        "uncertainty",
        "disagreement",
    ]
