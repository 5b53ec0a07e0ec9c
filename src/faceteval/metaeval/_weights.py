"""How close a judge's facet weights are to people's: top-k Kendall distance of the rankings (DnA-Eval 5.3).

People rarely put a sensible number on a weighting, but they can weigh the facets a judge proposed.
Each weighting becomes a ranking (highest weight first), and rankings are compared with the top-k
Kendall distance of Fagin et al. (2003), normalised to [0, 1]: 0 is the same order, 1 the reverse.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval import metrics
from faceteval._util.records import jsonl_records
from faceteval.errors import FacetevalError
from faceteval.metaeval._judgments import Joined


@dataclass(frozen=True, slots=True)
class HumanWeights:
    """One person's weighting of one instance's facets."""

    id: str
    annotator: str
    weights: Mapping[str, float]
    """Facet name (as the judge named it) -> weight, in any unit (only the order matters)."""


def load_human_weights(path: Path) -> list[HumanWeights]:
    """Human facet weightings from a JSONL file, one weighting per line.

    Each line is ``{"id": "<instance id>", "annotator": "<name>", "weights": {"<facet>": 40, ...}}``;
    ``annotator`` is optional (each line is then a different person).

    Raises:
        InputError: A line is not such an object; the message names the file, line and field.
    """
    if not path.is_file():
        raise FacetevalError(f"{path}: no such file")
    out: list[HumanWeights] = []
    seen: set[tuple[str, str]] = set()
    for record in jsonl_records(path):
        instance_id = str(record.get("id", (str, int)))
        annotator = str(record.data.get("annotator", f"line {record.line}"))
        weights = record.get("weights", dict)
        if len(weights) < 2:
            raise record.error("weights", "give at least two facets: one facet has no order")
        for name, value in weights.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise record.error(f"weights.{name}", f"expected a number, got {value!r}")
            if value < 0:
                raise record.error(f"weights.{name}", f"a weight cannot be negative, got {value!r}")
        if (instance_id, annotator) in seen:
            raise record.error("annotator", f"{annotator!r} already weighted {instance_id!r}")
        seen.add((instance_id, annotator))
        out.append(HumanWeights(instance_id, annotator, {_key(n): float(v) for n, v in weights.items()}))
    if not out:
        raise FacetevalError(f"{path}: no weightings")
    return out


def _key(name: str) -> str:
    return " ".join(name.split()).lower()


def weight_rankings(
    joined: Joined,
    human: Sequence[HumanWeights],
    *,
    k: int | None = None,
    p: float = metrics.DEFAULT_PENALTY,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Mean top-k Kendall distance between the judge's and people's weight rankings, and among people.

    Per instance, the judge's distance is its mean over the people who weighted that instance, and
    the people's among themselves the mean over their pairs; both are then averaged over instances.
    ``k`` defaults to every facet of the shorter ranking. Facet names match case- and space-blind;
    ``no_shared_facets`` counts the weightings that name none of the judge's facets of their instance
    (most likely other names for them: each counts as the farthest ranking), and ``unknown_ids`` the
    ids that are not among the instances.
    """
    by_id: dict[str, list[HumanWeights]] = defaultdict(list)
    for weighting in human:
        by_id[weighting.id].append(weighting)
    judge_rows: list[float] = []
    human_rows: list[float] = []
    unjudged = 0
    unshared = 0
    for instance, judgment in joined.pairs:
        people = by_id.pop(instance.id, [])
        if not people:
            continue
        model = {
            _key(facet.name): facet.weight
            for facet in (judgment.facets if judgment is not None and judgment.status == "ok" else [])
            if facet.weight is not None
        }
        if len(people) >= 2:
            human_rows.append(
                statistics.fmean(
                    _distance(a.weights, b.weights, k, p) for a, b in itertools.combinations(people, 2)
                )
            )
        if len(model) < 2:
            unjudged += 1
            continue
        unshared += sum(not set(model) & {_key(name) for name in person.weights} for person in people)
        judge_rows.append(statistics.fmean(_distance(model, person.weights, k, p) for person in people))
    return {
        "judge_vs_human": _mean(judge_rows, resamples, seed),
        "human_vs_human": _mean(human_rows, resamples, seed),
        "k": k if k is not None else "all",
        "p": p,
        "without_judge_weights": unjudged,
        "no_shared_facets": unshared,
        "unknown_ids": sorted(by_id),
    }


def _distance(a: Mapping[str, float], b: Mapping[str, float], k: int | None, p: float) -> float:
    first, second = metrics.rank_by_weight(a), metrics.rank_by_weight(b)
    top = min(len(first), len(second)) if k is None else min(k, len(first), len(second))
    return metrics.topk_kendall_distance(first, second, top, p)


def _mean(values: list[float], resamples: int, seed: int) -> dict[str, Any] | None:
    if not values:
        return None
    out: dict[str, Any] = {"value": statistics.fmean(values), "n": len(values)}
    if resamples:
        ci = metrics.bootstrap_ci(statistics.fmean, values, n_resamples=resamples, seed=seed)
        out["ci"] = list(ci) if ci else None
    return out
