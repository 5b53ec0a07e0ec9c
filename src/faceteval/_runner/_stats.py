"""Run statistics, summed from judgments as they finish."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from faceteval._runner._prefix import PrefixShare
from faceteval.core import Judgment, TraceEntry
from faceteval.core.internal import UNJUDGEABLE, mode_counts
from faceteval.llm import Spend

if TYPE_CHECKING:
    from faceteval._runner._batch import BatchDone

MAX_ERROR_KINDS = 20


@dataclass(slots=True)
class StageStats(Spend):
    """LLM use of one stage (``dna.score``, ``direct`` ...) over a run, counted from the trace."""

    def add(self, entry: TraceEntry) -> None:
        """Count one exchange."""
        self.count(
            cached=entry.cached,
            planned=entry.planned,
            attempts=entry.attempts,
            input_tokens=entry.input_tokens,
            output_tokens=entry.output_tokens,
            cost_usd=entry.cost_usd,
        )


@dataclass(slots=True)
class RunStats:
    """What a run did: judgments by status, and LLM use by stage."""

    statuses: Counter[str] = field(default_factory=Counter)
    invalid: int = 0
    """Input lines that were not valid instances (counted in ``statuses["error"]`` too)."""
    stages: dict[str, StageStats] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    """Error messages of failed judgments with how often each came (at most `MAX_ERROR_KINDS` kinds)."""
    examples: dict[str, str] = field(default_factory=dict)
    """The id of the first judgment that failed with each message."""
    consistency: Counter[bool] = field(default_factory=Counter)
    """Judgments made in several orders, by whether the orders agreed."""
    unjudgeable: int = 0
    """Instances the method cannot judge as they are (`InstanceError`; counted in ``statuses["error"]``)."""
    reused: int = 0
    """Judgments taken as they were from an earlier run's output (counted in ``statuses`` too)."""
    score_modes: Counter[str] = field(default_factory=Counter)
    """With ``--score-mode logprobs``: the scores of ok judgments (facet scores, and overall scores a
    call gave) by how they were obtained: ``logprobs``, ``parse`` (the fallback), ``mixed`` (orders
    differed)."""
    prefix: PrefixShare = field(default_factory=PrefixShare)
    """How much of the per-facet calls' prompts each instance's calls share as a prefix."""
    confidence_missing: Counter[str] = field(default_factory=Counter)
    """Ok judgments left without the confidence the run's estimator asked for, by the reason
    (`Judgment.confidence_missing`: ``verdict-logprobs`` without distributions, say)."""

    def add(
        self,
        judgment: Judgment,
        entries: Iterable[TraceEntry],
        *,
        invalid: bool = False,
        reused: bool = False,
    ) -> None:
        """Count a finished judgment and the exchanges behind it (none for one ``reused``)."""
        self.statuses[judgment.status] += 1
        self.invalid += invalid
        self.reused += reused
        self.unjudgeable += unjudgeable(judgment)
        error = judgment.error
        if error and (error in self.errors or len(self.errors) < MAX_ERROR_KINDS):
            self.errors[error] += 1
            self.examples.setdefault(error, judgment.id)
        if judgment.consistent is not None:
            self.consistency[judgment.consistent] += 1
        self.score_modes.update(mode_counts([judgment]))
        if judgment.confidence_missing is not None:
            self.confidence_missing[judgment.confidence_missing] += 1
        made = [entry for entry in entries if not entry.reused]
        for entry in made:
            self.stages.setdefault(entry.stage, StageStats()).add(entry)
        self.prefix.add(made)

    @property
    def judged(self) -> int:
        """Judgments written, whatever their status."""
        return sum(self.statuses.values())

    @property
    def total(self) -> StageStats:
        """All stages together."""
        return total_of(self.stages.values())


def total_of(stages: Iterable[StageStats]) -> StageStats:
    """The LLM use of ``stages`` together."""
    total = StageStats()
    for stage in stages:
        total.calls += stage.calls
        total.cached += stage.cached
        total.planned += stage.planned
        total.retries += stage.retries
        total.input_tokens += stage.input_tokens
        total.output_tokens += stage.output_tokens
        total.cost_usd += stage.cost_usd
        total.cost_known &= stage.cost_known
    return total


def unjudgeable(judgment: Judgment) -> bool:
    """Whether ``judgment`` failed because the method cannot judge its instance (an `InstanceError`).

    Such failures are the instance's, not signs of a provider in trouble: like invalid input lines,
    they neither count toward ``abort_after`` nor reset its count.
    """
    return judgment.status == "error" and UNJUDGEABLE in (judgment.error or "")


def with_batch(spent: Spend, batch: BatchDone | None) -> Spend:
    """``spent`` (a ``--batch`` run's last pass: cache hits, no call), and what ``batch``'s rounds brought
    into the cache: their replies' tokens, and their cost at the batch rate. What a run record's ``spend``
    counts."""
    return spent if batch is None else spent + batch.spend()


def spent_since(spent: Spend, before: Spend) -> Spend:
    """What ``spent`` counted since it was ``before`` (a copy of it, taken earlier).

    Examples:
        >>> earlier = Spend(calls=2, cost_usd=0.5)
        >>> since = spent_since(Spend(calls=5, cached=1, cost_usd=0.75), earlier)
        >>> since.calls, since.cached, since.cost_usd
        (3, 1, 0.25)
    """
    return Spend(
        calls=spent.calls - before.calls,
        cached=spent.cached - before.cached,
        planned=spent.planned - before.planned,
        retries=spent.retries - before.retries,
        input_tokens=spent.input_tokens - before.input_tokens,
        output_tokens=spent.output_tokens - before.output_tokens,
        cost_usd=spent.cost_usd - before.cost_usd,
        cost_known=spent.cost_known,
        cached_input_tokens=spent.cached_input_tokens - before.cached_input_tokens,
    )
