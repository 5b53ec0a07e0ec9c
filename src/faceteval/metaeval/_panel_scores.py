"""What a judge panel's report adds on a pointwise (rating) benchmark.

Each judge's correlations with the reference scores, per aspect and level, beside the panel's (the
run's own ``correlations``, computed the same way), and how far the judges agree on their scores:
Krippendorff's alpha, interval, per aspect (a judge's failed or missing judgment is a missing rating).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from faceteval import metrics
from faceteval.core import FacetScore, Instance, Judgment

if TYPE_CHECKING:
    from faceteval.metaeval._judgments import Joined

ScoredRows = list[tuple[Instance, float, float]]
"""Per instance: the instance, a judge's score of an aspect and the reference's."""
MIN_ROWS = 3
"""The fewest scored instances an aspect is correlated over (fewer: the aspect is left out)."""


def facet_or_overall(
    status: str, facets: Sequence[FacetScore], scores: Sequence[float] | None, aspect: str
) -> float | None:
    """A score of ``aspect``: the facet of that name (any case), else the overall score; None unless ok.

    Examples:
        >>> facet_or_overall("ok", [FacetScore(name="Fluency", scores=[4.0])], [3.5], "fluency")
        4.0
        >>> facet_or_overall("ok", [], [3.5], "fluency"), facet_or_overall("error", [], None, "fluency")
        (3.5, None)
    """
    if status != "ok":
        return None
    for facet in facets:
        if facet.name.lower() == aspect.lower() and facet.scores and facet.scores[0] is not None:
            return facet.scores[0]
    return scores[0] if scores else None


def member_score(judgment: Judgment | None, judge: str, aspect: str) -> float | None:
    """``judge``'s score of ``aspect`` in a panel's judgment; None where it has none."""
    if judgment is None:
        return None
    for member in judgment.panel:
        if member.judge == judge:
            return facet_or_overall(member.status, member.facets, member.scores, aspect)
    return None


def _scorer(judge: str, aspect: str) -> Callable[[Judgment | None], float | None]:
    return lambda judgment: member_score(judgment, judge, aspect)


def aspect_rows(
    joined: Joined, aspect: str, score: Callable[[Judgment | None], float | None]
) -> tuple[ScoredRows, int]:
    """Of each instance with a reference score of ``aspect`` and a ``score``: the instance, the score and
    the reference score; and how many have the first alone."""
    rows: ScoredRows = []
    scored = 0
    for instance, judgment in joined.pairs:
        if instance.scores and aspect in instance.scores:
            scored += 1
            if (value := score(judgment)) is not None:
                rows.append((instance, value, instance.scores[aspect]))
    return rows, scored - len(rows)


def score_panel_summary(
    joined: Joined, aspects: Sequence[str], correlate: Callable[[ScoredRows], dict[str, Any]]
) -> dict[str, Any] | None:
    """Each judge's correlations and the judges' agreement on their scores (pointwise panels).

    None when no judgment is a panel's. ``correlate(rows)`` gives the correlation levels of an
    aspect's rows, as the run's own are computed.
    """
    panels = [j for _, j in joined.pairs if j is not None and j.panel]
    if not panels:
        return None
    judges = [member.judge for member in panels[0].panel]
    out: dict[str, Any] = {"vote": panels[0].panel_vote, "judges": [], "alpha": {}}
    for judge in judges:
        correlations: dict[str, Any] = {}
        unjudged: dict[str, int] = {}
        for aspect in aspects:
            rows, left_out = aspect_rows(joined, aspect, _scorer(judge, aspect))
            if left_out:
                unjudged[aspect] = left_out
            if len(rows) >= MIN_ROWS:
                correlations[aspect] = correlate(rows)
        entry: dict[str, Any] = {"judge": judge, "correlations": correlations}
        if unjudged:
            entry["unjudged"] = unjudged
        out["judges"].append(entry)
    for aspect in aspects:
        every = [[member_score(j, judge, aspect) for _, j in joined.pairs] for judge in judges]
        out["alpha"][aspect] = {
            "value": metrics.krippendorff_alpha(every, level="interval"),
            "level": "interval",
            "of": "scores",
            "n": sum(sum(v is not None for v in column) >= 2 for column in zip(*every, strict=True)),
        }
    return out
