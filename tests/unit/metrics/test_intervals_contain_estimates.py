"""Every interval a metric reports contains the estimate it is reported with: over many random inputs,
over degenerate ones (constant sides, perfect and reversed orders, two or three items, one system,
verdicts all missing), and on SummEval's system level as meta-evaluation computes it."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from faceteval import metrics
from faceteval.metaeval import Settings, correlation_levels

METHODS = ("pearson", "spearman", "kendall")
RESAMPLES = 200


def contains(
    ci: tuple[float, float] | list[float] | None, value: float | None, low: float, high: float
) -> bool:
    """Whether ``ci`` (if any) holds ``value`` and lies within ``[low, high]``."""
    if ci is None:
        return True
    assert value is not None, "an interval without an estimate"
    return low <= ci[0] <= value <= ci[1] <= high


def scores(rng: np.random.Generator, n: int, kind: str) -> tuple[list[float], list[float]]:
    """Judge and human scores of ``n`` items, of one of several shapes."""
    x = rng.integers(1, 6, n).astype(float)
    if kind == "noisy":
        y = x + rng.normal(0, rng.uniform(0.1, 3), n)
    elif kind == "likert":
        y = np.clip(x + rng.integers(-1, 2, n), 1, 5)
    elif kind == "perfect":
        y = 2 * x + 1
    elif kind == "reversed":
        y = -x
    elif kind == "constant":
        y = np.full(n, 3.0)
    elif kind == "near-perfect":  # the human mean, rounded up to whole points
        y = x + rng.uniform(-0.99, 0, n)
    else:
        y = rng.normal(size=n)
    return x.tolist(), y.tolist()


KINDS = ("noisy", "likert", "perfect", "reversed", "constant", "near-perfect", "independent")


def cases(count: int) -> Iterator[tuple[int, str, int]]:
    for seed in range(count):
        rng = np.random.default_rng(seed)
        yield seed, KINDS[seed % len(KINDS)], int(rng.choice([2, 3, 4, 5, 6, 9, 16, 40]))


@pytest.mark.parametrize(("seed", "kind", "n"), list(cases(140)))
def test_item_level_correlation_intervals_contain_their_coefficient(seed: int, kind: str, n: int) -> None:
    x, y = scores(np.random.default_rng(seed), n, kind)
    for method in METHODS:
        result = metrics.correlation_with_ci(x, y, method, level=0.95)
        assert contains(result.ci, result.value, -1, 1), (method, result)
        generic = metrics.with_ci(
            partial(metrics.correlation, method=method), x, y, n_resamples=RESAMPLES, seed=seed
        )
        assert contains(generic.ci, generic.value, -1, 1), (method, generic)


@pytest.mark.parametrize(("seed", "kind", "n"), list(cases(140)))
def test_summary_and_system_level_intervals_contain_their_coefficient(seed: int, kind: str, n: int) -> None:
    rng = np.random.default_rng(seed)
    documents, systems = max(1, n // 3), int(rng.integers(1, 7))
    judge, human, docs, names = [], [], [], []
    for d in range(documents):
        x, y = scores(rng, systems, kind)
        judge += [a + 0.3 * s for s, a in enumerate(x)]  # better systems score higher, on both sides
        human += [b + 0.3 * s for s, b in enumerate(y)]
        docs += [f"d{d}"] * systems
        names += [f"s{s}" for s in range(systems)]
    for method in METHODS:
        summary = metrics.summary_level_with_ci(judge, human, docs, method, n_resamples=RESAMPLES, seed=seed)
        assert contains(summary.ci, summary.value, -1, 1), (method, summary)
        system = metrics.system_level_with_ci(
            judge, human, names, method, clusters=docs, n_resamples=RESAMPLES, seed=seed
        )
        assert contains(system.ci, system.value, -1, 1), (method, system)


RATES: dict[str, Callable[..., metrics.Rate]] = {
    "verdicts, labels": metrics.agreement,
    "verdicts, labels without ties": metrics.agreement_without_ties,
    "first, second": metrics.consistency,
    "first, second, labels": metrics.agreement_consistent,
    "first, second, labels (both orders)": metrics.accuracy_order_avg,
}


@pytest.mark.parametrize("seed", range(120))
def test_rate_intervals_contain_their_rate(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([2, 3, 5, 10, 40]))
    none_share = [0.0, 0.3, 1.0][seed % 3]
    labels = rng.integers(0, 3, n).tolist()

    def verdicts() -> list[int | None]:
        return [None if rng.random() < none_share else int(v) for v in rng.integers(0, 3, n)]

    first, second = verdicts(), verdicts()
    for name, metric in RATES.items():
        columns = {2: (first, labels), 3: (first, second, labels)}[len(name.split(","))]
        if name == "first, second":
            columns = (first, second)
        rate = metrics.with_ci(metric, *columns, n_resamples=RESAMPLES, seed=seed)
        assert contains(rate.ci, rate.value, 0, 1), (name, rate)


@pytest.mark.parametrize("seed", range(60))
def test_closed_form_intervals_contain_their_estimate(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 500))
    hits = float(rng.integers(0, n + 1)) - (0.5 if seed % 2 and n > 1 else 0.0)
    hits = max(hits, 0.0)
    assert contains(metrics.wilson_interval(hits, n), hits / n, 0, 1)
    whole = int(hits)
    assert contains(metrics.binomial_interval(whole, n), whole / n, 0, 1)
    mean, sd = float(rng.normal()), float(rng.choice([0.0, rng.uniform(0, 3)]))
    interval = metrics.mean_interval(mean, sd, n)
    assert interval is None or interval[0] <= mean <= interval[1]
    r = float(rng.choice([rng.uniform(-1, 1), 0.9999999, -0.9999999, 0.0]))
    for method in METHODS:
        se = metrics.fisher_se(r, n, method)
        assert se is None or contains(metrics.fisher_interval(r, se), r, -1, 1)
    assert contains(metrics.fisher_interval(r, float(rng.uniform(0, 50))), r, -1, 1)
    assert contains(metrics.fisher_interval(r, 0.0), r, -1, 1)


def test_degenerate_inputs_give_an_interval_that_holds_the_estimate_or_none() -> None:
    assert (
        metrics.correlation_with_ci([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 6.0, 8.0, 10.0]).ci is None
    )  # r = 1
    assert metrics.correlation_with_ci([1.0, 2.0, 3.0], [3.0, 1.0, 2.0]).ci is None  # three pairs
    assert metrics.correlation_with_ci([1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0]).ci is None
    one_system = metrics.system_level_with_ci([1, 2, 3], [1, 3, 2], ["a"] * 3, clusters=["d", "e", "f"])
    assert one_system.value is None and one_system.ci is None
    one_group = metrics.summary_level_with_ci([1, 2, 3], [1, 3, 2], ["d"] * 3)
    assert one_group.value == pytest.approx(0.5) and one_group.ci is None
    same = metrics.summary_level_with_ci([1, 2, 3, 1, 2, 3], [1, 3, 2, 1, 3, 2], ["d"] * 3 + ["e"] * 3)
    assert same.ci == (same.value, same.value)
    nothing = metrics.with_ci(metrics.agreement, [None, None, None], [1, 2, 0])
    assert nothing.value == 0.0 and contains(nothing.ci, 0.0, 0, 1) and nothing.ci_method == "clopper-pearson"


@pytest.fixture(scope="module")
def summeval() -> list[dict[str, Any]]:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    path = Path(value) / "summeval" / "summeval.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_summeval_system_level_intervals_contain_their_coefficient(summeval: list[dict[str, Any]]) -> None:
    """A judge that scores coherence on SummEval's whole-point scale (the experts' mean rounded up),
    against the experts: 16 systems over 100 articles, the inputs resampled as meta-evaluation does.
    Its system-level Pearson is 0.9995; the percentile interval of the resamples, [0.9973, 0.9994],
    and BCa's, [0.99957, 0.99971], both leave it out."""
    judge = [float(math.ceil(row["coherence"])) for row in summeval]
    human = [row["coherence"] for row in summeval]
    groups = [row["article_id"] for row in summeval]
    systems = [row["summary_id"] for row in summeval]
    levels = correlation_levels(judge, human, groups, systems, Settings())
    assert levels["system"]["pearson"]["value"] == pytest.approx(0.9995166427272153, abs=1e-12)
    for level, by_method in levels.items():
        for method, result in by_method.items():
            assert result["ci"] is not None, (level, method)
            assert contains(result["ci"], result["value"], -1, 1), (level, method, result)
    low, high = levels["system"]["pearson"]["ci"]
    assert low < 0.9973 and high > 0.9995
