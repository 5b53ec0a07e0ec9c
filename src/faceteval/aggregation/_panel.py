"""A judge panel's verdict: several judges' judgments of one instance combined into one.

``majority``: the verdict given by more judges than any other verdict (a tie, 0, counts as a
verdict too); when two or more verdicts share the most votes there is no winner, and the panel's
verdict is a tie (0), never one of them by default. ``mean`` and ``median``: each candidate's
overall score is combined over the judges, and the verdict is the single best combined score
(DnA-Eval's Eq. 4: equal top scores are a tie). Judges with a verdict and no scores (recorded
judges, ``direct`` without scores) take part by their votes: the winner 1, the others 0, a tie 1/n
each. Facets are combined per facet (mean, or median with ``median``) when every judge scored the
same facets; each judge's own facets stay in the judgment's ``panel``.

A panel's judgment is ok only when every judge's is: a judge that failed fails the panel's
judgment (naming the judge), so no verdict is quietly made by fewer judges than the panel has.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from typing import get_args

from faceteval.aggregation._functions import ranks, verdict
from faceteval.core import FacetScore, Judgment, PanelMember, PanelVote, Usage

PANEL_VOTES: tuple[str, ...] = get_args(PanelVote)
"""The ways a panel combines its judges: ``majority``, ``mean``, ``median``."""
DEFAULT_PANEL_VOTE: PanelVote = "majority"
_DECIMALS = 9


def majority_verdict(verdicts: Sequence[int]) -> int:
    """The verdict more judges gave than any other; 0 (a tie) when no single verdict has the most.

    Examples:
        >>> majority_verdict([1, 1, 2]), majority_verdict([1, 2]), majority_verdict([1, 2, 0])
        (1, 0, 0)
        >>> majority_verdict([0, 0, 1])
        0
    """
    if not verdicts:
        raise ValueError("a majority of no verdicts")
    counts = Counter(verdicts).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return 0
    return counts[0][0]


def votes(verdict_: int, n: int) -> list[float]:
    """A verdict as one vote per candidate: the winner 1, the others 0; a tie 1/n each.

    Examples:
        >>> votes(2, 2), votes(0, 2)
        ([0.0, 1.0], [0.5, 0.5])
    """
    if verdict_ == 0:
        return [1 / n] * n
    return [float(verdict_ == m) for m in range(1, n + 1)]


def combine_panel(
    judges: Sequence[str], judgments: Sequence[Judgment], vote: PanelVote, *, candidates: int
) -> Judgment:
    """One judgment of a panel from its ``judges``' ``judgments`` of the same instance.

    ``candidates`` is how many candidates the instance has (how verdict-only judges' votes are
    counted by ``mean`` and ``median``).

    Raises:
        ValueError: No judges, judges and judgments that do not pair up, judgments of different
            instances, or an unknown ``vote``.

    Examples:
        >>> a = Judgment(id="1", method="direct", status="ok", verdict=1, scores=[8.0, 6.0])
        >>> b = Judgment(id="1", method="direct", status="ok", verdict=2, scores=[5.0, 7.0])
        >>> c = Judgment(id="1", method="direct", status="ok", verdict=1, scores=[9.0, 3.0])
        >>> combine_panel(["x", "y", "z"], [a, b, c], "majority", candidates=2).verdict
        1
        >>> combine_panel(["x", "y"], [a, b], "majority", candidates=2).verdict
        0
        >>> combine_panel(["x", "y"], [a, b], "mean", candidates=2).scores
        [6.5, 6.5]
    """
    _check(judges, judgments, vote)
    members = [_member(judge, judgment) for judge, judgment in zip(judges, judgments, strict=True)]
    first = judgments[0]
    trace = [entry for judgment in judgments for entry in judgment.trace]
    base = Judgment(
        id=first.id,
        method=first.method,
        status="ok",
        panel=members,
        panel_vote=vote,
        usage=sum((j.usage for j in judgments), Usage()),
        input_hash=first.input_hash,
        trace=trace,
    )
    failed = [(m.judge, m) for m in members if m.status != "ok"]
    if failed:
        judge, member = failed[0]
        status = "parse_error" if all(m.status == "parse_error" for _, m in failed) else "error"
        return base.model_copy(update={"status": status, "error": f"judge {judge}: {member.error}"})
    return base.model_copy(update=_combined(judgments, vote, candidates))


def _check(judges: Sequence[str], judgments: Sequence[Judgment], vote: str) -> None:
    if vote not in PANEL_VOTES:
        raise ValueError(f"unknown panel vote {vote!r}: one of {', '.join(PANEL_VOTES)}")
    if not judges or len(judges) != len(judgments):
        raise ValueError(
            f"a panel pairs each judge with its judgment: {len(judges)} judges, {len(judgments)}"
        )
    if len({j.id for j in judgments}) > 1:
        raise ValueError(
            f"a panel combines judgments of one instance, got ids {sorted({j.id for j in judgments})}"
        )


def _member(judge: str, judgment: Judgment) -> PanelMember:
    return PanelMember(
        judge=judge,
        status=judgment.status,
        error=judgment.error,
        verdict=judgment.verdict,
        scores=judgment.scores,
        facets=judgment.facets,
        consistent=judgment.consistent,
        usage=judgment.usage,
    )


def _combined(judgments: Sequence[Judgment], vote: PanelVote, candidates: int) -> dict[str, object]:
    """The panel's verdict, scores, ranks, facets and consistency from judgments that are all ok."""
    combine: Callable[[Sequence[float]], float] = statistics.median if vote == "median" else statistics.fmean
    scored = all(j.scores is not None for j in judgments)
    scores = (
        _combine_columns([j.scores for j in judgments if j.scores is not None], combine) if scored else None
    )
    verdicts = [j.verdict for j in judgments]
    if any(v is None for v in verdicts):  # one candidate, or no verdict: nothing to vote on
        panel_verdict = None
    elif vote == "majority":
        panel_verdict = majority_verdict([v for v in verdicts if v is not None])
    elif scores is not None:
        panel_verdict = verdict(scores)
    else:
        ballots = [votes(v, candidates) for v in verdicts if v is not None]
        panel_verdict = verdict(_combine_columns(ballots, combine))
    consistent = [j.consistent for j in judgments if j.consistent is not None]
    return {
        "verdict": panel_verdict,
        "scores": scores,
        "ranks": ranks(scores) if scores is not None else None,
        "facets": _combine_facets(judgments, combine),
        "consistent": all(consistent) if consistent else None,
    }


def _combine_columns(
    rows: Sequence[Sequence[float]], combine: Callable[[Sequence[float]], float]
) -> list[float]:
    if len({len(row) for row in rows}) > 1:
        raise ValueError(f"the judges scored different numbers of candidates: {[len(r) for r in rows]}")
    return [round(combine([row[m] for row in rows]), _DECIMALS) for m in range(len(rows[0]))]


def _combine_facets(
    judgments: Sequence[Judgment], combine: Callable[[Sequence[float]], float]
) -> list[FacetScore]:
    """Each facet combined over the judges, when they all scored the same facets in the same order."""
    names = [[f.name for f in j.facets] for j in judgments]
    if not names[0] or any(n != names[0] for n in names):
        return []
    combined = []
    for k, first in enumerate(judgments[0].facets):
        facets = [j.facets[k] for j in judgments]
        scores: list[float | None] = []
        for m in range(len(first.scores)):
            known = [s for f in facets if m < len(f.scores) and (s := f.scores[m]) is not None]
            scores.append(round(combine(known), _DECIMALS) if len(known) == len(facets) else None)
        weights = [f.weight for f in facets if f.weight is not None]
        weight = round(statistics.fmean(weights), _DECIMALS) if len(weights) == len(facets) else None
        combined.append(
            FacetScore(
                name=first.name, weight=weight, scores=scores, description=first.description,
                guideline=first.guideline,
            )
        )  # fmt: skip
    return combined
