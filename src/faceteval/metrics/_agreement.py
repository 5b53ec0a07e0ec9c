"""Agreement among several raters (an LLM judge can be one of them): Krippendorff's alpha and mean Pearson."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from faceteval.metrics._checks import check_lengths
from faceteval.metrics._pointwise import Score, correlation

AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]


def _as_matrix(ratings: Sequence[Sequence[Score]]) -> NDArray[np.float64]:
    """Raters x items as floats, None becoming NaN."""
    check_lengths(*ratings)
    return np.array([[math.nan if r is None else r for r in row] for row in ratings], dtype=np.float64)


def krippendorff_alpha(ratings: Sequence[Sequence[Score]], level: AlphaLevel = "interval") -> float | None:
    """Krippendorff's alpha of a raters x items table (a wrapper over the ``krippendorff`` package).

    Args:
        ratings: ``ratings[r][i]`` is rater r's score of item i; None or NaN where r did not rate i.
        level: The level of measurement, which sets the distance between two values.

    Only items rated by at least two raters enter alpha. It is None (undefined) when there is no such
    item, or when all their ratings are one and the same value (no expected disagreement).

    Examples:
        >>> krippendorff_alpha([[1, 2, 3, None], [1, 2, 3, 4]])
        1.0
        >>> krippendorff_alpha([[3, 3], [3, 3]]) is None
        True
    """
    matrix = _as_matrix(ratings)
    if matrix.size == 0:
        return None
    pairable = matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]
    if np.unique(pairable[~np.isnan(pairable)]).size < 2:
        return None
    import krippendorff

    return float(krippendorff.alpha(reliability_data=pairable, level_of_measurement=level))


def average_pairwise_pearson(ratings: Sequence[Sequence[Score]]) -> float | None:
    """The mean Pearson correlation over all pairs of raters, each over the items both rated.

    Rater pairs whose correlation is undefined (a constant side, fewer than two shared items) are
    left out of the mean; None when no pair is left.

    Examples:
        >>> round(average_pairwise_pearson([[1, 2, 3], [1, 2, 3], [3, 2, 1]]), 6)
        -0.333333
    """
    check_lengths(*ratings)
    pairs = [correlation(a, b, "pearson").value for a, b in itertools.combinations(ratings, 2)]
    defined = [value for value in pairs if value is not None]
    return math.fsum(defined) / len(defined) if defined else None
