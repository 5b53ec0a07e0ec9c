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
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from faceteval import metrics
from faceteval.core import ConfidenceInputs, Instance, Judgment, confidence
from faceteval.metaeval._bias import Pairs, Rater

COVERAGES = (0.5, 0.75, 0.9, 1.0)


def run_scale(judgments: Iterable[Judgment | None]) -> tuple[float, float] | None:
    """The lowest and highest overall score of the ok judgments, None when they do not differ."""
    low, high = math.inf, -math.inf
    for judgment in judgments:
        if judgment is not None and judgment.status == "ok" and judgment.scores:
            low, high = min(low, *judgment.scores), max(high, *judgment.scores)
    return (low, high) if low < high else None


def confidences(pairs: Iterable[tuple[Instance, Judgment | None]]) -> list[float | None]:
    """Each instance's confidence: its judgment's own, else computed over the run's score range (the
    pairs are read twice, a pair at a time: first for the range, then for the confidences)."""
    inputs = ConfidenceInputs(scale=run_scale(j for _, j in pairs))
    return [
        None
        if judgment is None or judgment.status != "ok"
        else judgment.confidence
        if judgment.confidence is not None
        else confidence(judgment, inputs)
        for _, judgment in pairs
    ]


def abstention_order(values: Sequence[float | None], digests: np.ndarray[Any, Any]) -> list[int]:
    """Indices from the most confident to the least: None last, equal values by the SHA-256 of the id
    (``digests``, of each instance's id; the bytes compare as their hex digests do).

    Examples:
        >>> abstention_order([0.5, None, 0.9], np.array([_id_hash(i) for i in "012"], dtype="S32"))
        [2, 0, 1]
    """
    first = np.array([math.inf if value is None else -value for value in values], dtype=np.float64)
    order: list[int] = np.lexsort((digests, first)).tolist()
    return order


def selective_accuracy(pairs: Pairs, rate: Rater) -> dict[str, Any] | None:
    """Agreement at each coverage of `COVERAGES`; None when no judgment has a confidence."""
    labelled = _Labelled(pairs)
    values = confidences(labelled)
    if all(value is None for value in values):
        return None
    verdicts, labels = [], []
    digests = np.empty(len(values), dtype="S32")
    for k, (instance, judgment) in enumerate(labelled):
        verdicts.append(_verdict(judgment))
        labels.append(instance.label)
        digests[k] = _id_hash(instance.id)
    ranked = abstention_order(values, digests)
    rows = []
    for coverage in COVERAGES:
        kept = ranked[: math.ceil(coverage * len(ranked))]
        rows.append(
            {
                "coverage": coverage,
                "kept": len(kept),
                "min_confidence": values[kept[-1]] if kept else None,
                "agreement": rate(metrics.agreement, [verdicts[k] for k in kept], [labels[k] for k in kept]),
            }
        )
    known = [value for value in values if value is not None]
    return {
        "n": len(ranked),
        "with_confidence": len(known),
        "mean_confidence": math.fsum(known) / len(known),
        "coverages": rows,
    }


class _Labelled(Iterable[tuple[Instance, Judgment | None]]):
    """The labelled pairs of ``pairs``, read again (a pair at a time) each time they are iterated."""

    def __init__(self, pairs: Pairs) -> None:
        self._pairs = pairs

    def __iter__(self) -> Iterator[tuple[Instance, Judgment | None]]:
        return ((i, j) for i, j in self._pairs if i.label is not None)


def _id_hash(ident: str) -> bytes:
    return hashlib.sha256(ident.encode("utf-8", "surrogatepass")).digest()


def _verdict(judgment: Judgment | None) -> int | None:
    return judgment.verdict if judgment is not None and judgment.status == "ok" else None
