"""What a judge returns: verdicts, scores, facets, usage, and the trace that explains them.

Every number is finite: NaN or infinity in a score, weight or cost is refused where a judgment is
made or read (JSON has neither; written out, they would become null, which a score cannot be).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from faceteval.core._scoring import RecordedMode, ScoreSource, unset
from faceteval.errors import BatchUnanswered, InstanceError

Status = Literal["ok", "parse_error", "error", "abstained"]
"""A judgment's status: ``ok``; failed (``parse_error``, ``error``); or ``abstained``: judged, but its
confidence is below the calibrated threshold of the run (``judge --calibration``), so it gives no
verdict (its scores, facets and confidence are kept to read; it counts in no win rate)."""
FailureKind = Literal["parse_error", "error", "unjudgeable", "invalid_input", "planned"]
"""Why a judgment failed: see `failure_kind`."""

INVALID_INPUT = "invalid input: "
"""How the error of a judgment written for an input line that is not a valid instance begins."""
UNJUDGEABLE = f"{InstanceError.__name__}: "
"""How the error of a judgment that failed with an `InstanceError` names it."""
UNANSWERED = f"{BatchUnanswered.__name__}: "
"""How the error of a judgment (or any result) names a `BatchUnanswered`: a request the batch rounds
gave up on."""
PLANNED = "dry run: no LLM was called, so nothing was judged (its usage counts the calls planned)"
"""The error of a judgment made with a dry-run LLM that had to plan a call (not all was cached)."""


class Usage(BaseModel):
    """LLM use behind one judgment (or a whole run, when summed)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    calls: int = 0
    """LLM exchanges, including those answered from the cache."""
    cached_calls: int = 0
    """Exchanges answered from the response cache (no call made)."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    """Price of the exchanges, cached or not; None when the model has no known price (or a sum
    overflows)."""

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        if cost is not None and not math.isfinite(cost):  # past the largest float: not a cost to state
            cost = None
        return Usage(
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=cost,
        )


class FacetScore(BaseModel):
    """One facet's scores for every candidate, with its weight and the judge's explanation."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: str
    weight: float | None = None
    """Normalised weight (weights of a judgment sum to 1), or None when the aggregate uses none."""
    scores: list[float | None]
    """One score per candidate, in the instance's candidate order; None where not scored."""
    explanation: str | None = None
    """The judge's explanation of the facet's scores (a comparison, when it wrote one per candidate)."""
    description: str | None = None
    """What the facet means, as the judge was shown it, when it has a description."""
    guideline: str | None = None
    """The scoring guideline the scores follow (what each score means), when there is one."""
    explanations: list[str | None] | None = None
    """The judge's explanation of each candidate's score, in candidate order, when it wrote one each."""
    score_modes: list[RecordedMode | None] | None = Field(default=None, exclude_if=unset)
    """How each score was obtained (``--score-mode logprobs`` runs): ``logprobs`` or ``parse`` (the
    fallback); None in a run that parsed scores (the default)."""


class TraceEntry(BaseModel):
    """One LLM exchange: what was sent, what came back, and what was read from it."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    stage: str
    """Which step asked (``dna.aspects``, ``dna.weights``, ``dna.score``, ``direct`` ...)."""
    messages: list[dict[str, str]]
    raw: str
    """The reply text, verbatim."""
    parsed: Any = None
    """The value read from the reply; None when it could not be read."""
    problem: str | None = None
    """Why the reply could not be read, when it could not."""
    error: str | None = None
    """Why no reply came (the provider's error after every retry), when none did."""
    order: list[int] | None = None
    """The candidate order this exchange saw (1-based original indices), when it saw candidates."""
    cached: bool = False
    """Answered from the response cache."""
    planned: bool = False
    """A dry run's stand-in reply: no call was made and the token counts are estimates."""
    attempts: int = 0
    """Provider attempts behind this reply (retries + 1); 0 when cached or planned."""
    reused: bool = False
    """Shared with another instance of the same query (facets, weights); its usage is counted there."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    finish_reason: str | None = None
    model: str | None = None
    scoring: list[ScoreSource] | None = Field(default=None, exclude_if=unset)
    """With ``--score-mode logprobs``, each score read from the reply and how it was obtained."""
    choice: ScoreSource | None = Field(default=None, exclude_if=unset)
    """With ``--score-mode logprobs``, for a reply whose verdict is a token (LLMBar's ``Output (a)``):
    the choice it made (its 1-based number as shown, in ``written``) and each choice's probability
    from the top log-probabilities at that token (``distribution``), or why there are none."""


class OrderResult(BaseModel):
    """The result of judging one presentation order (``--swap`` judges several)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    order: list[int]
    """The order the candidates were shown in, as 1-based indices into the original candidates."""
    verdict: int | None
    """The winner in original numbering, 0 for a tie."""
    scores: list[float] | None = None
    """Overall score per candidate, in original candidate order; None for verdict-only judges."""
    facets: list[FacetScore] = Field(default_factory=list)
    explanation: str | None = None
    """The judge's overall explanation in this order, as written (naming candidates as shown)."""
    score_modes: list[RecordedMode | None] | None = Field(default=None, exclude_if=unset)
    """How each overall score was obtained, when a scoring stage gave it (see `Judgment.score_modes`)."""

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict_is_a_number(cls, value: Any) -> Any:
        return _not_boolean(value)


PanelVote = Literal["majority", "mean", "median"]
"""How a judge panel combines its judges (`faceteval.aggregation.combine_panel`)."""


class PanelMember(BaseModel):
    """One judge's own result inside a panel's judgment: what it said before the vote."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    judge: str
    """Who judged: the model (``openai:gpt-4o``) or the recorded judge (``recorded:llmbar/GPT-4/CoT``)."""
    status: Status
    error: str | None = None
    verdict: int | None = None
    """Its winner (1-based), 0 for a tie; None unless its status is ok."""
    scores: list[float] | None = None
    """Its overall score per candidate; None for verdict-only judges."""
    facets: list[FacetScore] = Field(default_factory=list)
    consistent: bool | None = None
    """With several orders: whether its orders agreed."""
    usage: Usage = Field(default_factory=Usage)

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict_is_a_number(cls, value: Any) -> Any:
        return _not_boolean(value)


class Judgment(BaseModel):
    """The judgment of one instance (one line of a judgments JSONL file).

    A failed judgment keeps its status and error: it is never dropped and never given a default
    score.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    id: str
    method: str
    status: Status
    error: str | None = None
    verdict: int | None = None
    """The winner (1-based), 0 for a tie; None unless status is ok, and for one candidate alone."""
    scores: list[float] | None = None
    """Overall score per candidate; with several orders, their mean."""
    ranks: list[int] | None = None
    """Rank of each candidate (1 = best, tied candidates share the best rank of their group)."""
    facets: list[FacetScore] = Field(default_factory=list)
    explanation: str | None = None
    """The judge's overall explanation (cot's reasoning, coeval's), when it wrote one; with several
    orders, the original order's."""
    consistent: bool | None = None
    """With several orders: whether they agreed on the verdict. None when judged in one order."""
    orders: list[OrderResult] = Field(default_factory=list)
    """Per-order results, when judged in several orders."""
    panel: list[PanelMember] = Field(default_factory=list, exclude_if=lambda members: not members)
    """A judge panel's members, each with its own verdict, scores and facets (empty for one judge,
    and then not written: one judge's judgment is written as before panels existed)."""
    panel_vote: PanelVote | None = Field(default=None, exclude_if=lambda vote: vote is None)
    """How the panel's verdict was combined from its members' (None for one judge; not written then)."""
    usage: Usage = Field(default_factory=Usage)
    """LLM use behind the judgment; a panel's: the sum of its members'."""
    confidence: float | None = Field(default=None, ge=0, le=1, exclude_if=lambda value: value is None)
    """How far to trust the verdict, in [0, 1] (`faceteval.core.confidence`: the margin, facet, order
    and panel agreement behind it); None when not computed (older files) or without evidence. Left out
    of the judgment's JSON when None."""
    confidence_estimator: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """What estimated ``confidence`` (`faceteval.core.CONFIDENCE_ESTIMATORS`): ``signals`` (the mean
    of the margin, facet, order, panel and score-certainty components), ``verdict-logprobs`` (the
    verdict's probability from log-probabilities), ``simulated-annotators`` (the share of few-shot
    variants of the judge agreeing with the majority), ``strategies`` (the share of one model's recorded
    prompting strategies agreeing). None for older files, whose confidence is the signals'."""
    decided_by: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """In a cascade of judges (``judge --cascade``): the judge (its model) whose verdict this is, or,
    when every judge abstained, the last one's. None outside a cascade (and then not written)."""
    confidence_missing: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """Why an ok judgment has no ``confidence`` from the estimator the run asked for (``verdict-logprobs``:
    no distribution of its scores, say); None otherwise, and then left out of its JSON."""
    score_modes: list[RecordedMode | None] | None = Field(default=None, exclude_if=unset)
    """With ``--score-mode logprobs``: how each overall score was obtained, when one call gave it
    (``direct``, ``cot``, ``coeval``'s overall call, DnA's ``prompted`` aggregate); None when the overall
    scores are computed from the facets (whose ``score_modes`` say) or were parsed (the default)."""
    input_hash: str | None = None
    """`Instance.content_hash` of the instance as judged: later commands tell an edited input by it."""
    trace: list[TraceEntry] = Field(default_factory=list)

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict_is_a_number(cls, value: Any) -> Any:
        return _not_boolean(value)


def usage_of(entries: Iterable[TraceEntry]) -> Usage:
    """A judgment's usage: its own exchanges (cached included), not those it reused from another."""
    usage = Usage()
    for entry in entries:
        if not entry.reused:
            usage = usage + Usage(
                calls=1,
                cached_calls=int(entry.cached),
                input_tokens=entry.input_tokens,
                output_tokens=entry.output_tokens,
                cost_usd=entry.cost_usd,
            )
    return usage


def failure_kind(judgment: Judgment) -> FailureKind | None:
    """Why ``judgment`` failed, or None when it is ok.

    ``parse_error``: a reply could not be read; ``invalid_input``: its input line is not a valid
    instance; ``unjudgeable``: the method cannot judge the instance as it is (an `InstanceError`);
    ``planned``: a dry run's, which called no LLM; ``error``: any other (a provider's, most often).

    Examples:
        >>> failure_kind(Judgment(id="1", method="m", status="error", error="invalid input: line 3"))
        'invalid_input'
    """
    error = judgment.error or ""
    if judgment.status in ("ok", "abstained"):  # an abstention is no failure: the judge was not sure enough
        return None
    if judgment.status == "parse_error":
        return "parse_error"
    if error.startswith(INVALID_INPUT):
        return "invalid_input"
    if UNJUDGEABLE in error:
        return "unjudgeable"
    if error == PLANNED:
        return "planned"
    return "error"


def _not_boolean(value: Any) -> Any:
    """A verdict is a candidate's number: ``true`` would otherwise be read as 1."""
    if isinstance(value, bool):
        raise ValueError("a verdict is a candidate's 1-based number, or 0 for a tie, not true or false")
    return value
