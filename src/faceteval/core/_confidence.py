"""How far to trust one verdict: a confidence in [0, 1] from what the judge already computed.

The confidence of a judgment is the mean of the *components* it carries evidence for, each in
[0, 1] and each the support the evidence gives to the verdict as given:

- ``margin``: the winner's overall score minus the best other candidate's, over the width of the
  score scale (clipped to 1). A tie verdict (0) is one the scores do not separate: margin 0.
- ``facets``: the share of facet weight whose facet agrees with the verdict: the winner scores
  strictly highest on it (for a tie verdict, its best candidates tie). Facets without a weight
  count equally; a facet missing a score is left out.
- ``orders``: the share of presentation orders (``--swap``, rotations) whose verdict is the verdict
  (only ``consistent`` recorded: 1 when the orders agreed, 0 when they disagreed into a tie).
- ``panel``: the share of a judge panel's members whose verdict is the verdict (from the judgment's
  ``panel``, or given by the caller); members that failed count against it.
- ``logprobs``: a certainty in [0, 1] from the score tokens' probabilities (given by the caller:
  e.g. 1 minus the normalised spread of the expected score).

A component with no evidence (one order, no facets, no scores, no scale) is left out of the mean, so
a judgment with none has no confidence (None). Equal weights keep the formula explainable; the
extension point for other evidence is `ConfidenceInputs` (one more optional field, one more term).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from faceteval.core._judgment import FacetScore, Judgment


SIGNALS = "signals"
"""The estimator `confidence` is: the mean of the components the judgment has evidence for."""
VERDICT_LOGPROBS = "verdict-logprobs"
"""The verdict's probability from the log-probabilities of the judge's reply."""
SIMULATED_ANNOTATORS = "simulated-annotators"
"""The share of K few-shot variants of the judge that agree with their majority verdict."""
STRATEGIES = "strategies"
"""The share of one model's recorded prompting strategies whose verdict agrees (offline)."""
CONFIDENCE_ESTIMATORS = (SIGNALS, VERDICT_LOGPROBS, SIMULATED_ANNOTATORS, STRATEGIES)
"""The names a judgment's ``confidence_estimator`` takes."""


@dataclass(frozen=True, slots=True)
class ConfidenceInputs:
    """Evidence about a verdict that the judgment's own fields do not hold.

    Attributes:
        scale: The (low, high) range of the overall scores; without it the margin is left out.
        panel: Share of a panel's judges whose verdict is the verdict, in [0, 1].
        logprobs: Certainty of the scores from their token probabilities, in [0, 1].
    """

    scale: tuple[float, float] | None = None
    panel: float | None = None
    logprobs: float | None = None


NO_INPUTS = ConfidenceInputs()


def confidence_components(judgment: Judgment, inputs: ConfidenceInputs = NO_INPUTS) -> dict[str, float]:
    """Each component of ``judgment``'s confidence that it has evidence for (see the module's docstring).

    Examples:
        >>> from faceteval.core import Judgment
        >>> judged = Judgment(id="1", method="m", status="ok", verdict=2, scores=[4.0, 7.0])
        >>> confidence_components(judged, ConfidenceInputs(scale=(1.0, 10.0)))
        {'margin': 0.3333333333333333}
    """
    if judgment.status != "ok" or judgment.verdict is None:
        return {}
    found: dict[str, float | None] = {
        "margin": _margin(judgment.verdict, judgment.scores, inputs.scale),
        "facets": _facets(judgment.verdict, judgment.facets),
        "orders": _orders(judgment),
        "panel": inputs.panel if inputs.panel is not None else _panel(judgment),
        "logprobs": inputs.logprobs,
    }
    return {name: min(max(value, 0.0), 1.0) for name, value in found.items() if value is not None}


def confidence(judgment: Judgment, inputs: ConfidenceInputs = NO_INPUTS) -> float | None:
    """The mean of ``judgment``'s confidence components; None when it has none (or failed).

    Examples:
        >>> from faceteval.core import Judgment, OrderResult
        >>> swapped = [OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=2)]
        >>> confidence(Judgment(id="1", method="m", status="ok", verdict=0, orders=swapped))
        0.0
    """
    components = confidence_components(judgment, inputs)
    return round(math.fsum(components.values()) / len(components), 9) if components else None


def _margin(verdict: int, scores: Sequence[float] | None, scale: tuple[float, float] | None) -> float | None:
    if scores is None or scale is None or len(scores) < 2 or not scale[1] > scale[0]:
        return None
    if verdict == 0 or verdict > len(scores):
        return 0.0
    others = [score for index, score in enumerate(scores) if index != verdict - 1]
    return (scores[verdict - 1] - max(others)) / (scale[1] - scale[0])


def _facets(verdict: int, facets: Sequence[FacetScore]) -> float | None:
    scored = [f for f in facets if len(f.scores) >= 2 and all(s is not None for s in f.scores)]
    if not scored:
        return None
    weights = [1.0 if f.weight is None else f.weight for f in scored]
    total = math.fsum(weights)
    if total <= 0:
        return None
    agreeing = math.fsum(w for f, w in zip(scored, weights, strict=True) if _favours(f, verdict))
    return agreeing / total


def _favours(facet: FacetScore, verdict: int) -> bool:
    """Whether the facet's scores give the verdict: its winner alone at the top (a tie: a shared top)."""
    scores = [s for s in facet.scores if s is not None]
    best = [index + 1 for index, score in enumerate(scores) if score == max(scores)]
    return best == [verdict] if verdict else len(best) > 1


def _panel(judgment: Judgment) -> float | None:
    """The share of the panel's members whose verdict is the panel's; None for one judge."""
    if not judgment.panel:
        return None
    return sum(member.verdict == judgment.verdict for member in judgment.panel) / len(judgment.panel)


def _orders(judgment: Judgment) -> float | None:
    """Orders agreeing with the verdict; with only ``consistent`` recorded (a recorded judge that did not
    keep each order's verdict), 1 when they agreed and 0 when they disagreed into a tie."""
    if len(judgment.orders) >= 2:
        return sum(order.verdict == judgment.verdict for order in judgment.orders) / len(judgment.orders)
    if judgment.consistent is True:
        return 1.0
    return 0.0 if judgment.consistent is False and judgment.verdict == 0 else None
