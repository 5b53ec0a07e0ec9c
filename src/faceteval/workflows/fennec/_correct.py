"""Fennec correction: rewrite the responses its judgments scored low, from those same judgments.

Liang et al., "Fennec: Fine-grained Language Model Evaluation and Correction Extended through
Branching and Bridging" (Section 3.1, Equation 4; Section 5.3; Tables 4, 7, 9 and 16). Every response
whose score is below a threshold (3 in the paper) is rewritten by the LLM from the query, the response
and its per-criterion judgments: each criterion as "name: description", the response's score on it and
the judge's explanation of that score ("Correction" prompt, Table 9). Responses at or above the
threshold are kept as they are and cost no call.

A response's score here is the mean of its per-criterion scores on Fennec's 1-5 scale, weighted by the
criteria's weights when the judgment has weights for every criterion (``aggregate=weighted``): see
`response_score`. It is not the judgment's overall score, which by default is the sum over criteria
(5..25 with five criteria) and so is not on the scale the threshold is stated in. A judgment made in
both orders (``swap``) gives each criterion's score averaged over the orders, and the explanations
written in the first order.

With ``rejudge``, each corrected response is judged against its original with Fennec pairwise-eval in
both orders, on the same criteria and scoring guidelines (so nothing is generated again), and its gain
is the corrected response's score minus the original's, both scored as above.

Deviations: the paper states the threshold ("scores below 3") without saying which score it applies
to; we apply it to the mean per-criterion score. Table 4 measures the improvement with GPT-4's 1-10
single-answer scores over every response of a model; ``rejudge`` measures it with the LLM given, by
Fennec pairwise-eval, over the corrected responses only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field

from faceteval._runner import FailureStreak, StageStats, default_window, in_order_spilled, total_of
from faceteval.core import TraceEntry, Usage, usage_of
from faceteval.errors import ParseError, ProviderError
from faceteval.llm import LLM, Message
from faceteval.methods import JudgeContext, QueryMemo, gather
from faceteval.methods.fennec import RewriteParser
from faceteval.methods.internal import severity
from faceteval.prompts import Prompts, Templates
from faceteval.prompts.internal import current_prompts, prompts_of
from faceteval.workflows.fennec._correctable import (
    Correctable,
    CriterionJudgment,
    criterion_judgments,
    response_score,
)
from faceteval.workflows.fennec._rejudge import Improvement, Rejudge, improvement, rejudge_correction

DEFAULT_THRESHOLD = 3.0
"""Responses scoring below this (mean per-criterion score, 1-5) are rewritten, as in the paper."""


CORRECTION_TEMPLATE = "fennec/correction"


CORRECTION_STAGE = "fennec.correction"


DEFAULT_ABORT_AFTER = 10


CorrectionStatus = Literal["kept", "corrected", "parse_error", "error"]


class Correction(BaseModel):
    """One response of a judged instance: kept, or rewritten from its judgments (one output line).

    A failed rewrite keeps its status, error and unreadable reply: it is never given a default text.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """The instance id."""
    candidate: int
    """Which response of the instance (1-based)."""
    query: str
    original: str
    """The response as judged."""
    score: float
    """Its mean per-criterion 1-5 score (`response_score`), compared with ``threshold``."""
    threshold: float
    status: CorrectionStatus
    """``kept`` (at or above the threshold), ``corrected``, ``parse_error`` or ``error``."""
    correction: str | None = None
    """The rewritten response, when it was rewritten."""
    judgments: list[CriterionJudgment] = Field(default_factory=list)
    """The per-criterion judgments the rewrite is based on."""
    error: str | None = None
    raw: str | None = None
    """The reply that could not be read (after one re-ask), for ``parse_error``."""
    rejudge: Rejudge | None = None
    """The corrected response judged against the original, when asked for."""
    usage: Usage = Field(default_factory=Usage)
    """Calls, tokens and cost of the rewrite and its re-judging."""
    trace: list[TraceEntry] = Field(default_factory=list)
    """Every exchange of the rewrite (and of the re-judging), when traces are kept."""


@dataclass(frozen=True, slots=True)
class CorrectOptions:
    """How responses are corrected.

    Attributes:
        threshold: Responses whose `response_score` is strictly below this are rewritten.
        rejudge: Judge every rewrite against its original, on the same criteria and guidelines.
        trace: Keep every exchange in each correction.
        window: Judgments in flight at once (default: four times the LLM's concurrency, at least 32).
        abort_after: Stop when this many responses in a row fail with provider errors.
        templates: Templates in place of the built-in ones of their names (``--templates``).
        prefix_cache: Re-judging's per-criterion prompts ordered for a server's prefix cache.
    """

    threshold: float = DEFAULT_THRESHOLD
    rejudge: bool = False
    trace: bool = True
    window: int | None = None
    abort_after: int = DEFAULT_ABORT_AFTER
    templates: Templates | None = None
    prefix_cache: bool = False

    def prompts(self) -> Prompts:
        """The prompts the run renders: its templates and prompt order over those in use around it."""
        return prompts_of(self.templates, prefix_cache=self.prefix_cache)


DEFAULT_CORRECT_OPTIONS = CorrectOptions()


@dataclass(slots=True)
class CorrectionStats:
    """What a correction run did, counted as corrections finish."""

    judgments: int = 0
    """Ok judgments whose responses were considered."""
    skipped: int = 0
    """Failed judgments (status other than ok): no response of theirs was considered."""
    statuses: Counter[str] = field(default_factory=Counter)
    """Responses by status: kept, corrected, parse_error, error."""
    rejudged: Counter[str] = field(default_factory=Counter)
    """Re-judgings by status."""
    stages: dict[str, StageStats] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    """Error messages of failed rewrites and re-judgings, with how often each came."""
    examples: dict[str, str] = field(default_factory=dict)
    """The first response (``id#candidate``) that failed with each message."""
    rejudges: list[Rejudge] = field(default_factory=list)
    """Every re-judging that succeeded, in output order."""

    def skip(self) -> None:
        """Count a failed judgment."""
        self.skipped += 1

    def add(self, correction: Correction, entries: Iterable[TraceEntry]) -> None:
        """Count a finished response and the exchanges behind it."""
        self.statuses[correction.status] += 1
        where = f"{correction.id}#{correction.candidate}"
        for error in (correction.error, correction.rejudge and correction.rejudge.error):
            if error:
                self.errors[error] += 1
                self.examples.setdefault(error, where)
        if correction.rejudge is not None:
            self.rejudged[correction.rejudge.status] += 1
            if correction.rejudge.status == "ok":
                self.rejudges.append(correction.rejudge)
        for entry in entries:
            if not entry.reused:
                self.stages.setdefault(entry.stage, StageStats()).add(entry)

    @property
    def responses(self) -> int:
        """Responses considered."""
        return sum(self.statuses.values())

    @property
    def below(self) -> int:
        """Responses below the threshold (sent for rewriting)."""
        return self.responses - self.statuses.get("kept", 0)

    @property
    def total(self) -> StageStats:
        """LLM use of every stage together."""
        return total_of(self.stages.values())

    def improvement(self) -> Improvement:
        """The gain of the re-judged corrections so far."""
        return improvement(self.rejudges)


def correction_messages(
    query: str, response: str, judgments: Sequence[CriterionJudgment], prompts: Prompts | None = None
) -> tuple[Message, ...]:
    """The correction prompt (Table 9) for ``response`` to ``query`` with its per-criterion judgments,
    as ``prompts`` (default: those in use) render it."""
    return (prompts or current_prompts()).render(
        CORRECTION_TEMPLATE, query=query, response=response, judgments=[j.shown() for j in judgments]
    )


async def correct_each(
    items: Iterable[Correctable],
    llm: LLM,
    *,
    options: CorrectOptions = DEFAULT_CORRECT_OPTIONS,
    sink: Callable[[Correction], None] | None = None,
    stats: CorrectionStats | None = None,
) -> CorrectionStats:
    """Correct the responses of ``items`` as they are read, handing each to ``sink`` in input order.

    A slow item holds back the output, not the work: items after it go on, and those finished before
    their turn wait (on disk beyond the window) until it is handed on.

    Every response of an ok judgment gives one `Correction` (kept ones too); failed judgments are
    skipped and counted. ``stats``, when given, is filled as responses finish and returned.

    Raises:
        RunAborted: ``options.abort_after`` responses in a row failed with provider errors.
        FacetevalError: A fatal error (credentials refused, cache unusable) stopped the run.
    """
    memo = QueryMemo()
    emitter = _Emitter(sink, CorrectionStats() if stats is None else stats, options.abort_after)
    prompts = options.prompts()

    async def work(item: Correctable) -> list[_Done] | None:
        if item.judgment.status != "ok" or item.instance is None:
            return None
        n = item.instance.n_candidates
        return await gather(
            [partial(_correct_response, item, m, llm, memo, options, prompts) for m in range(1, n + 1)]
        )

    window = options.window or default_window(llm)
    await in_order_spilled(items, work, emitter.emit, window=window, result_type=list[_Done] | None)
    return emitter.stats


async def correct_async(
    items: Iterable[Correctable], llm: LLM, *, options: CorrectOptions = DEFAULT_CORRECT_OPTIONS
) -> list[Correction]:
    """Every response of ``items``, kept or corrected, in input order (see `correct_each`)."""
    out: list[Correction] = []
    await correct_each(items, llm, options=options, sink=out.append)
    return out


def correct(
    items: Iterable[Correctable], llm: LLM, *, options: CorrectOptions = DEFAULT_CORRECT_OPTIONS
) -> list[Correction]:
    """Blocking form of `correct_async`; ``llm``'s connections are closed before it returns."""

    return anyio.run(llm.closing_after, partial(correct_async, items, llm, options=options))


_Done = tuple[Correction, list[TraceEntry]]


class _Emitter:
    """Counts responses as they are handed on, passes them to the sink, and stops a run that keeps failing."""

    def __init__(
        self, sink: Callable[[Correction], None] | None, stats: CorrectionStats, abort_after: int
    ) -> None:
        self.sink = sink
        self.stats = stats
        self.streak = FailureStreak(abort_after, "responses", "Corrections so far are written")

    def emit(self, done: list[_Done] | None) -> None:
        """Hand on one item's corrections (None: a judgment that was skipped)."""
        if done is None:
            self.stats.skip()
            return
        self.stats.judgments += 1
        for correction, entries in done:
            self._emit(correction, entries)

    def _emit(self, correction: Correction, entries: list[TraceEntry]) -> None:
        if self.sink is not None:
            self.sink(correction)  # first: a correction the sink could not write is not counted
        self.stats.add(correction, entries)
        if correction.status != "kept":
            self.streak.see(correction.status == "error", correction.error)


async def _correct_response(
    item: Correctable, candidate: int, llm: LLM, memo: QueryMemo, options: CorrectOptions, prompts: Prompts
) -> _Done:
    """One response: kept, or rewritten (and re-judged); failures recorded, fatal ones raised."""
    assert item.instance is not None
    instance = item.instance
    original = instance.candidates[candidate - 1]
    judgments = criterion_judgments(item.judgment, candidate)
    fields: dict[str, Any] = {
        "id": instance.id,
        "candidate": candidate,
        "query": instance.query,
        "original": original,
        "score": response_score(item.judgment.facets, candidate),
        "threshold": options.threshold,
        "judgments": judgments,
    }
    if fields["score"] >= options.threshold:
        return Correction(status="kept", **fields), []
    outcome, trace = await _rewrite(instance.query, original, judgments, llm, memo, prompts)
    fields |= outcome
    corrected = outcome.get("correction")
    if options.rejudge and corrected is not None:
        rejudged, entries = await rejudge_correction(
            instance, judgments, original, corrected, llm, memo=memo, prompts=prompts
        )
        fields["rejudge"] = rejudged
        trace = [*trace, *entries]
    correction = Correction(**fields, usage=usage_of(trace), trace=trace if options.trace else [])
    return correction, trace


async def _rewrite(
    query: str,
    original: str,
    judgments: Sequence[CriterionJudgment],
    llm: LLM,
    memo: QueryMemo,
    prompts: Prompts,
) -> tuple[dict[str, Any], list[TraceEntry]]:
    """The rewrite's fields of a `Correction` (status, text or error) and its exchanges."""
    ctx = JudgeContext(llm, memo, prompts=prompts)
    messages = correction_messages(query, original, judgments, prompts)
    try:
        text = await ctx.ask(messages, RewriteParser(), stage=CORRECTION_STAGE, sees_candidates=False)
    except (ParseError, ProviderError) as exc:
        if severity(exc) < 2:  # credentials refused, server unreachable: no response can succeed
            raise
        return _failure(exc), ctx.trace
    return {"status": "corrected", "correction": text}, ctx.trace


def _failure(error: ParseError | ProviderError) -> dict[str, Any]:
    if isinstance(error, ParseError):
        return {"status": "parse_error", "error": str(error), "raw": error.raw}
    return {"status": "error", "error": f"{type(error).__name__}: {error}"}
