"""A bootstrap draws its resamples a block at a time: its memory does not grow with items x resamples, and
its interval is the one a single draw of every resample gives."""

from __future__ import annotations

import random
import tracemalloc

import numpy as np

from faceteval import metrics
from faceteval.metrics import _stats


def test_a_rates_bootstrap_holds_one_block_of_resamples_and_draws_the_same_interval() -> None:
    rng = random.Random(5)
    n = 20_000
    verdicts = [rng.choice([0, 1, 2, None]) for _ in range(n)]
    labels = [rng.choice([0, 1, 2]) for _ in range(n)]
    tracemalloc.start()
    try:
        rate = metrics.with_ci(metrics.agreement, verdicts, labels, n_resamples=1000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    whole = 1000 * n * 8  # the indices of every resample, drawn at once
    assert peak < whole / 2, f"peak {peak / 2**20:.0f} MB"

    hits = np.array([metrics.agreement([v], [label]).hits for v, label in zip(verdicts, labels, strict=True)])
    counted = np.array([metrics.agreement([v], [label]).n for v, label in zip(verdicts, labels, strict=True)])
    picks = np.random.default_rng(0).integers(0, n, (1000, n))
    distribution = hits[picks].sum(axis=1) / counted[picks].sum(axis=1)
    assert rate.ci == _stats._percentile_interval(distribution, 0.95)
