"""Closed-form intervals, checked against scipy."""

import pytest
from scipy import stats

from faceteval.metrics import mean_interval, wilson_interval


@pytest.mark.parametrize(("hits", "n"), [(0, 1), (0, 7), (3, 4), (7, 10), (280, 400), (400, 400)])
def test_the_wilson_interval_of_whole_hits_is_scipys(hits: int, n: int) -> None:
    expected = stats.binomtest(hits, n).proportion_ci(confidence_level=0.9, method="wilson")
    assert wilson_interval(hits, n, 0.9) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_fractional_hits_lie_between_their_whole_neighbours() -> None:
    middle, below, above = wilson_interval(7.5, 10), wilson_interval(7, 10), wilson_interval(8, 10)
    assert middle is not None and below is not None and above is not None
    assert below[0] < middle[0] < above[0]
    assert below[1] < middle[1] < above[1]


def test_no_trials_no_interval_and_impossible_hits_are_refused() -> None:
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError, match=r"within 0\.\.n"):
        wilson_interval(5, 4)
    with pytest.raises(ValueError, match="between 0 and 1"):
        wilson_interval(1, 4, level=95)


def test_the_mean_interval_is_students_t() -> None:
    values = [3.0, 4.0, 4.0, 5.0, 2.0, 4.0]
    sample = stats.describe(values)
    expected = stats.t.interval(0.95, len(values) - 1, loc=sample.mean, scale=stats.sem(values))
    assert mean_interval(sample.mean, sample.variance**0.5, len(values)) == pytest.approx(expected)
    assert mean_interval(2.0, 0.0, 5) == (2.0, 2.0)
    assert mean_interval(2.0, 0.0, 1) is None
