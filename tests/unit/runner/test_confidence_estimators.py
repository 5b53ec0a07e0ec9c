"""The arithmetic behind ``verdict-logprobs`` and the draw behind ``simulated-annotators``."""

from __future__ import annotations

import itertools
import math

import pytest

from faceteval._runner._annotators import Annotators, examples_for
from faceteval._runner._verdict_logprobs import probability_of
from faceteval.core import Instance
from faceteval.errors import InstanceError


def brute_force(verdict: int, distributions: list[dict[float, float]]) -> float:
    """The verdict's probability over every joint outcome (a shared top split evenly; a tie: shared)."""
    total = 0.0
    for outcome in itertools.product(*(d.items() for d in distributions)):
        p = math.prod(q for _, q in outcome)
        values = [v for v, _ in outcome]
        top = [m + 1 for m, v in enumerate(values) if v == max(values)]
        total += p * ((len(top) > 1) if verdict == 0 else (verdict in top) / len(top))
    return total


@pytest.mark.parametrize(
    ("verdict", "distributions", "expected"),
    [
        (1, [{8: 1.0}, {7: 1.0}], 1.0),
        (2, [{8: 1.0}, {7: 1.0}], 0.0),
        (1, [{8: 1.0}, {8: 1.0}], 0.5),
        (0, [{8: 1.0}, {8: 1.0}], 1.0),
        (1, [{7: 0.3, 8: 0.6, 9: 0.1}, {7: 0.5, 8: 0.5}], 0.625),
        (0, [{7: 0.3, 8: 0.6, 9: 0.1}, {7: 0.5, 8: 0.5}], 0.45),
        (1, [{8: 0.5, 9: 0.5}, {8: 1.0}, {7: 0.5, 8: 0.5}], 17 / 24),
    ],
)
def test_hand_computed_probabilities(
    verdict: int, distributions: list[dict[float, float]], expected: float
) -> None:
    assert probability_of(verdict, distributions) == pytest.approx(expected)


def test_the_probabilities_of_the_winners_sum_to_one_and_match_every_outcome() -> None:
    shapes = [
        [{1: 0.2, 5: 0.3, 9: 0.5}, {5: 0.6, 9: 0.4}],
        [{3: 0.1, 4: 0.9}, {4: 0.5, 6: 0.5}, {1: 0.25, 4: 0.25, 6: 0.5}],
        [{2: 1.0}, {2: 0.5, 3: 0.5}, {2: 0.3, 3: 0.7}, {1: 1.0}],
    ]
    for distributions in shapes:
        winners = [probability_of(m, distributions) for m in range(1, len(distributions) + 1)]
        assert math.fsum(winners) == pytest.approx(1.0)
        for verdict in range(len(distributions) + 1):
            assert probability_of(verdict, distributions) == pytest.approx(
                brute_force(verdict, distributions)
            )


def pool(n: int) -> list[Instance]:
    return [Instance(id=f"s{i}", query=f"q{i}", candidates=["a", "b"], label=1 + i % 2) for i in range(n)]


@pytest.mark.parametrize(
    ("size", "k", "m"), [(3, 3, 1), (4, 3, 2), (7, 3, 2), (10, 5, 2), (5, 2, 4), (12, 4, 3)]
)
def test_each_annotator_draws_its_own_examples_never_the_instance(size: int, k: int, m: int) -> None:
    shots = pool(size)
    annotators = Annotators(k=k, per_annotator=m, shots=shots)
    for judged in [shots[0], shots[-1], Instance(id="other", query="q0", candidates=["a", "b"])]:
        drawn = examples_for(judged, shots, annotators)
        assert len(drawn) == k
        for examples in drawn:
            assert len(examples) == m == len({e.id for e in examples})
            assert all(e.id != judged.id and e.content_hash() != judged.content_hash() for e in examples)
        sets = {frozenset(e.id for e in examples) for examples in drawn}
        if size - 1 > m and size - 1 >= k:
            assert len(sets) == k  # different examples for every annotator
        if size - 1 >= k * m:
            assert len({e.id for examples in drawn for e in examples}) == k * m  # disjoint
        assert drawn == examples_for(judged, shots, annotators)  # the same draw again


def test_too_few_examples_once_the_instance_is_left_out_fail_that_instance() -> None:
    shots = pool(2)
    with pytest.raises(InstanceError, match="1 labelled example\\(s\\) other than instance 's0'"):
        examples_for(shots[0], shots, Annotators(k=3, per_annotator=2, shots=shots))
