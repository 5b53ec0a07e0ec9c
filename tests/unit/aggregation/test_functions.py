import math

import pytest

from faceteval.aggregation import mean, normalise, ranks, verdict, weighted_sum


def test_weighted_sum_reproduces_the_papers_worked_example() -> None:
    # DnA-Eval Table 10, first example: six aspects with GPT-4's weights and scores.
    weights = [20, 20, 25, 10, 15, 10]
    response_1 = [7, 8, 10, 7, 7, 8]
    response_2 = [8, 7, 8, 8, 8, 8]
    overall = weighted_sum(list(zip(response_1, response_2, strict=True)), weights)
    assert overall == pytest.approx([8.05, 7.8])
    assert verdict(overall) == 1


def test_float_noise_does_not_break_ties() -> None:
    third = 1 / 3
    overall = weighted_sum([[8, 6], [6, 7], [7, 8]], [third, third, third])
    assert overall[0] == overall[1]
    assert verdict(overall) == 0


def test_mean_and_three_candidates() -> None:
    overall = mean([[8, 6, 9], [6, 6, 9], [7, 9, 3]])
    assert overall == [7.0, 7.0, 7.0]
    assert verdict([5.0, 8.0, 7.0]) == 2
    assert verdict([8.0, 8.0, 7.0]) == 0
    assert verdict([6.0]) is None
    assert ranks([5.0, 8.0, 7.0, 8.0]) == [4, 1, 3, 1]


@pytest.mark.parametrize("weights", [[0, 0], [-1, 2], [math.nan, 1]])
def test_normalise_rejects_impossible_weights(weights: list[float]) -> None:
    with pytest.raises(ValueError, match="weights"):
        normalise(weights)


def test_weighted_sum_requires_one_weight_per_facet() -> None:
    with pytest.raises(ValueError, match="2 facets but 3 weights"):
        weighted_sum([[1, 2], [3, 4]], [1, 1, 1])
