"""A judgment as ``gen_ai.evaluation.result`` events, as OpenTelemetry's GenAI semantic conventions record
an evaluation of a GenAI output.

A judgment evaluates each of its instance's candidates. Each candidate gets one event for the method's
overall result (``gen_ai.evaluation.name`` the method: ``dna``), with its overall score
(``gen_ai.evaluation.score.value``) and, when the judgment has a verdict, whether it won, lost or tied
(``gen_ai.evaluation.score.label``); and one event per facet that scored it (named by the facet),
with the facet's score. A failed judgment is one event with its ``error.type`` (`failure_kind`).
The judge's explanations (``gen_ai.evaluation.explanation``) are its replies' words, so they are in
only when message contents are (``explained``).
"""

from __future__ import annotations

from typing import Any, Literal

from faceteval.core import FacetScore, Judgment
from faceteval.core.internal import failure_kind

EVALUATION_EVENT = "gen_ai.evaluation.result"
"""The event's name in the GenAI semantic conventions."""
NAME = "gen_ai.evaluation.name"
SCORE = "gen_ai.evaluation.score.value"
LABEL = "gen_ai.evaluation.score.label"
EXPLANATION = "gen_ai.evaluation.explanation"
Outcome = Literal["win", "loss", "tie"]


def evaluations(judgment: Judgment, candidates: int, *, explained: bool = False) -> list[dict[str, Any]]:
    """The attributes of each ``gen_ai.evaluation.result`` event of ``judgment`` of ``candidates`` outputs.

    Examples:
        >>> won = Judgment(id="1", method="dna", status="ok", verdict=1, scores=[8.0, 5.0])
        >>> [(e["faceteval.candidate"], e[SCORE], e[LABEL]) for e in evaluations(won, 2)]
        [(1, 8.0, 'win'), (2, 5.0, 'loss')]
        >>> evaluations(Judgment(id="1", method="dna", status="parse_error", error="..."), 2)
        [{'gen_ai.evaluation.name': 'dna', 'error.type': 'parse_error'}]
    """
    if (failed := failure_kind(judgment)) is not None:
        return [{NAME: judgment.method, "error.type": failed}]
    events = []
    for candidate in range(1, candidates + 1):
        overall: dict[str, Any] = {NAME: judgment.method, "faceteval.candidate": candidate}
        if judgment.scores is not None and candidate <= len(judgment.scores):
            overall[SCORE] = float(judgment.scores[candidate - 1])
        if (outcome := _outcome(judgment.verdict, candidate)) is not None:
            overall[LABEL] = outcome
        if explained and judgment.explanation:
            overall[EXPLANATION] = judgment.explanation
        events.append(overall)
        events += [e for facet in judgment.facets if (e := _facet(facet, candidate, explained)) is not None]
    return events


def _outcome(verdict: int | None, candidate: int) -> Outcome | None:
    """What the verdict says of ``candidate``: ``win``, ``loss``, or ``tie`` (for all, of a tie); None
    without a verdict."""
    if verdict is None:
        return None
    if verdict == 0:
        return "tie"
    return "win" if verdict == candidate else "loss"


def _facet(facet: FacetScore, candidate: int, explained: bool) -> dict[str, Any] | None:
    """The event of ``facet``'s score of ``candidate``; None where it did not score it."""
    score = facet.scores[candidate - 1] if candidate <= len(facet.scores) else None
    if score is None:
        return None
    event: dict[str, Any] = {
        NAME: facet.name,
        SCORE: float(score),
        "faceteval.candidate": candidate,
        "faceteval.facet": facet.name,
    }
    if facet.weight is not None:
        event["faceteval.weight"] = facet.weight
    each = facet.explanations or ()
    own = each[candidate - 1] if candidate <= len(each) else None
    if explained and (explanation := own or facet.explanation):
        event[EXPLANATION] = explanation
    return event
