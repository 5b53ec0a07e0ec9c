"""A faceteval judgment as an Inspect `Score`: its value, explanation and metadata.

Every value is from 0 to 1. Alone (pointwise), the output's overall score on the method's scale,
``low`` to ``high``, as ``(score - low) / (high - low)`` (DnA-Eval's 7 on 1 to 10: 0.67), the raw score
kept in the metadata (``scores``, with ``scale``); pairwise, 1 for a win, 0.5 for a tie, 0 for a loss.
"""

from __future__ import annotations

from typing import Any, Literal

from inspect_ai.scorer import Score

from faceteval import Judgment
from faceteval.integrations._scales import Scale, normalised

Against = Literal["baseline", "target"]
"""What a sample's output is judged against, pairwise: a baseline text of the sample's, or its target."""

OUTCOMES = {1: ("win", 1.0), 0: ("tie", 0.5), 2: ("loss", 0.0)}
"""A pairwise verdict (1: the sample's output, 2: what it is judged against, 0: a tie) as an outcome
and the score's value: their mean over samples is the output's win rate, ties counted as half."""
GRADER_FAILED = "grader_failed"
"""Inspect's reason for a score the grader could not give (a reply not read, a call that failed)."""
SCORING_FAILED = "scoring_failed"
"""Inspect's reason for a score not asked for (no baseline; a sample the method cannot judge)."""


def judgment_score(
    judgment: Judgment, *, answer: str, against: Against | None, method: dict[str, Any], scale: Scale | None
) -> Score:
    """The `Score` of ``judgment``: the output's overall score as a share of ``scale`` (the method's overall
    score range; None only pairwise, for a method that records none), or (pairwise) 1, 0.5, 0 for win,
    tie, loss.

    A judgment that failed is unscored (`Score.unscored`: left out of the metrics and counted as
    unscored), with its error as explanation and the raw replies that could not be read in its
    metadata: never a default score.
    """
    metadata = {"method": method, **_metadata(judgment, against)}
    if judgment.status == "ok":
        metadata["scale"] = None if scale is None else list(scale)
    value = _value(judgment, against, scale)
    if value is None:
        reason = (
            GRADER_FAILED
            if judgment.status == "parse_error" or _provider_failed(judgment)
            else SCORING_FAILED
        )
        return Score.unscored(
            reason=reason, answer=answer, explanation=judgment.error or "no score", metadata=metadata
        )
    return Score(value=value, answer=answer, explanation=_explanation(judgment, against), metadata=metadata)


def unscored(problem: str, *, answer: str, method: dict[str, Any]) -> Score:
    """The `Score` of a sample that could not be judged at all (no baseline text, no target)."""
    return Score.unscored(
        reason=SCORING_FAILED,
        answer=answer,
        explanation=problem,
        metadata={"method": method, "status": "error", "error": problem},
    )


def _value(judgment: Judgment, against: Against | None, scale: Scale | None) -> float | None:
    if judgment.status != "ok":
        return None
    if against is None:
        return normalised(judgment.scores[0], scale) if judgment.scores and scale is not None else None
    return None if judgment.verdict is None else OUTCOMES[judgment.verdict][1]


def _outcome(judgment: Judgment) -> str | None:
    """``win``, ``tie`` or ``loss`` for the sample's output; None when there is no verdict."""
    return None if judgment.verdict is None else OUTCOMES[judgment.verdict][0]


def _provider_failed(judgment: Judgment) -> bool:
    return any(entry.error is not None for entry in judgment.trace)


def _metadata(judgment: Judgment, against: Against | None) -> dict[str, Any]:
    """What the judgment says beyond its value: facets and weights, verdict, orders, usage, failures."""
    facets = [facet.model_dump(exclude_none=True) for facet in judgment.facets]
    metadata: dict[str, Any] = {
        "status": judgment.status,
        "against": against,
        "scores": judgment.scores,
        "facets": facets,
        "weights": {facet.name: facet.weight for facet in judgment.facets if facet.weight is not None},
        "explanation": judgment.explanation,
        "usage": judgment.usage.model_dump(),
    }
    if against is not None:
        metadata["verdict"] = _outcome(judgment)
        metadata["consistent"] = judgment.consistent
        if judgment.scores is not None and len(judgment.scores) == 2:
            metadata["margin"] = round(judgment.scores[0] - judgment.scores[1], 9)
    if judgment.orders:
        metadata["orders"] = [order.model_dump(exclude_none=True) for order in judgment.orders]
    if judgment.status != "ok":
        metadata["error"] = judgment.error
        metadata["replies"] = [
            entry.model_dump(include={"stage", "raw", "problem", "error", "order"}, exclude_none=True)
            for entry in judgment.trace
            if entry.problem is not None or entry.error is not None
        ]
    return metadata


def _explanation(judgment: Judgment, against: Against | None) -> str:
    """The verdict in words, then one line per facet: weight, scores and the judge's explanation."""
    lines = []
    if against is not None:
        agreed = (
            "" if judgment.consistent is None else f" (orders {'agree' if judgment.consistent else 'differ'})"
        )
        lines.append(f"The output against the {against}: {_outcome(judgment) or 'no verdict'}{agreed}.")
    if judgment.explanation:
        lines.append(judgment.explanation)
    names = ("output",) if against is None else ("output", against)
    for facet in judgment.facets:
        shown = [
            f"{name} {'-' if value is None else f'{value:g}'}"
            for name, value in zip(names, facet.scores, strict=True)
        ]
        if facet.weight is not None:
            shown.append(f"weight {facet.weight:.2f}")
        said = f": {facet.explanation}" if facet.explanation else ""
        lines.append(f"- {facet.name} ({', '.join(shown)}){said}")
    return "\n".join(lines)
