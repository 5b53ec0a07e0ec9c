"""A correction judged against its original (Fennec pairwise-eval, both orders); what correction gained."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from faceteval._runner import (
    JudgeOptions,
    judge_instance,
)
from faceteval.core import Instance, TraceEntry
from faceteval.llm import LLM
from faceteval.methods import QueryMemo
from faceteval.methods.fennec import Fennec
from faceteval.prompts import Prompts
from faceteval.workflows.fennec._correctable import CriterionJudgment, response_score

CONFIDENCE = 0.95


RejudgeStatus = Literal["ok", "parse_error", "error"]


class Rejudge(BaseModel):
    """A corrected response judged against its original (Fennec pairwise-eval, both orders).

    Scores are mean per-criterion 1-5 scores (`response_score`), averaged over the two orders. A
    judgment that failed keeps its status, error and unreadable reply, and has no scores.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: RejudgeStatus = "ok"
    original: float | None = None
    corrected: float | None = None
    gain: float | None = None
    """``corrected - original``."""
    verdict: int | None = None
    """1: the original is better, 2: the corrected response is, 0: a tie (or the orders disagreed)."""
    consistent: bool | None = None
    """Whether the two orders agreed on the verdict."""
    error: str | None = None
    raw: str | None = None
    """The reply that could not be read, when one could not."""


@dataclass(frozen=True, slots=True)
class Improvement:
    """What correction gained, over the corrected responses re-judged without failure (cf. Table 4).

    Attributes:
        responses: Re-judged corrected responses counted.
        before: Mean score of their originals (1-5).
        after: Mean score of their corrections (1-5).
        gain: Mean of ``after - before`` per response (the paper's "Impr").
        ci: The gain's confidence interval (Student's t), None with fewer than two responses.
        wins: Corrections judged better than their original.
        ties: Ties, and orders that disagreed.
        losses: Corrections judged worse.
    """

    responses: int = 0
    before: float | None = None
    after: float | None = None
    gain: float | None = None
    ci: tuple[float, float] | None = None
    wins: int = 0
    ties: int = 0
    losses: int = 0

    def to_dict(self) -> dict[str, Any]:
        """For run records."""
        return {
            "responses": self.responses,
            "before": self.before,
            "after": self.after,
            "gain": self.gain,
            "ci": None if self.ci is None else list(self.ci),
            "confidence": CONFIDENCE,
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
        }


async def rejudge_correction(
    instance: Instance,
    judgments: Sequence[CriterionJudgment],
    original: str,
    corrected: str,
    llm: LLM,
    *,
    memo: QueryMemo | None = None,
    prompts: Prompts | None = None,
) -> tuple[Rejudge, list[TraceEntry]]:
    """Judge ``corrected`` against ``original`` (answers to ``instance``'s query) in both orders.

    Fennec pairwise-eval on the criteria and guidelines of ``judgments`` (put on the instance, so
    none is generated), weighted as they were. Returns the outcome and every exchange made.

    Raises:
        FacetevalError: A fatal error (credentials refused, cache unusable).
    """
    criteria = tuple(j.as_criterion() for j in judgments)
    weighted = all(c.weight is not None for c in criteria)
    pair = Instance(
        id=f"{instance.id}#rejudge",
        query=instance.query,
        candidates=(original, corrected),
        reference=instance.reference,
        criteria=criteria,
    )
    method = Fennec(aggregate="weighted" if weighted else "mean")
    options = JudgeOptions(swap=True)
    judgment, trace = await judge_instance(pair, method, llm, memo or QueryMemo(), options, prompts)
    if judgment.status != "ok":
        unread = next((e.raw for e in reversed(trace) if e.problem is not None), None)
        return Rejudge(status=judgment.status, error=judgment.error, raw=unread), trace
    before, after = (response_score(judgment.facets, m) for m in (1, 2))
    rejudged = Rejudge(
        original=before,
        corrected=after,
        gain=round(after - before, 9),
        verdict=judgment.verdict,
        consistent=judgment.consistent,
    )
    return rejudged, trace


def improvement(rejudges: Iterable[Rejudge], *, confidence: float = CONFIDENCE) -> Improvement:
    """Mean scores before and after, mean gain with its t confidence interval, wins, ties, losses.

    Only re-judgings with status ok count.

    Examples:
        >>> improvement([Rejudge(original=2, corrected=4, gain=2, verdict=2, consistent=True)]).gain
        2.0
    """
    done = [r for r in rejudges if r.status == "ok"]
    before = [r.original for r in done if r.original is not None]
    after = [r.corrected for r in done if r.corrected is not None]
    gains = [r.gain for r in done if r.gain is not None]
    if not gains:
        return Improvement()
    verdicts = Counter(r.verdict for r in done)
    return Improvement(
        responses=len(gains),
        before=statistics.fmean(before),
        after=statistics.fmean(after),
        gain=statistics.fmean(gains),
        ci=_t_interval(gains, confidence),
        wins=verdicts.get(2, 0),
        ties=len(done) - verdicts.get(1, 0) - verdicts.get(2, 0),
        losses=verdicts.get(1, 0),
    )


def _t_interval(values: Sequence[float], confidence: float) -> tuple[float, float] | None:
    """Student's t interval of the mean; None with fewer than two values."""
    if len(values) < 2:
        return None
    centre = statistics.fmean(values)
    sem = statistics.stdev(values) / math.sqrt(len(values))
    if sem == 0:
        return centre, centre
    from scipy import stats

    low, high = stats.t.interval(confidence, len(values) - 1, loc=centre, scale=sem)
    return float(low), float(high)
