"""Held-out correlations of a trained evaluator, next to the baselines, and the summary written with it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from faceteval.metaeval import Settings, correlation_levels
from faceteval.workflows.hdeval._train import Trained, mean_of_criteria, predict

SCORERS = {
    "aggregator": "HD-Eval aggregator",
    "mean_of_criteria": "Mean of criteria",
    "judge_on_aspect": "Judge on the aspect",
}
"""How each scorer of `held_out` is named in tables."""


def held_out(
    trained: Trained,
    *,
    group_by: str | None = None,
    system_by: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    judge_scores: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Any]:
    """Per target: the correlations on the held-out rows of the learned aggregator and of two baselines.

    The baselines are the plain mean of every criterion score (HD-Eval's "w/o aggregator"; nothing
    fitted) and, where a criterion has the target's name, the judge's own score on it (the
    judge evaluating that aspect directly): a feature's, else ``judge_scores``' (target -> instance id
    -> score: a criterion left out of the features), when it scores every held-out row. Correlations
    are at sample level, per group (summary level, e.g. per source document) and per system when the
    benchmark says how to group.
    """
    test = ~trained.train
    ids = [i for i, keep in zip(trained.ids, test, strict=True) if keep]
    groups = _keys(trained, ids, group_by)
    systems = _keys(trained, ids, system_by)
    learned = predict(trained.aggregator, trained.x[test])
    mean = mean_of_criteria(trained.x[test], len(trained.config.targets))
    settings = Settings(resamples=resamples, seed=seed)
    lowered = {name.lower(): k for k, name in enumerate(trained.features)}
    out: dict[str, Any] = {}
    for t, target in enumerate(trained.config.targets):
        human = trained.y[test, t].tolist()
        rows: dict[str, Any] = {
            "aggregator": correlation_levels(learned[:, t].tolist(), human, groups, systems, settings),
            "mean_of_criteria": correlation_levels(mean[:, t].tolist(), human, groups, systems, settings),
        }
        judge: list[float] | None = None
        if (column := lowered.get(target.lower())) is not None:
            judge = trained.x[test, column].tolist()
        elif (given := (judge_scores or {}).get(target)) is not None and all(i in given for i in ids):
            judge = [given[i] for i in ids]
        if judge is not None:
            rows["judge_on_aspect"] = correlation_levels(judge, human, groups, systems, settings)
        out[target] = rows
    return out


def _keys(trained: Trained, ids: Sequence[str], key: str | None) -> list[str] | None:
    if key is None:
        return None
    return [str(trained.metadata.get(i, {}).get(key)) for i in ids]


def headline_level(group_by: str | None, level: str | None = None) -> str:
    """The level results are read at: ``level`` when given, else per source document when there are any."""
    return level or ("summary" if group_by else "sample")


def tree_summary(trained: Trained) -> list[dict[str, Any]]:
    """Every criterion with its layer, importance (overall and per target) and whether it was expanded."""
    weights = trained.importance.mean(axis=0)
    expanded = trained.expanded
    out = []
    for node in trained.tree.nodes():
        if node.id not in trained.features:
            continue
        column = trained.features.index(node.id)
        out.append(
            {
                "id": node.id,
                "name": node.criterion.name,
                "layer": node.layer,
                "importance": float(weights[column]),
                "importance_by_target": {
                    target: float(trained.importance[t, column])
                    for t, target in enumerate(trained.config.targets)
                },
                "expanded": node.id in expanded,
            }
        )
    return out


def describe_split(trained: Trained) -> dict[str, int]:
    """How many rows were trained and tested on, and how many instances were left out."""
    return {
        "train": int(trained.train.sum()),
        "test": int((~trained.train).sum()),
        "left_out": len(trained.failed),
    }


def evaluator_summary(
    trained: Trained,
    *,
    benchmark: str,
    origin: str,
    group_by: str | None = None,
    system_by: str | None = None,
    level: str | None = None,
    resamples: int = 1000,
    judge_scores: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Any]:
    """The ``summary.json`` of a trained evaluator: settings, split, held-out results, the tree, layers.

    Held-out results are at every level the data allows; ``level`` (default: ``summary`` when outputs
    are grouped, else ``sample``) is the one tables lead with. ``judge_scores`` are the judge's scores
    of the targets where no feature gives them (`held_out`).
    """
    config = trained.config
    return {
        "benchmark": benchmark,
        "targets": list(config.targets),
        "level": headline_level(group_by, level),
        "group_by": group_by,
        "criteria_scores_from": origin,
        "config": {
            "layers": config.layers,
            "children": config.children,
            "expand": config.expand,
            "aggregator": config.aggregator,
            "importance": config.importance,
            "train_frac": config.train_frac,
            "seed": config.seed,
        },
        "split": describe_split(trained),
        "held_out": held_out(
            trained,
            group_by=group_by,
            system_by=system_by,
            resamples=resamples,
            seed=config.seed,
            judge_scores=judge_scores,
        ),
        "tree": tree_summary(trained),
        "layers": [
            {
                "layer": layer.layer,
                "nodes": layer.nodes,
                "importance": layer.importance,
                "expanded": layer.selected,
                "failed": layer.failed,
            }
            for layer in trained.layers
        ],
        "left_out": trained.failed,
    }


def evaluator_info(
    trained: Trained,
    *,
    benchmark: str,
    origin: str,
    model: str | None = None,
    group_by: str | None = None,
    system_by: str | None = None,
    level: str | None = None,
) -> dict[str, Any]:
    """What ``evaluator.json`` records beside the aggregator: task, data, where the criterion scores came
    from (and the ``model`` that gave them, None for recorded scores), how outputs are grouped, the level."""
    return {
        "task": trained.tree.task,
        "benchmark": benchmark,
        "source": origin,
        "model": model,
        "group_by": group_by,
        "system_by": system_by,
        "level": headline_level(group_by, level),
    }
