"""Bulk correlations for the bootstrap, and CIs at the item, summary and system level.

Every coefficient computed in bulk is checked against scipy.stats on the same rows; every interval
against its formula written out (Fisher's z, Student's t) and scipy's where it has one, the system
level's standard error against a plain loop that resamples the way the docstring says and calls the
metric itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from faceteval.metrics import (
    correlation_with_ci,
    summary_level,
    summary_level_with_ci,
    system_level,
    system_level_with_ci,
)
from faceteval.metrics._rowwise import rowwise_correlation

SCIPY = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


def scipy_rows(x: np.ndarray, y: np.ndarray, method: str) -> np.ndarray:
    return np.array(
        [
            math.nan if len(set(a)) == 1 or len(set(b)) == 1 else SCIPY[method](a, b).statistic
            for a, b in zip(x, y, strict=True)
        ]
    )


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize(
    ("items", "levels"),
    [(4, 3), (40, 5), (300, 5), (50, 10_000), (100, 10_000)],
    ids=["tiny", "likert", "likert-many-items", "continuous", "continuous-many-items"],
)
def test_bulk_coefficients_equal_scipys(method: str, items: int, levels: int) -> None:
    rng = np.random.default_rng(items)
    x = rng.integers(1, levels + 1, (40, items)).astype(float)
    y = x + rng.integers(-2, 3, (40, items))
    x[0] = 3.0  # a constant row: undefined, NaN
    got = rowwise_correlation(x, y, method)
    np.testing.assert_allclose(got, scipy_rows(x, y, method), atol=1e-12)
    assert math.isnan(got[0])


def fisher(r: float, se: float, level: float = 0.95) -> tuple[float, float]:
    """Fisher's z interval, written out."""
    z = stats.norm.ppf(0.5 + level / 2)
    return math.tanh(math.atanh(r) - z * se), math.tanh(math.atanh(r) + z * se)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_item_level_interval_is_fisher_z_and_pearsons_is_scipys(method: str) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(1, 6, 60).astype(float).tolist()
    y = [a + rng.normal() for a in x]
    result = correlation_with_ci(x, y, method, level=0.9)  # type: ignore[arg-type]
    assert result.value == pytest.approx(SCIPY[method](x, y).statistic) and result.ci_method == "fisher-z"
    r, n = result.value, 60
    se = {"pearson": 1 / math.sqrt(n - 3), "spearman": math.sqrt((1 + r * r / 2) / (n - 3))}
    assert result.ci == pytest.approx(fisher(r, se.get(method, math.sqrt(0.437 / (n - 4))), 0.9))
    if method == "pearson":
        expected = stats.pearsonr(x, y).confidence_interval(confidence_level=0.9)
        assert result.ci == pytest.approx((expected.low, expected.high), abs=1e-12)


def documents(n_docs: int = 12, n_systems: int = 5) -> tuple[list[float], list[float], list[str], list[str]]:
    rng = np.random.default_rng(7)
    judge, human, docs, systems = [], [], [], []
    for d in range(n_docs):
        for s in range(n_systems):
            quality = s + rng.normal()
            human.append(round(quality, 1))
            judge.append(float(min(5, max(1, round(quality + rng.normal())))))
            docs.append(f"doc{d}")
            systems.append(f"sys{s}")
    return judge, human, docs, systems


def test_summary_level_interval_is_students_t_over_documents() -> None:
    judge, human, docs, _ = documents()
    result = summary_level_with_ci(judge, human, docs, "spearman", n_resamples=300, seed=1)
    assert result.value == summary_level(judge, human, docs, "spearman").value
    per_document = [
        stats.spearmanr(
            [j for j, d in zip(judge, docs, strict=True) if d == doc],
            [h for h, d in zip(human, docs, strict=True) if d == doc],
        ).statistic
        for doc in dict.fromkeys(docs)
    ]
    assert result.value == pytest.approx(float(np.mean(per_document)))
    # the Student's t interval of the mean of the documents' coefficients
    expected = stats.t.interval(0.95, len(per_document) - 1, loc=result.value, scale=stats.sem(per_document))
    assert result.ci == pytest.approx(expected) and result.ci_method == "t"


def test_system_level_interval_resamples_documents_with_all_their_systems() -> None:
    judge, human, docs, systems = documents()
    result = system_level_with_ci(judge, human, systems, "pearson", clusters=docs, n_resamples=300, seed=2)
    assert result.value == system_level(judge, human, systems, "pearson").value and result.n == 5
    names = list(dict.fromkeys(docs))
    drawn = np.random.default_rng(2).integers(0, len(names), (300, len(names)))
    loop = []
    for row in drawn:
        picked = [names[i] for i in row]
        rows = [
            (j, h, s)
            for doc in picked
            for j, h, s, d in zip(judge, human, systems, docs, strict=True)
            if d == doc
        ]
        loop.append(system_level([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]).value)
    # Fisher's z around the coefficient, its standard error (delta method) from the resamples' spread
    resampled = [v for v in loop if v is not None]
    r = result.value
    assert r is not None and result.ci_method == "fisher-z"
    assert result.ci == pytest.approx(fisher(r, float(np.std(resampled, ddof=1)) / (1 - r * r)))


def test_too_little_to_resample_leaves_the_interval_out() -> None:
    assert correlation_with_ci([1.0], [2.0]).ci is None
    one_document = system_level_with_ci([1, 2, 3], [1, 3, 2], ["a", "b", "c"], clusters=["d", "d", "d"])
    assert one_document.value is not None and one_document.ci is None
