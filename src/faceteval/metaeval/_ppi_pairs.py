"""Prediction-powered win rates, measured on labelled pairwise data (``meta-eval --ppi-labels N``).

What a team would do with a few human labels: label N random items of a model pair's comparisons,
and estimate the pair's win rate from them and the judge's verdicts on every item
(`faceteval.metrics.prediction_powered_mean`). A benchmark labelled throughout tells how well that
works: the all-human win rate of each pair is known, so drawing N labelled items at random many
times (seeded) measures how often each interval covers it, and how wide each is:

- PPI: the judge's outcome for the pair's first system on the items not drawn, rectified by the N
  drawn items' human outcomes (PPI++, `prediction_powered_mean`);
- judge-only: the judge's win rate over all the pair's items with its Wilson interval, as a judge
  run's result reports it (`faceteval.metrics.wilson_interval`); it does not depend on the draw, so
  its coverage is whether it holds the truth at all;
- human-only: the mean of the N human outcomes with its normal interval (`human_mean`).

An outcome is the first system's: 1 a win, 0.5 a tie, 0 a loss. A judgment that failed or is
missing predicts 0.5 in the PPI estimate and is left out of the judge's own win rate (as a judge
run's result leaves failed comparisons out). The pairs are the instances' systems, unordered (MT-Bench's
``model_a`` and ``model_b``, PandaLM's ``models``; the first system is the first by name); a target
without systems is one group, position 1 against position 2.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from faceteval.core import Instance, Judgment
from faceteval.metaeval._judgments import pair_by_id
from faceteval.metrics import Estimate, human_mean, prediction_powered_mean, wilson_interval
from faceteval.results.internal import outcome

POSITIONS = ("position 1", "position 2")
"""The two sides of a target whose instances name no systems."""


@dataclass(frozen=True, slots=True)
class PpiSettings:
    """How prediction-powered win rates are measured: labels per draw, draws, seed and level."""

    labels: int
    draws: int = 1000
    seed: int = 0
    level: float = 0.95

    def __post_init__(self) -> None:
        if self.labels < 2:
            raise ValueError(f"a prediction-powered interval takes at least 2 labels, got {self.labels}")
        if self.draws < 1:
            raise ValueError(f"draws must be at least 1, got {self.draws}")
        if not 0 < self.level < 1:
            raise ValueError(f"level must be between 0 and 1, got {self.level}")


@dataclass(frozen=True, slots=True)
class PairOutcomes:
    """One pair's items: the humans' and the judge's outcome for its first system on each."""

    systems: tuple[str, str]
    human: np.ndarray[Any, np.dtype[np.float64]]
    judge: np.ndarray[Any, np.dtype[np.float64]]
    """The judge's prediction per item (0.5 where it gave no verdict)."""
    judged: np.ndarray[Any, np.dtype[np.bool_]]
    """Whether the judge gave a verdict on each item."""

    @property
    def name(self) -> str:
        return f"{self.systems[0]} vs {self.systems[1]}"


def pair_systems(instance: Instance) -> tuple[str, str] | None:
    """The two systems behind a pair's candidates, in candidate order: its ``systems``, else its
    ``metadata`` ``model_a`` and ``model_b`` (MT-Bench) or ``models`` (PandaLM); None when it names none.

    Examples:
        >>> pair_systems(Instance(id="1", query="q", candidates=["a", "b"], metadata={"models": ["x", "y"]}))
        ('x', 'y')
    """
    meta = instance.metadata
    for found in (instance.systems, (meta.get("model_a"), meta.get("model_b")), meta.get("models")):
        if isinstance(found, list | tuple) and len(found) == 2 and all(isinstance(s, str) for s in found):
            return (found[0], found[1])
    return None


def pair_outcomes(
    instances: Sequence[Instance], judgments: Sequence[Judgment]
) -> tuple[list[PairOutcomes], int]:
    """The labelled two-candidate ``instances`` grouped by pair (sorted by name), with the judge's
    outcomes from ``judgments``; and how many instances were left out (no label, or not two candidates)."""
    rows: dict[tuple[str, str], list[tuple[float, float, bool]]] = defaultdict(list)
    left_out = 0
    named = any(pair_systems(instance) is not None for instance in instances)
    for instance, judgment in pair_by_id(instances, judgments):
        systems = pair_systems(instance) if named else POSITIONS
        if instance.label is None or instance.n_candidates != 2 or systems is None:
            left_out += 1
            continue
        first = min(systems)
        side = systems.index(first) + 1
        verdict = judgment.verdict if judgment is not None and judgment.status == "ok" else None
        key = (first, max(systems)) if named else POSITIONS
        rows[key].append((outcome(instance.label, side), outcome(verdict, side), verdict is not None))
    pairs = [_pair(systems, items) for systems, items in sorted(rows.items())]
    return pairs, left_out


def _pair(systems: tuple[str, str], items: Sequence[tuple[float, float, bool]]) -> PairOutcomes:
    human, judge, judged = zip(*items, strict=True)
    return PairOutcomes(systems, np.array(human), np.array(judge), np.array(judged, dtype=np.bool_))


def ppi_summary(
    instances: Sequence[Instance], judgments: Sequence[Judgment], settings: PpiSettings
) -> dict[str, Any]:
    """The ``summary.ppi`` block: per pair and pooled, how often each interval covers the all-human
    win rate over ``settings.draws`` seeded draws of ``settings.labels`` labelled items, and how wide
    each is; the pairs with fewer than twice as many labelled items, skipped."""
    pairs, left_out = pair_outcomes(instances, judgments)
    rng = np.random.default_rng(settings.seed)
    rows, skipped = [], []
    for pair in pairs:
        if len(pair.human) < 2 * settings.labels:
            skipped.append({"pair": pair.name, "items": len(pair.human)})
        else:
            rows.append(measure_pair(pair, settings, rng))
    return {
        "labels": settings.labels,
        "draws": settings.draws,
        "seed": settings.seed,
        "level": settings.level,
        "groups": "positions" if pairs and pairs[0].systems == POSITIONS else "systems",
        **_pooled(rows),
        "pairs": rows,
        "skipped": skipped,
        "left_out": left_out,
    }


def measure_pair(pair: PairOutcomes, settings: PpiSettings, rng: np.random.Generator) -> dict[str, Any]:
    """One pair's row: its all-human win rate, and each interval's coverage of it and mean width."""
    truth = float(pair.human.mean())
    hits, judged = float(pair.judge[pair.judged].sum()), int(pair.judged.sum())
    judge_ci = wilson_interval(hits, judged, settings.level)
    ppi, human = zip(*(_draw(pair, settings, rng) for _ in range(settings.draws)), strict=True)
    covered = _covers(judge_ci, truth)
    return {
        "pair": pair.name,
        "system": pair.systems[0],
        "items": len(pair.human),
        "human_win_rate": truth,
        "judge_win_rate": hits / judged if judged else None,
        "judge_ci": None if judge_ci is None else list(judge_ci),
        "coverage": _coverage(ppi, truth),
        "coverage_judge_only": float(covered),
        "coverage_human_only": _coverage(human, truth),
        "width": _mean_width(ppi),
        "width_judge_only": None if judge_ci is None else judge_ci[1] - judge_ci[0],
        "width_human_only": _mean_width(human),
    }


def _draw(pair: PairOutcomes, settings: PpiSettings, rng: np.random.Generator) -> tuple[Estimate, Estimate]:
    """One draw of ``settings.labels`` labelled items: the PPI and the human-only estimates."""
    drawn = np.zeros(len(pair.human), dtype=np.bool_)
    drawn[rng.choice(len(pair.human), settings.labels, replace=False)] = True
    labels = pair.human[drawn].tolist()
    ppi = prediction_powered_mean(
        labels, pair.judge[drawn].tolist(), pair.judge[~drawn].tolist(), level=settings.level
    )
    return ppi, human_mean(labels, level=settings.level)


_TOLERANCE = 1e-12
"""Rounding allowed at an interval's ends (a rate exactly at a bound is inside)."""


def _covers(ci: tuple[float, float] | None, truth: float) -> bool:
    return ci is not None and ci[0] - _TOLERANCE <= truth <= ci[1] + _TOLERANCE


def _coverage(estimates: Sequence[Estimate], truth: float) -> float:
    return statistics.fmean(_covers(e.ci, truth) for e in estimates)


def _mean_width(estimates: Sequence[Estimate]) -> float | None:
    widths = [e.width for e in estimates if e.width is not None]
    return statistics.fmean(widths) if widths else None


_POOLED = (
    "coverage",
    "coverage_judge_only",
    "coverage_human_only",
    "width",
    "width_judge_only",
    "width_human_only",
)


def _pooled(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each number over the pairs measured (each pair's draws weigh the same); None with no pair."""
    return {key: _mean(row[key] for row in rows) for key in _POOLED}


def _mean(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.fmean(present) if present else None
