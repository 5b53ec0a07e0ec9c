"""Prediction-powered means: against ppi_py called directly, against the classical PPI estimator
computed by hand, and a coverage simulation in which a biased judge's own interval misses."""

from __future__ import annotations

import math
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest
from scipy.stats import norm

from faceteval.errors import ConfigError
from faceteval.metrics import (
    human_mean,
    labels_for_guarantee,
    labels_for_width,
    prediction_powered_mean,
    wilson_interval,
)

with warnings.catch_warnings():  # it silences every warning of the process on import
    import ppi_py


def _biased_run(
    rng: random.Random, n: int, truth_rate: float, flips: float
) -> tuple[list[float], list[float]]:
    """Humans' outcomes for the first candidate, and a judge's that gives it the win on ``flips`` of
    the items it lost (a position bias)."""
    humans = [1.0 if rng.random() < truth_rate else 0.0 for _ in range(n)]
    judged = [1.0 if h == 1.0 or rng.random() < flips else 0.0 for h in humans]
    return humans, judged


def test_the_estimate_is_ppi_pys_own():
    rng = random.Random(3)
    humans, judged = _biased_run(rng, 600, 0.4, 0.3)
    labels, predicted, rest = humans[:80], judged[:80], judged[80:]
    estimate = prediction_powered_mean(labels, predicted, rest, level=0.9)
    y, y_hat, y_rest = (np.array(a) for a in (labels, predicted, rest))
    low, high = ppi_py.ppi_mean_ci(y, y_hat, y_rest, alpha=0.1)
    assert estimate.value == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, y_hat, y_rest)[0]))
    assert estimate.ci == pytest.approx((float(low[0]), float(high[0])))
    assert (estimate.labels, estimate.unlabelled, estimate.method) == (80, 520, "ppi++")
    alone = human_mean(labels, level=0.9)
    assert alone.ci == pytest.approx(tuple(float(b) for b in ppi_py.classical_mean_ci(y, alpha=0.1)))


def test_classical_ppi_is_the_hand_computed_estimator():
    labels, predicted = [1, 0, 1, 1, 0, 1, 0.5, 0], [1, 0, 1, 0, 0, 1, 1, 1]
    rest = [1, 0.5, 0, 1, 1] * 40
    estimate = prediction_powered_mean(labels, predicted, rest, lam=1)
    rectifier = [y - f for y, f in zip(labels, predicted, strict=True)]
    value = sum(rest) / len(rest) + sum(rectifier) / len(rectifier)
    spread = math.sqrt(np.var(rest) / len(rest) + np.var(rectifier) / len(rectifier))  # ppi_py: ddof 0
    z = norm.ppf(0.975)
    assert estimate.value == pytest.approx(value)
    assert estimate.ci == pytest.approx((value - z * spread, min(1.0, value + z * spread)))


def test_a_biased_judges_interval_misses_where_the_prediction_powered_one_covers():
    rng = random.Random(11)
    draws, items, labelled = 300, 1000, 100
    covered = {"ppi": 0, "judge": 0, "human": 0}
    widths = {"ppi": 0.0, "human": 0.0}
    for _ in range(draws):
        humans, judged = _biased_run(rng, items, 0.4, 0.3)
        truth = sum(humans) / items
        chosen = set(rng.sample(range(items), labelled))
        ppi = prediction_powered_mean(
            [humans[i] for i in sorted(chosen)],
            [judged[i] for i in sorted(chosen)],
            [judged[i] for i in range(items) if i not in chosen],
        )
        alone = human_mean([humans[i] for i in sorted(chosen)])
        judge_only = wilson_interval(sum(judged), items, 0.95)
        assert ppi.ci is not None and alone.ci is not None and judge_only is not None
        covered["ppi"] += ppi.ci[0] <= truth <= ppi.ci[1]
        covered["human"] += alone.ci[0] <= truth <= alone.ci[1]
        covered["judge"] += judge_only[0] <= truth <= judge_only[1]
        widths["ppi"] += (ppi.width or 0.0) / draws
        widths["human"] += (alone.width or 0.0) / draws
    assert covered["judge"] / draws < 0.05  # the judge's own interval is about the judge
    assert covered["ppi"] / draws >= 0.92
    assert covered["human"] / draws >= 0.9
    assert widths["ppi"] < widths["human"]


def test_too_few_labels_give_no_interval():
    assert prediction_powered_mean([1], [1], [0, 1]).value is None
    assert prediction_powered_mean([1, 0], [1, 0], []).ci is None
    assert human_mean([1]).ci is None
    with pytest.raises(ConfigError, match="2 labels but 1"):
        prediction_powered_mean([1, 0], [1], [0])


def test_a_judge_without_spread_still_gives_an_interval():
    estimate = prediction_powered_mean([1, 1, 1], [1, 1, 1], [1] * 50)
    assert estimate.value == 1.0 and estimate.ci == (1.0, 1.0)


def test_the_labels_a_width_and_a_guarantee_need():
    assert labels_for_width(0.1) == math.ceil((norm.ppf(0.975) / 0.1) ** 2)
    now = prediction_powered_mean([1, 0] * 25, [1, 0] * 24 + [1, 1], [1, 0] * 200)
    assert now.width is not None
    assert labels_for_width(now.width / 2, current=now) == math.ceil(50 * 4)
    assert labels_for_guarantee(0.9, 0.1) == 22  # 0.1 ** (1 / 22) >= 0.9 > 0.1 ** (1 / 21)
    assert 0.1 ** (1 / 22) >= 0.9 > 0.1 ** (1 / 21)


def test_computing_one_does_not_silence_the_processs_warnings():
    code = (
        "import warnings; "
        "from faceteval.metrics import prediction_powered_mean; "
        "prediction_powered_mean([1, 0], [1, 1], [0, 1, 1]); "
        "blanket = [f for f in warnings.filters if f[0] == 'ignore' and f[1] is None and f[2] is Warning]; "
        "assert not blanket, blanket"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
