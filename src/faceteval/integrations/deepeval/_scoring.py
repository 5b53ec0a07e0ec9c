"""A judgment as DeepEval reads a metric: a score from 0 to 1, a reason, a breakdown by facet.

No DeepEval here: these are plain functions of a faceteval `Judgment`, so the mapping is one place to
read (and is what ``docs/deepeval.md`` documents).

- Pointwise (the actual output alone): the overall score on the method's scale, ``low`` to ``high``,
  becomes ``(overall - low) / (high - low)``, held within 0..1.
- Pairwise (the actual output against a baseline), by ``verdict``: a win is 1, a tie 0.5, a loss 0.
  By ``margin``: ``0.5 + (actual - baseline) / (2 * (high - low))``, so 0.5 is a draw and 1 the
  widest win the scale allows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from faceteval._util.numbers import fmt
from faceteval.core import FacetScore, Judgment
from faceteval.errors import ConfigError
from faceteval.integrations._scales import Scale, normalised

PairwiseScore = Literal["verdict", "margin"]
PAIRWISE_SCORES: tuple[PairwiseScore, ...] = ("verdict", "margin")
EXPLANATION_CHARS = 160
"""The most characters of a facet's explanation a reason quotes."""

_OUTCOME = {1: "wins against", 0: "ties with", 2: "loses to"}


def pointwise_score(judgment: Judgment, scale: Scale) -> float:
    """An ok judgment of one output: its overall score as a share of ``scale``."""
    return normalised(_scores(judgment)[0], scale)


def pairwise_score(judgment: Judgment, scale: Scale, by: PairwiseScore) -> float:
    """An ok judgment of the actual output (candidate 1) against a baseline (candidate 2).

    Examples:
        >>> won = Judgment(id="1", method="dna", status="ok", verdict=1, scores=[8.0, 5.0])
        >>> pairwise_score(won, (1, 10), "verdict"), pairwise_score(won, (1, 10), "margin")
        (1.0, 0.6666666666666666)
    """
    if by == "margin":
        actual, baseline = _scores(judgment)
        low, high = scale
        return min(1.0, max(0.0, 0.5 + (actual - baseline) / (2 * (high - low))))
    if judgment.verdict is None:
        raise ConfigError(f"the {judgment.method} judgment has no verdict to score")
    return {1: 1.0, 0: 0.5, 2: 0.0}[judgment.verdict]


def _scores(judgment: Judgment) -> list[float]:
    if judgment.scores is None:
        raise ConfigError(
            f"the {judgment.method} judgment has no overall scores (a verdict-only judge): "
            "judge pairwise, scored by verdict"
        )
    return judgment.scores


def breakdown(judgment: Judgment, scale: Scale) -> dict[str, float]:
    """Each facet's score of the actual output, as a share of the facet ``scale`` (facets it left unscored
    are left out)."""
    return {
        facet.name: normalised(facet.scores[0], scale)
        for facet in judgment.facets
        if facet.scores[0] is not None
    }


def reason(judgment: Judgment, scale: Scale, score: float, *, against: str | None) -> str:
    """Why the score is what it is: the overall result, then one line per facet (its weight, scores and
    a short explanation).

    Examples:
        >>> from faceteval.core import FacetScore
        >>> facet = FacetScore(name="Correctness", weight=0.6, scores=[8.0], explanation="Right.")
        >>> judged = Judgment(id="1", method="dna", status="ok", scores=[8.0], facets=[facet])
        >>> print(reason(judged, (1, 10), 0.78, against=None))
        dna: overall 8 on a scale of 1 to 10 (score 0.78).
        - Correctness (weight 0.6): 8. Right.
    """
    scale_words = f"on a scale of {fmt(scale[0])} to {fmt(scale[1])}"
    overall = " to ".join(fmt(round(s, 2)) for s in judgment.scores) if judgment.scores else None
    if against is None:
        head = f"{judgment.method}: overall {overall} {scale_words} (score {score:.2f})."
    else:
        outcome = _OUTCOME.get(judgment.verdict or 0, "ties with")
        scored = f", overall {overall} {scale_words}" if overall else ""
        head = f"{judgment.method}: the actual output {outcome} the {against}{scored} (score {score:.2f})."
        if judgment.consistent is False:
            head += " The presentation orders disagreed, so it counts as a tie."
    return "\n".join([head, *(_facet_line(facet) for facet in judgment.facets)])


def _facet_line(facet: FacetScore) -> str:
    weight = "" if facet.weight is None else f" (weight {fmt(round(facet.weight, 3))})"
    scores = " to ".join("unscored" if s is None else fmt(round(s, 2)) for s in facet.scores)
    explanation = facet.explanation or _first(facet.explanations)
    return f"- {facet.name}{weight}: {scores}." + (f" {_short(explanation)}" if explanation else "")


def _first(explanations: Sequence[str | None] | None) -> str | None:
    return next((e for e in explanations or () if e), None)


def _short(text: str) -> str:
    """``text`` on one line, cut at a word near `EXPLANATION_CHARS`."""
    line = re.sub(r"\s+", " ", text).strip()
    if len(line) <= EXPLANATION_CHARS:
        return line
    return line[:EXPLANATION_CHARS].rsplit(" ", 1)[0] + " …"
