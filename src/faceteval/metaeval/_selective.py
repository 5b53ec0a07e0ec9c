"""Selective accuracy: agreement with humans when the judge abstains on its least confident verdicts.

Each labelled instance's confidence is its judgment's ``confidence`` when the judgment carries one
(the runner computes it as it judges), else `faceteval.core.confidence` over what the judgment
carries, its margin measured on the run's score range (the lowest to the highest overall score of
its ok judgments). A failed or missing judgment, or one with no evidence, has the lowest confidence.

At coverage c, the ``ceil(c * n)`` most confident instances are kept; equal confidences are ordered
by the SHA-256 of the instance id (deterministic, and the same for every judge of the same
instances). Agreement over the kept ones counts ties as a class, as ``agreement`` does.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

from faceteval import metrics
from faceteval.core import ConfidenceInputs, Instance, Judgment, confidence
from faceteval.metaeval._bias import Pairs, Rater

COVERAGES = (0.5, 0.75, 0.9, 1.0)


def run_scale(judgments: Sequence[Judgment | None]) -> tuple[float, float] | None:
    """The lowest and highest overall score of the ok judgments, None when they do not differ."""
    scores = [s for j in judgments if j is not None and j.status == "ok" for s in j.scores or ()]
    return (min(scores), max(scores)) if scores and min(scores) < max(scores) else None


def confidences(pairs: Pairs) -> list[float | None]:
    """Each instance's confidence: its judgment's own, else computed over the run's score range."""
    inputs = ConfidenceInputs(scale=run_scale([j for _, j in pairs]))
    return [
        None
        if judgment is None or judgment.status != "ok"
        else judgment.confidence
        if judgment.confidence is not None
        else confidence(judgment, inputs)
        for _, judgment in pairs
    ]


def abstention_order(instances: Sequence[Instance], values: Sequence[float | None]) -> list[int]:
    """Indices from the most confident to the least (None last; equal values by SHA-256 of the id).

    Examples:
        >>> pairs = [Instance(id=str(k), query="q", candidates=["a", "b"]) for k in range(3)]
        >>> abstention_order(pairs, [0.5, None, 0.9])
        [2, 0, 1]
    """
    return sorted(
        range(len(values)),
        key=lambda k: (math.inf if (value := values[k]) is None else -value, _id_hash(instances[k].id)),
    )


def selective_accuracy(pairs: Pairs, rate: Rater) -> dict[str, Any] | None:
    """Agreement at each coverage of `COVERAGES`; None when no judgment has a confidence."""
    labelled = [(i, j) for i, j in pairs if i.label is not None]
    values = confidences(labelled)
    if all(value is None for value in values):
        return None
    ranked = abstention_order([i for i, _ in labelled], values)
    rows = []
    for coverage in COVERAGES:
        kept = ranked[: math.ceil(coverage * len(ranked))]
        verdicts = [_verdict(labelled[k][1]) for k in kept]
        labels = [labelled[k][0].label for k in kept]
        rows.append(
            {
                "coverage": coverage,
                "kept": len(kept),
                "min_confidence": values[kept[-1]] if kept else None,
                "agreement": rate(metrics.agreement, verdicts, labels),
            }
        )
    known = [value for value in values if value is not None]
    return {
        "n": len(labelled),
        "with_confidence": len(known),
        "mean_confidence": math.fsum(known) / len(known),
        "coverages": rows,
    }


def _id_hash(ident: str) -> str:
    return hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()


def _verdict(judgment: Judgment | None) -> int | None:
    return judgment.verdict if judgment is not None and judgment.status == "ok" else None
