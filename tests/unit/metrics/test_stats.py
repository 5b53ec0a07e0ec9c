"""Bootstrap intervals and paired tests, checked against scipy.stats."""

import math

import numpy as np
import pytest
from scipy import stats

from faceteval.metrics import (
    Correlation,
    Rate,
    accuracy_order_avg,
    agreement,
    bootstrap_ci,
    correct,
    correlation,
    mcnemar_exact,
    paired_bootstrap,
    paired_correlation_test,
    permutation_test,
    with_ci,
)

RESAMPLES = 200


def mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def pearson(x: list[float], y: list[float]) -> float | None:
    return correlation(x, y).value


def pearson_difference(a: list[float], b: list[float], human: list[float]) -> float:
    return float(stats.pearsonr(b, human).statistic - stats.pearsonr(a, human).statistic)


def accuracy(verdicts: list[int | None], labels: list[int]) -> float | None:
    return agreement(verdicts, labels).value


def noisy(seed: int, n: int = 40) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return [float(v) for v in x], [float(v) for v in x + rng.normal(size=n)]


def test_bootstrap_ci_matches_scipy_percentile_interval() -> None:
    x, _ = noisy(0)
    expected = stats.bootstrap(
        (np.array(x),), np.mean, n_resamples=RESAMPLES, method="percentile", rng=np.random.default_rng(7)
    ).confidence_interval
    ci = bootstrap_ci(mean, x, n_resamples=RESAMPLES, seed=7)
    assert ci == pytest.approx((expected.low, expected.high))


def test_paired_bootstrap_ci_matches_scipy_paired() -> None:
    x, y = noisy(1)

    def r(a: np.ndarray, b: np.ndarray) -> float:
        return float(stats.pearsonr(a, b).statistic)

    expected = stats.bootstrap(
        (np.array(x), np.array(y)),
        r,
        paired=True,
        vectorized=False,
        n_resamples=RESAMPLES,
        confidence_level=0.9,
        method="percentile",
        rng=np.random.default_rng(3),
    ).confidence_interval
    ci = bootstrap_ci(pearson, x, y, n_resamples=RESAMPLES, level=0.9, seed=3)
    assert ci == pytest.approx((expected.low, expected.high))


def test_bootstrap_ci_on_degenerate_data_has_zero_width_and_no_warning() -> None:
    assert bootstrap_ci(mean, [0.7] * 20, n_resamples=RESAMPLES) == (0.7, 0.7)


@pytest.mark.parametrize(
    ("verdicts", "labels"),
    [([1] * 10, [1] * 10), ([2, 2, 2], [1, 1, 1]), ([None, 2, None], [1, 1, 2])],
)
def test_a_rate_whose_bootstrap_collapses_gets_the_exact_binomial_interval(
    verdicts: list[int | None], labels: list[int]
) -> None:
    rate = with_ci(agreement, verdicts, labels, n_resamples=RESAMPLES)
    expected = stats.binomtest(rate.hits, rate.n).proportion_ci(confidence_level=0.95, method="exact")
    assert rate.ci == pytest.approx((expected.low, expected.high))
    assert rate.ci_method == "clopper-pearson"
    assert rate.ci is not None and rate.ci[0] < rate.ci[1]  # all hits or all misses: not a point


def test_an_all_miss_rate_of_three_is_not_certain() -> None:
    rate = with_ci(agreement, [2, 2, 2], [1, 1, 1], n_resamples=RESAMPLES)
    assert (rate.value, rate.ci_method) == (0.0, "clopper-pearson")
    assert rate.ci == pytest.approx((0.0, 0.7076), abs=1e-4)
    mixed = with_ci(agreement, [1, 2, 1, 2], [1, 1, 1, 1], n_resamples=RESAMPLES)
    assert mixed.ci_method == "bootstrap" and mixed.ci is not None and mixed.ci[0] < mixed.ci[1]
    assert with_ci(agreement, [1], [1], n_resamples=RESAMPLES).ci_method is None  # one item: no CI


def test_the_exact_interval_of_a_rate_over_both_orders_counts_items_not_verdicts() -> None:
    # Five instances judged in both orders: ten verdicts, but five trials (the orders of one instance
    # are not independent), so the interval is that of 5/5, not the narrower one of 10/10.
    rate = with_ci(accuracy_order_avg, [1] * 5, [1] * 5, [1] * 5, n_resamples=RESAMPLES)
    assert (rate.hits, rate.n, rate.ci_method) == (10, 10, "clopper-pearson")
    expected = stats.binomtest(5, 5).proportion_ci(confidence_level=0.95, method="exact")
    assert rate.ci == pytest.approx((expected.low, expected.high))
    none = with_ci(accuracy_order_avg, [2] * 4, [2] * 4, [1] * 4, n_resamples=RESAMPLES)
    expected = stats.binomtest(0, 4).proportion_ci(confidence_level=0.95, method="exact")
    assert none.ci == pytest.approx((expected.low, expected.high))


def test_bootstrap_ci_drops_resamples_where_the_statistic_is_undefined() -> None:
    # Four points: many resamples repeat one point and have no correlation; scipy would warn.
    ci = bootstrap_ci(pearson, [1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0], n_resamples=RESAMPLES)
    assert ci is not None
    assert -1.0 <= ci[0] <= ci[1] <= 1.0


def test_bootstrap_ci_is_none_when_it_cannot_be_computed() -> None:
    assert bootstrap_ci(mean, [], n_resamples=RESAMPLES) is None
    assert bootstrap_ci(mean, [1.0], n_resamples=RESAMPLES) is None
    assert bootstrap_ci(pearson, [1.0, 1.0, 1.0], [1.0, 2.0, 3.0], n_resamples=RESAMPLES) is None
    with pytest.raises(ValueError, match="same length"):
        bootstrap_ci(pearson, [1.0, 2.0], [1.0], n_resamples=RESAMPLES)


def test_bootstrap_ci_is_reproducible_with_a_seed() -> None:
    x, _ = noisy(2)
    first = bootstrap_ci(mean, x, n_resamples=RESAMPLES, seed=1)
    assert bootstrap_ci(mean, x, n_resamples=RESAMPLES, seed=1) == first
    assert bootstrap_ci(mean, x, n_resamples=RESAMPLES, seed=2) != first


def test_with_ci_keeps_the_metric_and_adds_an_interval() -> None:
    rng = np.random.default_rng(4)
    labels = [int(v) for v in rng.choice([1, 2, 0], size=60)]
    verdicts: list[int | None] = [label if i % 3 else None for i, label in enumerate(labels)]
    rate = with_ci(agreement, verdicts, labels, n_resamples=RESAMPLES)
    assert isinstance(rate, Rate)
    assert (rate.value, rate.hits, rate.n, rate.missing) == (40 / 60, 40, 60, 20)
    assert rate.ci is not None
    assert rate.value is not None
    assert 0 <= rate.ci[0] < rate.value < rate.ci[1] <= 1
    assert rate.ci == bootstrap_ci(accuracy, verdicts, labels, n_resamples=RESAMPLES)

    x, y = noisy(5)
    result = with_ci(correlation, x, y, n_resamples=RESAMPLES)
    assert isinstance(result, Correlation)
    assert result.ci is not None
    assert result.value is not None
    assert result.ci[0] < result.value < result.ci[1]


def test_mcnemar_exact_against_scipy_binomtest_and_by_hand() -> None:
    # 10 items only B gets right, 2 only A: p = 2 * P(X <= 2 | n=12, 1/2) = 2 * (1 + 12 + 66) / 4096.
    correct_a = [True] * 5 + [False] * 10 + [True] * 2 + [False] * 3
    correct_b = [True] * 5 + [True] * 10 + [False] * 2 + [False] * 3
    test = mcnemar_exact(correct_a, correct_b)
    assert (test.b01, test.b10, test.n) == (10, 2, 20)
    assert test.p_value == pytest.approx(2 * 79 / 4096)
    assert test.p_value == pytest.approx(stats.binomtest(10, 12, 0.5).pvalue)
    assert test.difference == pytest.approx(sum(correct_b) / 20 - sum(correct_a) / 20)
    assert test.method == "mcnemar-exact"


def test_mcnemar_exact_edge_cases() -> None:
    same = mcnemar_exact([True, False], [True, False])
    assert (same.difference, same.p_value, same.b01, same.b10) == (0.0, 1.0, 0, 0)
    empty = mcnemar_exact([], [])
    assert (empty.difference, empty.p_value, empty.n) == (None, None, 0)
    # Built from verdicts with the None policy: a failed verdict is simply wrong.
    labels = [1, 2, 0]
    assert mcnemar_exact(correct([1, None, 0], labels), correct([1, 2, 0], labels)).b01 == 1


def test_permutation_test_matches_scipy() -> None:
    human, _ = noisy(6, n=30)
    rng = np.random.default_rng(16)
    run_a = [h + float(e) for h, e in zip(human, rng.normal(0, 1.0, size=30), strict=True)]
    run_b = [h + float(e) for h, e in zip(human, rng.normal(0, 0.5, size=30), strict=True)]

    def difference(a: np.ndarray, b: np.ndarray) -> float:
        return float(stats.pearsonr(b, human).statistic - stats.pearsonr(a, human).statistic)

    expected = stats.permutation_test(
        (np.array(run_a), np.array(run_b)),
        difference,
        permutation_type="samples",
        vectorized=False,
        n_resamples=RESAMPLES,
        rng=np.random.default_rng(0),
    )
    test = permutation_test(pearson, run_a, run_b, human, n_resamples=RESAMPLES)
    assert test.difference == pytest.approx(expected.statistic)
    assert test.p_value == pytest.approx(expected.pvalue)
    assert (test.n, test.method, test.ci) == (30, "permutation", None)


def test_permutation_test_on_verdicts_with_none() -> None:
    labels = [1, 2, 1, 2, 0, 1, 2, 1]
    run_a: list[int | None] = [1, None, 2, 2, 1, None, 1, 2]
    test = permutation_test(accuracy, run_a, labels, labels, n_resamples=2**8)  # all swaps: exact
    assert test.difference == pytest.approx(1 - 2 / 8)
    assert test.p_value is not None
    assert 0 < test.p_value < 0.05
    same = permutation_test(accuracy, labels, labels, labels, n_resamples=RESAMPLES)
    assert (same.difference, same.p_value) == (0.0, 1.0)


def test_paired_bootstrap_of_a_difference() -> None:
    human, _ = noisy(8, n=40)
    rng = np.random.default_rng(9)
    run_a = [h + float(e) for h, e in zip(human, rng.normal(0, 2.0, size=40), strict=True)]
    run_b = [h + float(e) for h, e in zip(human, rng.normal(0, 0.3, size=40), strict=True)]
    test = paired_bootstrap(pearson, run_a, run_b, human, n_resamples=RESAMPLES, seed=1)
    assert test.difference == pytest.approx(pearson_difference(run_a, run_b, human))
    assert test.ci is not None
    assert test.difference is not None
    assert 0 < test.ci[0] < test.difference < test.ci[1]
    assert test.p_value == pytest.approx(2 / (RESAMPLES + 1))  # no resample at or below 0
    assert test.ci == bootstrap_ci(
        pearson_difference,
        run_a,
        run_b,
        human,
        n_resamples=RESAMPLES,
        seed=1,
    )


def test_paired_tests_with_an_undefined_statistic() -> None:
    constant = [1.0, 1.0, 1.0]
    test = paired_bootstrap(pearson, constant, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], n_resamples=RESAMPLES)
    assert (test.difference, test.p_value, test.ci) == (None, None, None)
    test = permutation_test(pearson, constant, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], n_resamples=RESAMPLES)
    assert (test.difference, test.p_value) == (None, None)
    same = paired_bootstrap(accuracy, [1, 2, 1], [1, 2, 1], [1, 2, 2], n_resamples=RESAMPLES)
    assert (same.difference, same.ci, same.p_value) == (0.0, (0.0, 0.0), 1.0)


def test_paired_correlation_test_combines_permutation_and_bootstrap() -> None:
    human, _ = noisy(10, n=30)
    rng = np.random.default_rng(11)
    run_a = [h + float(e) for h, e in zip(human, rng.normal(0, 1.0, size=30), strict=True)]
    run_b = [h + float(e) for h, e in zip(human, rng.normal(0, 0.5, size=30), strict=True)]

    def spearman(x: list[float], y: list[float]) -> float | None:
        return correlation(x, y, "spearman").value

    test = paired_correlation_test(run_a, run_b, human, method="spearman", n_resamples=RESAMPLES, seed=2)
    permutation = permutation_test(spearman, run_a, run_b, human, n_resamples=RESAMPLES, seed=2)
    bootstrap = paired_bootstrap(spearman, run_a, run_b, human, n_resamples=RESAMPLES, seed=2)
    assert (test.difference, test.p_value, test.n) == (permutation.difference, permutation.p_value, 30)
    assert test.ci == bootstrap.ci
    assert test.method == "permutation+paired-bootstrap"


def test_paired_correlation_test_drops_items_missing_a_score() -> None:
    human = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    run_a: list[float | None] = [2.0, 1.0, None, 3.0, 6.0, 5.0, 7.0]
    run_b: list[float | None] = [1.0, 2.0, 3.0, 4.0, 5.0, math.nan, 7.0]
    test = paired_correlation_test(run_a, run_b, human, n_resamples=RESAMPLES)
    # Items 2 and 5 lack a score: the rest are compared.
    kept_human = [1.0, 2.0, 4.0, 5.0, 7.0]
    expected = pearson_difference([2.0, 1.0, 3.0, 6.0, 7.0], kept_human, kept_human)
    assert test.n == 5
    assert test.difference == pytest.approx(expected)


def test_a_rate_that_every_resample_puts_between_all_and_none_keeps_its_bootstrap_interval() -> None:
    # Right in one order and wrong in the other, every instance: 0.5 in every resample, but neither
    # all hits nor all misses, so no binomial interval is claimed for it.
    from faceteval.metrics import accuracy_order_avg, with_ci

    rate = with_ci(accuracy_order_avg, [1] * 5, [2] * 5, [1] * 5, n_resamples=200)
    assert (rate.value, rate.ci, rate.ci_method) == (0.5, (0.5, 0.5), "bootstrap")
