"""Correlations of judge and human scores, checked against scipy.stats."""

import itertools
import math
from collections.abc import Sequence
from functools import partial

import numpy as np
import pytest
from scipy import stats

from faceteval.metrics import CorrelationMethod, by_group, correlation, summary_level, system_level

SCIPY = {
    "pearson": stats.pearsonr,
    "spearman": stats.spearmanr,
    "kendall": partial(stats.kendalltau, variant="b"),
}
METHODS: list[CorrelationMethod] = ["pearson", "spearman", "kendall"]


def scores(seed: int, n: int = 80) -> tuple[list[float], list[float]]:
    """Human scores on a 1-5 scale (many ties) and a noisy judge."""
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, size=n)
    judge = human + rng.normal(0, 1.5, size=n)
    return [float(v) for v in judge], [float(v) for v in human]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", [0, 1])
def test_correlation_matches_scipy(method: CorrelationMethod, seed: int) -> None:
    x, y = scores(seed)
    expected = SCIPY[method](x, y)
    result = correlation(x, y, method)
    assert result.value == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)
    assert (result.n, result.missing, result.method) == (len(x), 0, method)


def test_kendall_is_tau_b_on_tied_data() -> None:
    x, y = [1, 1, 2, 3, 3, 3], [1, 2, 2, 2, 3, 3]
    result = correlation(x, y, "kendall")
    assert result.value == pytest.approx(stats.kendalltau(x, y, variant="b").statistic)
    assert result.value != pytest.approx(stats.kendalltau(x, y, variant="c").statistic)


@pytest.mark.parametrize("method", METHODS)
def test_missing_pairs_are_dropped_and_counted(method: CorrelationMethod) -> None:
    x, y = scores(3, n=30)
    x_holes: list[float | None] = [None if i % 7 == 0 else v for i, v in enumerate(x)]
    y_holes: list[float | None] = [math.nan if i % 5 == 0 else v for i, v in enumerate(y)]
    kept = [i for i in range(30) if i % 7 and i % 5]
    expected = SCIPY[method]([x[i] for i in kept], [y[i] for i in kept])
    result = correlation(x_holes, y_holes, method)
    assert result.value == pytest.approx(expected.statistic)
    assert (result.n, result.missing) == (len(kept), 30 - len(kept))


def test_undefined_correlations_are_none_without_warnings() -> None:
    assert correlation([], []).value is None
    assert correlation([1.0], [2.0]).value is None
    assert correlation([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], "spearman").value is None
    assert correlation([1.0, 2.0, None], [3.0, 3.0, 4.0]).value is None
    two = correlation([1.0, 2.0], [1.0, 3.0], "spearman")
    assert two.value == pytest.approx(1.0)
    assert two.p_value is None  # scipy gives NaN for two points


def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="method"):
        correlation([1.0, 2.0], [1.0, 2.0], "cosine")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="same length"):
        correlation([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="same length"):
        summary_level([1.0, 2.0], [1.0, 2.0], ["a"])


@pytest.mark.parametrize("method", METHODS)
def test_summary_level_is_the_mean_of_per_group_correlations(method: CorrelationMethod) -> None:
    x, y = scores(4, n=60)
    groups = [i // 6 for i in range(60)]  # 10 documents, 6 summaries each
    x[:6] = [3.0] * 6  # document 0: the judge gives one score, so it is skipped
    per_group = [SCIPY[method](x[g * 6 : g * 6 + 6], y[g * 6 : g * 6 + 6]).statistic for g in range(1, 10)]
    result = summary_level(x, y, groups, method)
    assert result.value == pytest.approx(float(np.mean(per_group)))
    assert (result.n, result.skipped, result.p_value) == (9, 1, None)


def test_summary_level_with_no_defined_group() -> None:
    result = summary_level([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], ["a", "b", "c"])
    assert (result.value, result.n, result.skipped) == (None, 0, 3)


@pytest.mark.parametrize("method", METHODS)
def test_system_level_correlates_system_means(method: CorrelationMethod) -> None:
    x, y = scores(5, n=40)
    systems = [f"sys{i % 8}" for i in range(40)]
    x[0] = math.nan  # one missing judge score: the pair is dropped before the means
    judge_means = [np.mean([x[i] for i in range(40) if i % 8 == s and i != 0]) for s in range(8)]
    human_means = [np.mean([y[i] for i in range(40) if i % 8 == s and i != 0]) for s in range(8)]
    expected = SCIPY[method](judge_means, human_means)
    result = system_level(x, y, systems, method)
    assert result.value == pytest.approx(expected.statistic)
    exact = method == "spearman"  # eight systems: every pairing is tried
    assert result.p_value == pytest.approx(
        brute_spearman_p(judge_means, human_means) if exact else expected.pvalue
    )
    assert (result.n, result.missing) == (8, 1)


def test_by_group_works_with_correlations() -> None:
    x, y = scores(6, n=40)
    groups = ["a", "b"] * 20
    results = by_group(partial(correlation, method="spearman"), groups, x, y)
    assert results["a"] == correlation(x[0::2], y[0::2], "spearman")
    assert results["b"] == correlation(x[1::2], y[1::2], "spearman")


def brute_spearman_p(x: Sequence[float], y: Sequence[float]) -> float:
    """Two-sided exact p of Spearman's rho: the share of all orderings of y at least as correlated."""
    observed = abs(stats.spearmanr(x, y).statistic)
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rhos = [abs(np.corrcoef(rx, ry[list(p)])[0, 1]) for p in itertools.permutations(range(len(y)))]
    return sum(rho >= observed - 1e-12 for rho in rhos) / len(rhos)


def test_spearman_on_a_few_pairs_has_an_exact_p_value() -> None:
    # A perfect rank order of four systems: 2 of the 24 orderings are as extreme, so p = 1/12, not
    # the 0 of scipy's t approximation.
    perfect = correlation([1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 5.0, 9.0], "spearman")
    assert (perfect.value, perfect.p_value) == (pytest.approx(1.0), pytest.approx(1 / 12))
    assert stats.spearmanr([1, 2, 3, 4], [2, 3, 5, 9]).pvalue == pytest.approx(0.0)
    x, y = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0], [2.0, 6.0, 5.0, 3.0, 5.0, 8.0]  # ties on both sides
    result = correlation(x, y, "spearman")
    assert result.p_value == pytest.approx(brute_spearman_p(x, y))
    nine = scores(4, n=9)  # from nine pairs on, scipy's
    assert correlation(*nine, "spearman").p_value == pytest.approx(stats.spearmanr(*nine).pvalue)


def test_coefficients_of_groups_and_resamples_compute_no_p_value(monkeypatch: pytest.MonkeyPatch) -> None:
    from faceteval.metrics import _pointwise

    def exact(*args: object) -> float:
        raise AssertionError("an exact p-value was computed, and thrown away")

    monkeypatch.setattr(_pointwise, "_exact_spearman_p", exact)
    x, y = [1.0, 2.0, 3.0, 4.0] * 2, [1.0, 3.0, 2.0, 4.0] * 2
    groups = ["a"] * 4 + ["b"] * 4
    assert _pointwise.group_coefficients(x, y, groups, "spearman") == pytest.approx([0.8, 0.8])
    assert summary_level(x, y, groups, "spearman").value == pytest.approx(0.8)
