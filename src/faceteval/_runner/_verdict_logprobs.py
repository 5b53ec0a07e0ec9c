"""The verdict's probability from log-probabilities (``confidence="verdict-logprobs"``).

With ``--score-mode logprobs`` a call that scores every candidate records, per score, its
distribution over the scale (`faceteval.core.ScoreSource`). Taking the candidates' scores as
independent, the probability of a verdict is the chance that its winner's score comes out on top,
a top it shares with k others counting 1/(k+1) (for two candidates: P(winner's > other's) +
½ P(equal)); of a tie verdict, the chance that the top is shared. The overall scores' distributions
are one reply's (direct, cot, DnA's ``prompted`` aggregate: the reply whose expected scores are the
overall scores) or, when the overall scores are the facets' weighted mean (DnA's ``weighted`` and
``mean``) and each facet's scores are one reply's, the distribution of the weighted sum of the
independent facet scores. With several orders (``--swap``)
it is the mean over the orders, each order's from that order's distributions. A verdict that is a
token of the reply (LLMBar's ``Output (a)``) has the probability the reply gave that token, over the
choices found among its top alternatives (`faceteval.core.ScoreSource` with ``choice``).

Where a judgment has no such distributions, it gets no probability but the reason (a sentence),
which the run counts (`RunStats.confidence_missing`): a number is never made up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from faceteval.core import FacetScore, Judgment, ScoreSource, TraceEntry

NO_SCORING = "no score of the judgment was read from log-probabilities (use --score-mode logprobs)"
COMBINED = "the overall scores are neither one call's nor a weighted mean of facet scores each from one call"
_TOLERANCE = 1e-6

Distribution = Mapping[float, float]


def verdict_probability(judgment: Judgment, trace: Sequence[TraceEntry]) -> float | str:
    """The probability of ``judgment``'s verdict from the distributions in ``trace``, or why there is none.

    Examples:
        >>> from faceteval.core import ScoreSource
        >>> a = ScoreSource(mode="logprobs", written=8, score=7.8, distribution=[(7, 0.2), (8, 0.8)])
        >>> b = ScoreSource(mode="logprobs", written=7, score=7.0, distribution=[(7, 1.0)])
        >>> entry = TraceEntry(stage="direct", messages=[], raw="", order=[1, 2], scoring=[a, b])
        >>> judged = Judgment(id="1", method="direct", status="ok", verdict=1, scores=[7.8, 7.0])
        >>> verdict_probability(judged, [entry])  # .8 above, .2 level (half of it)
        0.9
    """
    if judgment.status != "ok" or judgment.verdict is None:
        return "the judgment has no verdict"
    orders: list[tuple[list[int] | None, list[float] | None, list[FacetScore]]] = [
        (o.order, o.scores, o.facets) for o in judgment.orders
    ]
    orders = orders or [(_first_order(trace), judgment.scores, judgment.facets)]
    found: list[float] = []
    for order, scores, facets in orders:
        per_order = _order_probability(judgment.verdict, order, scores, facets, trace)
        if isinstance(per_order, str):
            return per_order
        found.append(per_order)
    return round(math.fsum(found) / len(found), 9)


def _first_order(trace: Sequence[TraceEntry]) -> list[int] | None:
    return next((entry.order for entry in trace if entry.order is not None), None)


def _order_probability(
    verdict: int,
    order: list[int] | None,
    scores: Sequence[float] | None,
    facets: Sequence[FacetScore],
    trace: Sequence[TraceEntry],
) -> float | str:
    entries = [e for e in trace if e.order == order and (e.scoring or e.choice) and not e.reused]
    if not entries or order is None:
        return NO_SCORING
    if len(entries) == 1 and (choice := entries[0].choice) is not None:
        return _chosen(verdict, order, choice)
    read = [_distributions(entry, order) for entry in entries]
    usable = [found for found in read if isinstance(found, list)]
    overall = [found for found in usable if scores is not None and _matches(found, scores)]
    if len(overall) == 1:
        return probability_of(verdict, overall[0])
    combined = _from_facets(scores, facets, usable)
    if combined is not None:
        return probability_of(verdict, combined)
    unread = [found for found in read if isinstance(found, str)]
    return unread[0] if unread else COMBINED


def _distributions(entry: TraceEntry, order: list[int]) -> list[Distribution] | str | None:
    """Each candidate's distribution (original order) from one reply's scores; None when the reply
    does not score every candidate once, or why its scores were parsed."""
    sources = entry.scoring or []
    if len(sources) != len(order):
        return None
    unread = [s.reason or "a score was read as written" for s in sources if s.mode != "logprobs"]
    if unread:
        return f"a score was parsed, not read from log-probabilities: {unread[0]}"
    distributions: list[Distribution] = [{} for _ in order]
    for shown, original in enumerate(order):
        distributions[original - 1] = dict(sources[shown].distribution or ())
    return distributions


def _matches(distributions: Sequence[Distribution], scores: Sequence[float | None]) -> bool:
    """Whether the distributions' expected scores are ``scores``."""
    return len(distributions) == len(scores) and all(
        score is not None and abs(math.fsum(v * p for v, p in d.items()) - score) <= _TOLERANCE
        for d, score in zip(distributions, scores, strict=True)
    )


def _from_facets(
    scores: Sequence[float] | None, facets: Sequence[FacetScore], read: Sequence[list[Distribution]]
) -> list[Distribution] | None:
    """Each candidate's overall distribution when the overall scores are the facets' weighted mean
    (DnA's ``weighted`` and ``mean``) and each facet's scores are one reply's: the weighted sum of
    independent facet scores. None otherwise, or when the sums would take too many values."""
    if scores is None or not facets or any(f.weight is None for f in facets):
        return None
    weights = [float(f.weight or 0.0) for f in facets]
    total = math.fsum(weights)
    if total <= 0:
        return None
    per_facet = []
    for facet in facets:
        hits = [found for found in read if _matches(found, facet.scores)]
        if not hits or any(hit != hits[0] for hit in hits):
            return None
        per_facet.append(hits[0])
    shares = [w / total for w in weights]
    for m, score in enumerate(scores):
        means = [math.fsum(v * p for v, p in found[m].items()) for found in per_facet]
        if abs(math.fsum(c * x for c, x in zip(shares, means, strict=True)) - score) > _TOLERANCE:
            return None
    overall = [
        _weighted_sum([(c, found[m]) for c, found in zip(shares, per_facet, strict=True)])
        for m in range(len(scores))
    ]
    return None if any(d is None for d in overall) else [d for d in overall if d is not None]


_MOST_VALUES = 100_000


def _weighted_sum(terms: Sequence[tuple[float, Distribution]]) -> Distribution | None:
    """The distribution of the sum of independent ``weight x value`` terms (None past `_MOST_VALUES`)."""
    found: dict[float, float] = {0.0: 1.0}
    for weight, distribution in terms:
        summed: dict[float, float] = {}
        for total, p in found.items():
            for value, q in distribution.items():
                key = round(total + weight * value, 9)
                summed[key] = summed.get(key, 0.0) + p * q
        if len(summed) > _MOST_VALUES:
            return None
        found = summed
    return found


def _chosen(verdict: int, order: list[int] | None, choice: ScoreSource) -> float | str:
    """The probability the reply's verdict token gave ``verdict`` (original numbering); a tie, which
    no token says, 0."""
    if choice.mode != "logprobs" or order is None:
        return f"the verdict was parsed, not read from log-probabilities: {choice.reason or 'as written'}"
    if verdict == 0:
        return 0.0
    shown = float(order.index(verdict) + 1)
    return dict(choice.distribution or ()).get(shown, 0.0)


def probability_of(verdict: int, distributions: Sequence[Distribution]) -> float:
    """The probability of ``verdict`` (1-based winner, 0 a tie) for independent score ``distributions``.

    Examples:
        >>> probability_of(1, [{8: 0.5, 9: 0.5}, {8: 1.0}])
        0.75
        >>> probability_of(0, [{8: 0.5, 9: 0.5}, {8: 1.0}])
        0.5
    """
    if verdict == 0:
        alone = math.fsum(_alone_on_top(m, distributions) for m in range(len(distributions)))
        return round(min(max(1.0 - alone, 0.0), 1.0), 9)
    return round(min(max(_wins(verdict - 1, distributions), 0.0), 1.0), 9)


def _wins(winner: int, distributions: Sequence[Distribution]) -> float:
    """P(``winner`` on top), a top shared with k others counting 1/(k+1)."""
    total = 0.0
    others = [d for m, d in enumerate(distributions) if m != winner]
    for value, p in distributions[winner].items():
        # coefficients of z^t in the product of (P(below) + P(equal) z): t others level, none above
        level = [1.0]
        for other in others:
            below = math.fsum(q for v, q in other.items() if v < value)
            equal = other.get(value, 0.0)
            level = [
                (level[t] * below if t < len(level) else 0.0) + (level[t - 1] * equal if t > 0 else 0.0)
                for t in range(len(level) + 1)
            ]
        total += p * math.fsum(c / (t + 1) for t, c in enumerate(level))
    return total


def _alone_on_top(candidate: int, distributions: Sequence[Distribution]) -> float:
    """P(``candidate``'s score strictly above every other's)."""
    total = 0.0
    for value, p in distributions[candidate].items():
        below = math.prod(
            math.fsum(q for v, q in d.items() if v < value)
            for m, d in enumerate(distributions)
            if m != candidate
        )
        total += p * below
    return total
