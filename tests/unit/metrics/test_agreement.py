"""Inter-rater agreement: Krippendorff's alpha (vs the krippendorff package) and mean pairwise Pearson."""

import itertools
import math

import krippendorff
import numpy as np
import pytest
from scipy import stats

from faceteval.metrics import AlphaLevel, average_pairwise_pearson, krippendorff_alpha

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders x 12 units.
KRIPPENDORFF_2011: list[list[float | None]] = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def random_ratings(seed: int, raters: int = 4, items: int = 40) -> list[list[float | None]]:
    """Raters scoring items on 1-5 around a shared truth, with about 15% missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=items)
    table = np.clip(truth + rng.integers(-1, 2, size=(raters, items)), 1, 5)
    missing = rng.random((raters, items)) < 0.15
    return [[None if missing[r, i] else float(table[r, i]) for i in range(items)] for r in range(raters)]


def as_array(ratings: list[list[float | None]]) -> np.ndarray:
    return np.array([[math.nan if v is None else v for v in row] for row in ratings], dtype=float)


@pytest.mark.parametrize(
    ("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)]
)
def test_alpha_reproduces_krippendorffs_worked_example(level: AlphaLevel, published: float) -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, level) == pytest.approx(published, abs=5e-4)


@pytest.mark.parametrize("level", ["interval", "ordinal", "nominal"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_matches_the_krippendorff_package(level: AlphaLevel, seed: int) -> None:
    ratings = random_ratings(seed)
    expected = krippendorff.alpha(reliability_data=as_array(ratings), level_of_measurement=level)
    assert krippendorff_alpha(ratings, level) == pytest.approx(expected)


def test_an_llm_is_one_more_rater() -> None:
    humans = random_ratings(3, raters=3)
    llm: list[float | None] = [5.0 if v is None else v for v in humans[0]]
    ratings = [*humans, llm]
    assert krippendorff_alpha(ratings) == pytest.approx(
        krippendorff.alpha(reliability_data=as_array(ratings), level_of_measurement="interval")
    )


def test_alpha_is_none_where_undefined() -> None:
    assert krippendorff_alpha([]) is None
    assert krippendorff_alpha([[], []]) is None
    assert krippendorff_alpha([[3, 3, 3], [3, 3, 3]]) is None  # no expected disagreement
    assert krippendorff_alpha([[1, 2, None], [None, None, 3]]) is None  # no item rated twice
    # Pairable items all agree on one value; the lone 3 cannot be paired (the package would divide by 0).
    assert krippendorff_alpha([[1, 1, None], [1, 1, 3]]) is None


def test_alpha_checks_shape() -> None:
    with pytest.raises(ValueError, match="same length"):
        krippendorff_alpha([[1, 2], [1]])


@pytest.mark.parametrize("seed", [0, 1])
def test_average_pairwise_pearson_matches_scipy(seed: int) -> None:
    ratings = random_ratings(seed)
    table = as_array(ratings)
    expected = []
    for a, b in itertools.combinations(range(len(ratings)), 2):
        both = ~np.isnan(table[a]) & ~np.isnan(table[b])
        expected.append(stats.pearsonr(table[a][both], table[b][both]).statistic)
    assert average_pairwise_pearson(ratings) == pytest.approx(float(np.mean(expected)))


def test_average_pairwise_pearson_skips_undefined_pairs() -> None:
    # Only the first and last raters correlate; the constant middle rater is left out.
    assert average_pairwise_pearson([[1, 2, 3], [2, 2, 2], [1, 3, 2]]) == pytest.approx(0.5)
    assert average_pairwise_pearson([[1, 2, 3]]) is None
    assert average_pairwise_pearson([]) is None
