"""HD-Eval's analyses, re-run from an evaluator's stored criterion scores (no LLM call).

Ablations (Table 4), aggregator comparison (Table 5), data efficiency (Fig. 4) and criteria
efficiency (Fig. 5). Each trains on the evaluator's training rows (or part of them) and reports the
held-out Pearson and Spearman correlation at the benchmark's level, averaged over target aspects.

Two more explain the models (Figs. 6-9): each aggregator's permutation importance of every criterion,
and the SHAP values of the evaluator's own aggregator on a random sample of outputs.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from faceteval import metrics
from faceteval.errors import FacetevalError
from faceteval.workflows.hdeval._aggregators import AGGREGATORS
from faceteval.workflows.hdeval._evaluator import (
    SUMMARY,
    Evaluator,
    load_evaluator,
    read_features,
    read_summary,
)
from faceteval.workflows.hdeval._importance import importance, shap_values
from faceteval.workflows.hdeval._train import Matrix, fit, mean_of_criteria, predict

FRACTIONS = (0.05, 0.1, 0.25, 0.5, 0.75, 1.0)
SEEDS = (0, 1, 2, 3, 4)
EXPERIMENTS = ("ablations", "aggregators", "data", "criteria", "importance", "shap")
SHAP_SAMPLES = 100
"""Outputs whose predictions SHAP explains (Fig. 9 uses 100)."""


@dataclass(frozen=True, slots=True)
class Data:
    """An evaluator's stored rows, as arrays."""

    x: Matrix
    y: Matrix
    train: np.ndarray
    groups: list[str] | None
    features: list[str]
    layers: list[int]
    targets: list[str]


def load_data(directory: Path, evaluator: Evaluator) -> Data:
    """The training and held-out rows of ``directory``'s features.jsonl."""
    features, targets = list(evaluator.features), list(evaluator.targets)
    rows = read_features(directory, features, targets)
    if not rows:
        raise FacetevalError(f"{directory}: features.jsonl is empty")
    group_by = evaluator.info.get("group_by")
    summary_level = group_by is not None and evaluator.info.get("level", "summary") == "summary"
    layers = [evaluator.tree.find(f).layer for f in features]
    return Data(
        x=np.array([[row["features"][f] for f in features] for row in rows], dtype=np.float64),
        y=np.array([[row["targets"][t] for t in targets] for row in rows], dtype=np.float64),
        train=np.array([row["split"] == "train" for row in rows]),
        groups=[str(row.get("metadata", {}).get(group_by)) for row in rows] if summary_level else None,
        features=features,
        layers=layers,
        targets=targets,
    )


def held_out_score(
    data: Data, columns: Sequence[int], kind: str, train_rows: np.ndarray, seed: int
) -> dict[str, float | None]:
    """Mean over targets of the held-out Pearson and Spearman of ``kind`` fitted on ``columns``."""
    x = data.x[:, list(columns)]
    model = fit(kind, x[train_rows], data.y[train_rows], seed=seed)
    return correlations(data, predict(model, x[~data.train]))


def correlations(data: Data, predicted: Matrix) -> dict[str, float | None]:
    """Mean over targets of the Pearson and Spearman of ``predicted`` (held-out rows x targets)."""
    test = ~data.train
    out: dict[str, float | None] = {}
    for method in ("pearson", "spearman"):
        values = []
        for t in range(len(data.targets)):
            scores, human = predicted[:, t].tolist(), data.y[test, t].tolist()
            if data.groups is not None:
                groups = [g for g, keep in zip(data.groups, test, strict=True) if keep]
                value = metrics.summary_level(scores, human, groups, method).value
            else:
                value = metrics.correlation(scores, human, method).value
            if value is not None:
                values.append(value)
        out[method] = statistics.fmean(values) if values else None
    return out


def ablations(data: Data, kind: str, seed: int) -> dict[str, Any]:
    """Full hierarchy, without its deepest layers, and without an aggregator (Table 4): the plain mean."""
    deepest = max(data.layers)
    variants: dict[str, Sequence[int]] = {"full": range(len(data.features))}
    for drop in range(deepest, 1, -1):
        kept = [c for c, layer in enumerate(data.layers) if layer < drop]
        label = f"without layer {drop}" if drop == deepest else f"without layers {drop}-{deepest}"
        variants[label] = kept
    out = {name: held_out_score(data, columns, kind, data.train, seed) for name, columns in variants.items()}
    out["without aggregator (mean)"] = correlations(
        data, mean_of_criteria(data.x[~data.train], len(data.targets))
    )
    return out


def aggregators(data: Data, seed: int) -> dict[str, Any]:
    """Every aggregator on every criterion (Table 5)."""
    return {
        kind: held_out_score(data, range(len(data.features)), kind, data.train, seed) for kind in AGGREGATORS
    }


def data_efficiency(
    data: Data, kind: str, fractions: Sequence[float] = FRACTIONS, seeds: Sequence[int] = SEEDS
) -> list[dict[str, Any]]:
    """Held-out correlation when training on a fraction of the training rows, over several seeds (Fig. 4).

    Each point gives the ``rows`` it trained on: a fraction of fewer than 4 rows trains on 4 (the
    fewest an aggregator is fitted on), so small training sets give several points the same rows.
    """
    train_rows = np.flatnonzero(data.train)
    points = []
    for fraction in fractions:
        runs = []
        size = min(max(4, round(fraction * len(train_rows))), len(train_rows))
        for seed in seeds:
            chosen = np.random.default_rng(seed).choice(train_rows, size=size, replace=False)
            mask = np.zeros(len(data.train), dtype=bool)
            mask[chosen] = True
            runs.append(held_out_score(data, range(len(data.features)), kind, mask, seed))
        points.append({"fraction": fraction, "rows": int(size), **_spread(runs)})
    return points


def criteria_efficiency(
    data: Data, kind: str, order: Sequence[str], seeds: Sequence[int] = SEEDS
) -> list[dict[str, Any]]:
    """Held-out correlation when adding criteria from the most important down (Fig. 5)."""
    columns = [data.features.index(name) for name in order if name in data.features]
    steps = sorted({*range(1, len(columns) + 1, max(1, len(columns) // 12)), len(columns)})
    points = []
    for count in steps:
        runs = [held_out_score(data, columns[:count], kind, data.train, seed) for seed in seeds]
        points.append({"criteria": count, **_spread(runs)})
    return points


def importance_by_aggregator(data: Data, seed: int) -> dict[str, Any]:
    """Each aggregator's permutation importance of every criterion, per target, on held-out rows (Fig. 8)."""
    test = ~data.train
    out: dict[str, Any] = {}
    for kind in AGGREGATORS:
        model = fit(kind, data.x[data.train], data.y[data.train], seed=seed)
        values = importance(model, data.x[test], data.y[test], seed=seed)
        out[kind] = {
            target: dict(zip(data.features, map(float, row), strict=True))
            for target, row in zip(data.targets, values, strict=True)
        }
    return out


def shap_explanation(
    data: Data, evaluator: Evaluator, seed: int, samples: int = SHAP_SAMPLES
) -> dict[str, Any]:
    """SHAP values of the evaluator's aggregator on a random sample of outputs (Figs. 7 and 9).

    The sample is drawn from every stored output; the training rows stand for "criterion absent".
    ``values[t][i][c]`` is criterion ``c``'s SHAP value in output ``i``'s prediction of target ``t``.
    """
    x = data.x
    picked = np.sort(np.random.default_rng(seed).choice(len(x), size=min(samples, len(x)), replace=False))
    values = shap_values(evaluator.aggregator, x[picked], background=x[data.train], seed=seed)
    return {
        "criteria": list(data.features),
        "targets": list(data.targets),
        "rows": picked.tolist(),
        "scores": x[picked].tolist(),
        "values": values.transpose(1, 0, 2).tolist(),
    }


def _spread(runs: Sequence[Mapping[str, float | None]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for method in ("pearson", "spearman"):
        values = [value for run in runs if (value := run[method]) is not None]
        out[method] = {
            "mean": statistics.fmean(values) if values else None,
            "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
            "values": values,
        }
    return out


def run_experiments(
    directory: Path, which: Sequence[str] = EXPERIMENTS, *, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Run the named experiments on the evaluator in ``directory``."""
    evaluator = load_evaluator(directory)
    data = load_data(directory, evaluator)
    kind = str(evaluator.info.get("aggregator", "mlp"))
    seed = 0
    summary = read_summary(directory) if (directory / SUMMARY).is_file() else {}
    order = [row["id"] for row in sorted(summary.get("tree", []), key=lambda row: -row["importance"])]
    runners: dict[str, Callable[[], Any]] = {
        "ablations": lambda: ablations(data, kind, seed),
        "aggregators": lambda: aggregators(data, seed),
        "data": lambda: data_efficiency(data, kind),
        "criteria": lambda: criteria_efficiency(data, kind, order or data.features),
        "importance": lambda: importance_by_aggregator(data, seed),
        "shap": lambda: shap_explanation(data, evaluator, seed),
    }
    out: dict[str, Any] = {"aggregator": kind, "level": "summary" if data.groups is not None else "sample"}
    for name in which:
        if name not in runners:
            raise FacetevalError(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}")
        if progress:
            progress(name)
        out[name] = runners[name]()
    return out
