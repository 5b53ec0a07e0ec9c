"""Bulk correlations for the bootstrap, and CIs at the item, summary and system level.

Every coefficient computed in bulk is checked against scipy.stats on the same rows; every interval
against a plain loop that resamples the way the docstring says and calls the metric itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from faceteval.metrics import (
    correlation,
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


def percentile(values: list[float]) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def test_item_level_interval_resamples_pairs() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(1, 6, 60).astype(float).tolist()
    y = [a + rng.normal() for a in x]
    result = correlation_with_ci(x, y, "kendall", n_resamples=300, seed=4)
    assert result.value == pytest.approx(stats.kendalltau(x, y).statistic)
    drawn = np.random.default_rng(4).integers(0, 60, (300, 60))
    loop = [correlation([x[i] for i in row], [y[i] for i in row], "kendall").value for row in drawn]
    assert result.ci == pytest.approx(percentile([v for v in loop if v is not None]))


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


def test_summary_level_interval_resamples_documents() -> None:
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
    low, high = result.ci
    assert min(per_document) <= low < result.value < high <= max(per_document)


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
    assert result.ci == pytest.approx(percentile([v for v in loop if v is not None]))


def test_too_little_to_resample_leaves_the_interval_out() -> None:
    assert correlation_with_ci([1.0], [2.0]).ci is None
    one_document = system_level_with_ci([1, 2, 3], [1, 3, 2], ["a", "b", "c"], clusters=["d", "d", "d"])
    assert one_document.value is not None and one_document.ci is None
