"""Cascaded selective judging (Jung, Brahman and Choi, "Trust or Escalate", ICLR 2025), measured on
labelled data by repeated calibration/test splits.

A cascade asks its judges in order, the cheapest first. Judge k's verdict is trusted when its
confidence reaches its threshold; otherwise the instance escalates to judge k+1, and the last one's
untrusted verdicts are abstained on. Each threshold is chosen on a calibration set by fixed-sequence
testing (`faceteval.metrics.fixed_sequence_threshold`) so that, with probability at least
``1 - delta``, agreement with humans on the verdicts it keeps is at least ``target_agreement``: judge
k is calibrated on the calibration instances that no earlier judge decided, as the paper's code does
(when earlier judges decided all of them, judge k has no evidence and keeps nothing, where the
paper's code reuses the previous judge's threshold).

Measured here: the labelled instances are split ``splits`` times (seeded) into a calibration half
(``floor(n / 2)``) and a test half; on each split the thresholds are calibrated and the rule applied
to the test half. A split *violates* the target when agreement on the test verdicts kept is below
it (a split that keeps nothing has no agreement and violates nothing). The guarantee says the
violation rate is at most ``delta``, up to the spread of a finite number of splits.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from faceteval.metrics import fixed_sequence_threshold

Chooser = Callable[[Sequence[float | None], Sequence[bool], float, float], float | None]
"""How a threshold is chosen from calibration verdicts: (confidences, agrees, target, delta)."""


def bounded_threshold(
    confidences: Sequence[float | None], agrees: Sequence[bool], target: float, delta: float
) -> float | None:
    """The fixed-sequence threshold (None: keep nothing): the one the guarantee is for."""
    return fixed_sequence_threshold(confidences, agrees, target, delta).threshold


@dataclass(frozen=True, slots=True)
class CascadeSettings:
    """What a cascade guarantees, and how it is measured."""

    target_agreement: float = 0.9
    delta: float = 0.1
    splits: int = 200
    seed: int = 0


@dataclass(frozen=True, slots=True)
class CascadeJudge:
    """One judge of a cascade over the labelled instances, in a common order.

    Attributes:
        name: How reports name it.
        confidences: Each instance's confidence (None: no verdict, never trusted).
        agrees: Whether each instance's verdict agrees with the humans' label.
        cost: What asking it costs per instance, in ``cost_basis`` units.
    """

    name: str
    confidences: Sequence[float | None]
    agrees: Sequence[bool]
    cost: float = 1.0


def calibrate(
    judges: Sequence[CascadeJudge], items: Sequence[int], settings: CascadeSettings, choose: Chooser
) -> list[float | None]:
    """Each judge's threshold, chosen on the ``items`` no earlier judge decided."""
    remaining = list(items)
    thresholds: list[float | None] = []
    for judge in judges:
        values = [judge.confidences[i] for i in remaining]
        agrees = [judge.agrees[i] for i in remaining]
        threshold = choose(values, agrees, settings.target_agreement, settings.delta)
        thresholds.append(threshold)
        remaining = [i for i, value in zip(remaining, values, strict=True) if not _keeps(threshold, value)]
    return thresholds


def decide(
    judges: Sequence[CascadeJudge], thresholds: Sequence[float | None], items: Sequence[int]
) -> list[int | None]:
    """Which judge decides each of ``items`` (its index; None: every judge escalated, abstained)."""
    deciders: list[int | None] = []
    for i in items:
        found = (k for k, judge in enumerate(judges) if _keeps(thresholds[k], judge.confidences[i]))
        deciders.append(next(found, None))
    return deciders


def _keeps(threshold: float | None, value: float | None) -> bool:
    return threshold is not None and value is not None and value >= threshold


def one_split(
    judges: Sequence[CascadeJudge],
    calibration: Sequence[int],
    test: Sequence[int],
    settings: CascadeSettings,
    choose: Chooser = bounded_threshold,
) -> dict[str, Any]:
    """One split's thresholds, and what they do on its test half."""
    thresholds = calibrate(judges, calibration, settings, choose)
    deciders = decide(judges, thresholds, test)
    decided = [sum(d == k for d in deciders) for k in range(len(judges))]
    kept = sum(decided)
    agreeing = sum(judges[d].agrees[i] for i, d in zip(test, deciders, strict=True) if d is not None)
    agreement = agreeing / kept if kept else None
    # judge k is asked for every test instance that no earlier judge decided
    asked = [len(test) - sum(decided[:k]) for k in range(len(judges))]
    cost = math.fsum(a * judge.cost for a, judge in zip(asked, judges, strict=True))
    last = len(test) * judges[-1].cost
    return {
        "thresholds": thresholds,
        "n": len(test),
        "kept": kept,
        "agreeing": agreeing,
        "coverage": kept / len(test) if test else 0.0,
        "agreement": agreement,
        "decided": decided,
        "relative_cost": cost / last if last else None,
        "violated": agreement is not None and agreement < settings.target_agreement,
    }


def cascade(
    judges: Sequence[CascadeJudge], settings: CascadeSettings, *, choose: Chooser = bounded_threshold
) -> dict[str, Any]:
    """The cascade of ``judges`` measured over ``settings.splits`` seeded calibration/test splits: the
    numbers pooled (``summary.cascade``) and each split's (``per_split``).

    Raises:
        ValueError: No judge, judges over different instances, or fewer than 2 instances.
    """
    if not judges:
        raise ValueError("a cascade needs at least one judge")
    n = len(judges[0].agrees)
    if any(len(j.agrees) != n or len(j.confidences) != n for j in judges):
        raise ValueError("the judges of a cascade are over the same instances")
    if n < 2:
        raise ValueError(f"a cascade is calibrated and tested on at least 2 labelled instances, got {n}")
    if settings.splits < 1:
        raise ValueError(f"splits must be at least 1, got {settings.splits}")
    rng = np.random.default_rng(settings.seed)
    half = n // 2
    splits = []
    for _ in range(settings.splits):
        order = rng.permutation(n).tolist()
        splits.append(one_split(judges, order[:half], order[half:], settings, choose))
    return _pooled(judges, splits, settings, half, n - half)


def _pooled(
    judges: Sequence[CascadeJudge],
    splits: Sequence[dict[str, Any]],
    settings: CascadeSettings,
    calibration: int,
    test: int,
) -> dict[str, Any]:
    agreements = [s["agreement"] for s in splits if s["agreement"] is not None]
    kept = sum(s["kept"] for s in splits)
    costs = [s["relative_cost"] for s in splits if s["relative_cost"] is not None]
    violations = sum(s["violated"] for s in splits)
    return {
        "target_agreement": settings.target_agreement,
        "delta": settings.delta,
        "splits": len(splits),
        "seed": settings.seed,
        "calibration_size": calibration,
        "test_size": test,
        "violations": violations,
        "violation_rate": violations / len(splits),
        "empty_splits": sum(s["kept"] == 0 for s in splits),
        "coverage": statistics.fmean(s["coverage"] for s in splits),
        "agreement": statistics.fmean(agreements) if agreements else None,
        "agreement_pooled": sum(s["agreeing"] for s in splits) / kept if kept else None,
        "threshold_statistic": "lower median",
        "judges": [_judge_entry(k, judge, splits, kept) for k, judge in enumerate(judges)],
        "relative_cost": statistics.fmean(costs) if costs else None,
        "per_split": [_split_entry(s, judges) for s in splits],
    }


def _judge_entry(k: int, judge: CascadeJudge, splits: Sequence[dict[str, Any]], kept: int) -> dict[str, Any]:
    """A judge's median threshold (a split with none counts as above every confidence), the share of
    the kept verdicts it decided, and of the test instances."""
    thresholds = [s["thresholds"][k] for s in splits]
    ranked = sorted(math.inf if t is None else t for t in thresholds)
    median = ranked[(len(ranked) - 1) // 2]
    decided = sum(s["decided"][k] for s in splits)
    return {
        "judge": judge.name,
        "threshold": None if math.isinf(median) else median,
        "no_threshold": sum(t is None for t in thresholds),
        "share_decided": decided / kept if kept else 0.0,
        "coverage": decided / sum(s["n"] for s in splits),
        "cost": judge.cost,
    }


def _split_entry(split: dict[str, Any], judges: Sequence[CascadeJudge]) -> dict[str, Any]:
    return {
        "thresholds": split["thresholds"],
        "coverage": split["coverage"],
        "agreement": split["agreement"],
        "kept": split["kept"],
        "decided": dict(zip((j.name for j in judges), split["decided"], strict=True)),
        "relative_cost": split["relative_cost"],
        "violated": split["violated"],
    }
