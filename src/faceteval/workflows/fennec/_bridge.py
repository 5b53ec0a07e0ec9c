"""Fennec's bridging: criteria and scoring guidelines recovered from recorded judgments, then filtered.

Liang et al., "Fennec: Fine-grained Language Model Evaluation and Correction Extended through
Branching and Bridging" (Section 3.2, Eq. 6; Section 4.1; Tables 1, 6 and 8). Judge datasets hold
judgments ``Y_j`` but no evaluation criteria or scoring guideline. Bridging asks for them backwards:
the criteria from the query, the response(s) and the judgment (``Y_c ~ P(Prompt_rc, X_r, Y_j)``,
template ``fennec/reverse_criteria``), then the 1-5 scoring guideline from the same and the criteria
(``Y_s ~ P(Prompt_rs, X_r, Y_c, Y_j)``, ``fennec/reverse_guideline``). The record is then judged again
with the criteria and guideline (pairwise: Table 8's "Auto-J" prompt, ``fennec/bridge_pairwise``, which
ends in "So, the final decision is Response 1 / Response 2 / Tie"; single: Fennec's single-eval prompt,
``fennec/single``) and kept only when the new verdict equals the recorded one (single: the new score
equals the recorded score rounded half up): behaviourally inconsistent records are filtered out. A
kept record becomes a chat in Fennec's uniform training format: the bridging prompt with the recovered
criteria and guideline, answered by the recorded judgment.

One record is made per recorded judge output: Auto-J's two orders of a pair are two records (the
second with the responses swapped, its verdict as shown), a mean of several Prometheus GPT-4 runs
is one record per run. A recorded output without a readable verdict or score is kept as ``skipped``
and costs no call. A reply that cannot be read, even after one re-ask, makes the record a
``parse_error`` with the reply kept in ``raw``; nothing is defaulted.

Deviations: the paper trains a reverse model; here any LLM is prompted with reverse prompts of our
own wording (the paper does not print ``Prompt_rc`` or ``Prompt_rs``), whose system messages follow
Table 7. The responses are named "Response 1" and "Response 2", as in Auto-J's and PandaLM's
judgments. Judgments are brought to the bridging prompt's answer format: Auto-J's released outputs
hold only a verdict code, so its judgment is the decision sentence alone; PandaLM's is its recorded
reason followed by the decision sentence; a Prometheus GPT-4 run is ``Response Score: n`` and its
feedback. The criteria may number one to ten (the paper does not say how many).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from typing import Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field

from faceteval._runner import DEFAULT_ABORT_AFTER, FailureStreak, default_window, in_order_spilled
from faceteval.core import Criterion, TraceEntry, Usage, usage_of
from faceteval.errors import AuthenticationError, ParseError, ProviderError, ProviderUnreachableError
from faceteval.llm import LLM, Message
from faceteval.methods import JudgeContext, QueryMemo
from faceteval.methods.fennec import (
    FENNEC_SCALE,
    DecisionParser,
    GuidelineParser,
    JudgeResultParser,
    ReverseCriteriaParser,
)
from faceteval.prompts import Prompts, Templates
from faceteval.prompts.internal import current_prompts, prompts_of
from faceteval.workflows.fennec._bridge_sources import SINGLE_LABELS, BridgeKind, BridgeSource

BridgeStatus = Literal["ok", "parse_error", "error", "skipped"]

TEMPLATES = (
    "fennec/reverse_criteria",
    "fennec/reverse_guideline",
    "fennec/bridge_pairwise",
    "fennec/single",
    "common/reask",
)


def criteria_text(criteria: Sequence[Criterion]) -> str:
    """Criteria as the prompts show them: a numbered list of ``Name: description`` lines.

    Examples:
        >>> print(criteria_text([Criterion(name="Accuracy", description="Facts are right."), "Clarity"]))
        1. Accuracy: Facts are right.
        2. Clarity
    """
    return "\n".join(f"{k}. {Criterion.model_validate(c).describe()}" for k, c in enumerate(criteria, 1))


def rounded(score: float) -> int:
    """A score rounded half up, as a recorded mean is compared with a regenerated integer score.

    Examples:
        >>> rounded(2.5), rounded(3.333333333)
        (3, 3)
    """
    return math.floor(score + 0.5)


# ---------------------------------------------------------------------------------------------------------
# Records


class BridgeRecord(BaseModel):
    """One bridged record (a line of ``<benchmark>.jsonl``), kept or not, with everything behind it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    benchmark: str
    judge: str
    kind: BridgeKind
    query: str
    responses: list[str]
    reference: str | None = None
    order: list[int] | None = None
    """Pairwise: the 1-based instance candidates in the order shown."""
    judgment: str
    """The recorded judgment in the bridging prompt's answer format."""
    recorded: str
    """The recorded output, verbatim."""
    verdict: int | None = None
    """Pairwise: the recorded verdict, 1 or 2 as shown, 0 for a tie."""
    score: float | None = None
    """Single: the recorded 1-5 score."""
    criteria_text: str | None = None
    """The recovered criteria as the prompts show them."""
    criteria: list[Criterion] = Field(default_factory=list)
    guideline: str | None = None
    """The recovered 1-5 scoring guideline."""
    regenerated_verdict: int | None = None
    regenerated_score: float | None = None
    consistent: bool | None = None
    """Whether the judgment regenerated from the criteria and guideline agrees with the recorded one."""
    status: BridgeStatus
    error: str | None = None
    stage: str | None = None
    """The stage that failed, when one did."""
    raw: str | None = None
    """The reply that could not be read, verbatim (``parse_error``)."""
    usage: Usage = Field(default_factory=Usage)
    trace: list[TraceEntry] = Field(default_factory=list)

    @property
    def kept(self) -> bool:
        """Whether the record goes into the training data."""
        return self.status == "ok" and self.consistent is True


# ---------------------------------------------------------------------------------------------------------
# Bridging


async def reverse_criteria(source: BridgeSource, ctx: JudgeContext) -> tuple[Criterion, ...]:
    """The criteria ``source``'s judgment applied (``Prompt_rc``)."""
    messages = ctx.render(
        "fennec/reverse_criteria",
        query=source.query,
        responses=source.responses,
        labels=source.labels,
        reference=source.reference,
        judgment=source.judgment,
    )
    return await ctx.ask(messages, ReverseCriteriaParser(), stage="bridge.criteria", sees_candidates=False)


async def reverse_guideline(source: BridgeSource, criteria: str, ctx: JudgeContext) -> str:
    """The 1-5 scoring guideline ``source``'s judgment followed on ``criteria`` (``Prompt_rs``)."""
    messages = ctx.render(
        "fennec/reverse_guideline",
        query=source.query,
        responses=source.responses,
        labels=source.labels,
        reference=source.reference,
        criteria=criteria,
        judgment=source.judgment,
    )
    return await ctx.ask(messages, GuidelineParser(), stage="bridge.guideline", sees_candidates=False)


def bridging_messages(
    source: BridgeSource | BridgeRecord, criteria: str, guideline: str, prompts: Prompts | None = None
) -> tuple[Message, ...]:
    """The bridging prompt (system and user message) with the recovered criteria and guideline, as
    ``prompts`` (default: those in use) render it."""
    render = (prompts or current_prompts()).render
    if source.kind == "pairwise":
        return render(
            "fennec/bridge_pairwise",
            query=source.query,
            criteria=criteria,
            guideline=guideline,
            responses=source.responses,
            reference=source.reference,
        )
    return render(
        "fennec/single",
        query=source.query,
        criterion=criteria,
        guideline=guideline,
        response=source.responses[0],
        reference=source.reference,
    )


async def rejudge(source: BridgeSource, criteria: str, guideline: str, ctx: JudgeContext) -> float:
    """The verdict (pairwise) or 1-5 score (single) judged again with the recovered criteria and guideline."""
    messages = bridging_messages(source, criteria, guideline, ctx.prompts)
    if source.kind == "pairwise":
        return await ctx.ask(messages, DecisionParser(), stage="bridge.pairwise", sees_candidates=False)
    parser = JudgeResultParser(SINGLE_LABELS, FENNEC_SCALE)
    judged = await ctx.ask(messages, parser, stage="bridge.single", sees_candidates=False)
    return judged.values[0]


def is_consistent(source: BridgeSource, regenerated: float) -> bool:
    """Whether a regenerated verdict or score agrees with the recorded one (a score rounded half up)."""
    if source.kind == "pairwise":
        return regenerated == source.verdict
    return source.score is not None and regenerated == rounded(source.score)


@dataclass(frozen=True, slots=True)
class _Failure:
    """Why a record has no result: the error, the stage that failed, the unreadable reply."""

    error: str
    stage: str | None = None
    raw: str | None = None


async def bridge_one(source: BridgeSource, llm: LLM, prompts: Prompts | None = None) -> BridgeRecord:
    """Recover criteria and guideline for ``source``, judge it again, and compare (the prompts as
    ``prompts`` render them; default: those in use).

    Raises:
        AuthenticationError: The provider refused the credentials (no record can succeed).
        ProviderUnreachableError: The server could not be reached (no record can succeed).
    """
    if source.problem is not None:
        return _record(source, [], status="skipped", failure=_Failure(source.problem))
    ctx = JudgeContext(llm, QueryMemo(), prompts=prompts or current_prompts())
    criteria: tuple[Criterion, ...] = ()
    guideline: str | None = None
    try:
        criteria = await reverse_criteria(source, ctx)
        guideline = await reverse_guideline(source, criteria_text(criteria), ctx)
        regenerated = await rejudge(source, criteria_text(criteria), guideline, ctx)
    except ParseError as exc:
        return _record(
            source,
            ctx.trace,
            status="parse_error",
            criteria=criteria,
            guideline=guideline,
            failure=_Failure(str(exc), exc.stage, exc.raw),
        )
    except ProviderError as exc:
        if isinstance(exc, AuthenticationError | ProviderUnreachableError):  # no record can succeed
            raise
        failure = _Failure(f"{type(exc).__name__}: {exc}", ctx.trace[-1].stage if ctx.trace else None)
        return _record(
            source, ctx.trace, status="error", criteria=criteria, guideline=guideline, failure=failure
        )
    return _record(
        source,
        ctx.trace,
        status="ok",
        criteria=criteria,
        guideline=guideline,
        regenerated=regenerated,
        consistent=is_consistent(source, regenerated),
    )


def _record(
    source: BridgeSource,
    trace: list[TraceEntry],
    *,
    status: BridgeStatus,
    criteria: tuple[Criterion, ...] = (),
    guideline: str | None = None,
    regenerated: float | None = None,
    consistent: bool | None = None,
    failure: _Failure | None = None,
) -> BridgeRecord:
    fields = asdict(source)
    fields.pop("problem")
    pairwise = source.kind == "pairwise"
    return BridgeRecord(
        **fields,
        criteria_text=criteria_text(criteria) if criteria else None,
        criteria=list(criteria),
        guideline=guideline,
        regenerated_verdict=int(regenerated) if pairwise and regenerated is not None else None,
        regenerated_score=regenerated if not pairwise else None,
        consistent=consistent,
        status=status,
        usage=usage_of(trace),
        trace=trace,
        **({} if failure is None else asdict(failure)),
    )


async def bridge_each(
    sources: Iterable[BridgeSource],
    llm: LLM,
    *,
    sink: Callable[[BridgeRecord], None],
    window: int | None = None,
    abort_after: int = DEFAULT_ABORT_AFTER,
    prompts: Prompts | None = None,
) -> None:
    """Bridge ``sources`` concurrently, handing each record to ``sink`` as soon as those before it are;
    the prompts as ``prompts`` render them (default: those in use).

    Records reach ``sink`` in source order, each as it finishes: a run stopped midway has handed on
    every record up to the first unfinished one. ``llm`` bounds the calls in flight; at most
    ``window`` sources (default: `default_window`) are under way at once. A slow source holds back the
    records after it, not their work: those finished before their turn wait (on disk beyond the window).

    Raises:
        AuthenticationError: The provider refused the credentials (no record can succeed).
        ProviderUnreachableError: The server could not be reached (no record can succeed).
        RunAborted: ``abort_after`` records in a row failed with errors (0: never stop).
    """
    streak = FailureStreak(abort_after, "records", "The records finished so far are written")

    def hand_on(record: BridgeRecord) -> None:
        sink(record)
        if record.status != "skipped":  # asked nothing: it neither counts toward the stop nor resets it
            streak.see(record.status == "error", record.error)

    work = partial(bridge_one, llm=llm, prompts=prompts or current_prompts())
    await in_order_spilled(
        sources, work, hand_on, window=window or default_window(llm), result_type=BridgeRecord
    )


async def bridge_async(
    sources: Sequence[BridgeSource], llm: LLM, *, templates: Templates | None = None
) -> list[BridgeRecord]:
    """Bridge every source concurrently (``llm`` bounds the calls in flight); records in source order.
    ``templates`` replace built-in ones of their names.

    Every source gets its record, failed ones too: this never stops early (`bridge_each` can).
    """
    records: list[BridgeRecord] = []
    await bridge_each(sources, llm, sink=records.append, abort_after=0, prompts=prompts_of(templates))
    return records


def bridge(
    sources: Sequence[BridgeSource], llm: LLM, *, templates: Templates | None = None
) -> list[BridgeRecord]:
    """Blocking form of `bridge_async`; ``llm``'s connections are closed before it returns."""

    return anyio.run(llm.closing_after, partial(bridge_async, sources, llm, templates=templates))
