"""How well a pairwise judge's confidence tells its right verdicts from its wrong ones: selective
accuracy (agreement with humans when abstaining on the least confident verdicts) and calibration.

Each labelled instance's confidence is its judgment's ``confidence`` when the judgment carries one
(the runner computes it as it judges; ``confidence_estimator`` says how), else `faceteval.core.confidence`
over what the judgment carries (the ``signals`` estimator), its margin measured on the run's score
range (the lowest to the highest overall score of its ok judgments). A failed or missing judgment, or
one with no evidence, has no confidence: it is the least confident of all (the verdicts without one tie
among themselves). A verdict *agrees* when it equals the human label (ties a class, as ``agreement``
counts them); a failed or missing one never does.

- ``selective_accuracy``: at coverage c, agreement on the ``ceil(c * n)`` most confident instances.
  Equal confidences have no order, so it is the exact expectation over every order of the tied group at
  the cut (`faceteval.metrics.selective_agreement`), with the lowest and highest agreement an order
  gives (``low``, ``high``) and the size of that group (``tied_at_cut``).
- ``calibration``: the estimator, the AUROC of confidence for "the verdict agrees" (the verdicts
  without a confidence ranked lowest), the expected calibration error over ten bins with the bins (the
  verdicts with a confidence only: the others claim no probability), and the share of verdicts at each
  confidence value (the largest first: a large one means confidence hardly ranks the verdicts).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from faceteval import metrics
from faceteval.core import SIGNALS, ConfidenceInputs, Instance, Judgment, confidence
from faceteval.metaeval._bias import Pairs

COVERAGES = (0.5, 0.75, 0.9, 1.0)
BINS = 10
"""Equal-width bins of confidence behind the expected calibration error and the reliability plot."""
TOP_TIES = 5
"""How many confidence values the tied shares name."""
MIXED = "mixed"
"""The estimator named when the judgments' confidences come from several."""


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


def confidence_measures(pairs: Pairs) -> dict[str, Any]:
    """``selective_accuracy`` and ``calibration`` of the labelled pairs; empty when no judgment has a
    confidence. The pairs are read three times, a pair at a time."""
    labelled = _Labelled(pairs)
    values = confidences(labelled)
    if all(value is None for value in values):
        return {}
    agrees: list[bool] = []
    estimators: Counter[str] = Counter()
    for (instance, judgment), value in zip(labelled, values, strict=True):
        agrees.append(_verdict(judgment) == instance.label)
        if judgment is not None and value is not None:
            estimators[judgment.confidence_estimator or SIGNALS] += 1
    return {
        "selective_accuracy": selective_accuracy(values, agrees),
        "calibration": calibration(values, agrees, estimators),
    }


def selective_accuracy(values: list[float | None], agrees: list[bool]) -> dict[str, Any]:
    """Agreement at each coverage of `COVERAGES`, exact over the orders of tied confidences."""
    rows = []
    for coverage in COVERAGES:
        kept = metrics.selective_agreement(values, agrees, coverage)
        rows.append(
            {
                "coverage": coverage,
                "kept": kept.kept,
                "min_confidence": kept.min_confidence,
                "tied_at_cut": kept.tied_at_cut,
                "agreement": {"value": kept.agreement, "low": kept.low, "high": kept.high, "n": kept.kept},
            }
        )
    known = [value for value in values if value is not None]
    return {
        "n": len(values),
        "with_confidence": len(known),
        "mean_confidence": math.fsum(known) / len(known),
        "coverages": rows,
    }


def calibration(values: list[float | None], agrees: list[bool], estimators: Counter[str]) -> dict[str, Any]:
    """The estimator, AUROC, expected calibration error with its bins, and the tied shares."""
    lowest = [-1.0 if value is None else value for value in values]  # below every confidence, tied
    error = metrics.calibration_error(values, agrees, bins=BINS)
    shares = [
        {"confidence": value, "n": round(share * len(values)), "share": share}
        for value, share in metrics.tied_shares(values, top=TOP_TIES)
    ]
    return {
        "estimator": next(iter(estimators)) if len(estimators) == 1 else MIXED,
        "estimators": dict(sorted(estimators.items())),
        "n": len(values),
        "with_confidence": error.n,
        "auroc": metrics.confidence_auroc(lowest, agrees),
        "ece": error.ece,
        "bins": [entry.as_dict() for entry in error.bins],
        "tied_shares": shares,
        "largest_tied_share": shares[0]["share"],
    }


class _Labelled(Iterable[tuple[Instance, Judgment | None]]):
    """The labelled pairs of ``pairs``, read again (a pair at a time) each time they are iterated."""

    def __init__(self, pairs: Pairs) -> None:
        self._pairs = pairs

    def __iter__(self) -> Iterator[tuple[Instance, Judgment | None]]:
        return ((i, j) for i, j in self._pairs if i.label is not None)


def _verdict(judgment: Judgment | None) -> int | None:
    return judgment.verdict if judgment is not None and judgment.status == "ok" else None
