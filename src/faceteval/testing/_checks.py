"""Whether a judgment holds what an assertion asks, and if not, why (the headline of its failure).

Only an ``ok`` judgment can pass: a reply that could not be read, or a call that failed, is a failure
with its own headline, never a pass and never a default score.
"""

from __future__ import annotations

from faceteval import Judgment
from faceteval._util.numbers import fmt

PAIR_LABELS = ("candidate", "baseline")
"""How messages name the two outputs of `assert_prefers`, in the order the judge is given them."""
OUTPUT_LABELS = ("output",)
"""How messages name the one output of `assert_score`."""


def not_judged(judgment: Judgment, what: str) -> str | None:
    """The headline of a judgment that is not ``ok`` (``what``: what was to be judged), else None."""
    if judgment.status == "parse_error":
        return (
            f"{judgment.method} could not read the judge's reply, so the {what} was not judged "
            f"(a parse failure fails the assertion): {judgment.error}"
        )
    if judgment.status != "ok":
        return f"{judgment.method} could not judge the {what}: {judgment.error}"
    return None


def margin_of(judgment: Judgment) -> float | None:
    """The candidate's score minus the baseline's (each the mean over the orders judged), if scored."""
    scores = judgment.scores
    if scores is None or len(scores) != 2:
        return None
    return scores[0] - scores[1]


def preference_failure(judgment: Judgment, min_margin: float) -> str | None:
    """Why ``judgment`` does not prefer the candidate (its first output) by ``min_margin``, or None."""
    if (headline := not_judged(judgment, "pair")) is not None:
        return headline
    margin = margin_of(judgment)
    by = "" if margin is None else f" (margin {fmt(round(margin, 6))})"
    if judgment.verdict == 0 and judgment.consistent is False:
        return (
            "the judge's verdict changed with the order the outputs were shown in (a swap "
            f"disagreement, counted as a tie){by}: the candidate is not preferred"
        )
    if judgment.verdict == 0:
        return f"the judge found a tie{by}: the candidate is not preferred"
    if judgment.verdict != 1:
        return f"the baseline is preferred over the candidate{by}"
    if margin is None:
        if min_margin > 0:
            return (
                f"the candidate is preferred, but {judgment.method} gives no scores to measure a margin "
                f"with (min_margin={fmt(min_margin)})"
            )
        return None
    if margin < min_margin:
        return (
            f"the candidate is preferred by a margin of {fmt(round(margin, 6))}, less than "
            f"min_margin={fmt(min_margin)}"
        )
    return None


def score_failure(judgment: Judgment, at_least: float) -> str | None:
    """Why ``judgment`` does not score its one output at ``at_least`` or more; None if it does."""
    if (headline := not_judged(judgment, "output")) is not None:
        return headline
    score = judgment.scores[0] if judgment.scores else None
    if score is None:
        return f"{judgment.method} gave the output no score to compare with at_least={fmt(at_least)}"
    if score < at_least:
        return f"the output scored {fmt(round(score, 6))}, below at_least={fmt(at_least)}"
    return None
