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

import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field

from faceteval._runner import (
    FailureStreak,
    JudgeOptions,
    StageStats,
    default_window,
    in_order,
    judge_instance,
    total_of,
    usage_of,
)
from faceteval.aggregation import weighted_sum
from faceteval.core import Criterion, FacetScore, Instance, Judgment, TraceEntry, Usage
from faceteval.datasets import judged_instances
from faceteval.datasets._jsonl import read_numbered_judgments
from faceteval.datasets._judged import changed_since, why_missing
from faceteval.errors import InputError, ParseError, ProviderError
from faceteval.llm import LLM, Message
from faceteval.methods._base import gather, severity
from faceteval.methods._context import JudgeContext, QueryMemo
from faceteval.methods.fennec._judged import either, per_criterion_methods
from faceteval.methods.fennec._method import Fennec
from faceteval.methods.fennec._parsers import RewriteParser
from faceteval.prompts import render

DEFAULT_THRESHOLD = 3.0
"""Responses scoring below this (mean per-criterion score, 1-5) are rewritten, as in the paper."""
CORRECTION_TEMPLATE = "fennec/correction"
CORRECTION_STAGE = "fennec.correction"
DEFAULT_ABORT_AFTER = 10
CONFIDENCE = 0.95

CorrectionStatus = Literal["kept", "corrected", "parse_error", "error"]
RejudgeStatus = Literal["ok", "parse_error", "error"]


class CriterionJudgment(BaseModel):
    """One criterion's judgment of one response, as the correction prompt is given it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion: str
    """The criterion's name."""
    description: str | None = None
    guideline: str | None = None
    """The 1-5 scoring guideline the score follows."""
    score: float
    """The response's 1-5 score on the criterion."""
    explanation: str
    """The judge's explanation of this response's score."""
    weight: float | None = None
    """The criterion's weight in the judgment, when it was judged with weights."""

    def shown(self) -> dict[str, str]:
        """The judgment as the correction prompt shows it: criterion (name: description), score, explanation.

        Examples:
            >>> judged = CriterionJudgment(criterion="Clarity", description="Clear?", score=2, explanation="")
            >>> judged.shown()
            {'criterion': 'Clarity: Clear?', 'score': '2', 'explanation': ''}
        """
        return {
            "criterion": self.as_criterion().describe(),
            "score": f"{self.score:g}",
            "explanation": self.explanation,
        }

    def as_criterion(self) -> Criterion:
        """The criterion with its guideline and weight, to judge other responses on it."""
        return Criterion(
            name=self.criterion,
            description=self.description or "",
            guideline=self.guideline,
            weight=self.weight,
        )


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
class Correctable:
    """A judgment read for correction, with the instance it judged.

    Attributes:
        judgment: The judgment, without its trace (correction does not need it).
        instance: The judged instance; None for a failed judgment whose instance is not known.
        line: The judgment's line in its file.
    """

    judgment: Judgment
    instance: Instance | None
    line: int


@dataclass(frozen=True, slots=True)
class CorrectOptions:
    """How responses are corrected.

    Attributes:
        threshold: Responses whose `response_score` is strictly below this are rewritten.
        rejudge: Judge every rewrite against its original, on the same criteria and guidelines.
        trace: Keep every exchange in each correction.
        window: Judgments in flight at once (default: four times the LLM's concurrency, at least 32).
        abort_after: Stop when this many responses in a row fail with provider errors.
    """

    threshold: float = DEFAULT_THRESHOLD
    rejudge: bool = False
    trace: bool = True
    window: int | None = None
    abort_after: int = DEFAULT_ABORT_AFTER


DEFAULT_CORRECT_OPTIONS = CorrectOptions()


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


def response_score(facets: Sequence[FacetScore], candidate: int) -> float:
    """A response's score for correction: the mean of its per-criterion 1-5 scores.

    The mean is weighted by the facets' weights when every facet has one (a judgment made with
    ``aggregate=weighted``), else unweighted. ``candidate`` is 1-based.

    Raises:
        ValueError: There are no facets, or the response has no score on one of them.

    Examples:
        >>> facets = [FacetScore(name="A", scores=[2, 4]), FacetScore(name="B", scores=[3, 5])]
        >>> response_score(facets, 1), response_score(facets, 2)
        (2.5, 4.5)
        >>> weighted = [f.model_copy(update={"weight": w}) for f, w in zip(facets, [0.75, 0.25])]
        >>> response_score(weighted, 1)
        2.25
    """
    scores = [facet.scores[candidate - 1] for facet in facets]
    known = [score for score in scores if score is not None]
    if len(known) != len(scores):
        raise ValueError(f"response {candidate} has no score on some criterion")
    weights = [facet.weight for facet in facets]
    fixed = [weight for weight in weights if weight is not None]
    return weighted_sum(
        [[score] for score in known], fixed if len(fixed) == len(weights) else [1.0] * len(weights)
    )[0]


def criterion_judgments(judgment: Judgment, candidate: int) -> list[CriterionJudgment]:
    """Response ``candidate``'s (1-based) judgment on each criterion of a fennec ``judgment``.

    Judged in several orders (``--swap``), it is the original order's: each score beside the
    explanation written for it, where the judgment's facets hold scores averaged over the orders.

    Raises:
        ValueError: A criterion has no score or no explanation for the response.
    """
    out = []
    for facet in judgment.orders[0].facets if judgment.orders else judgment.facets:
        score = facet.scores[candidate - 1]
        explanation = None if facet.explanations is None else facet.explanations[candidate - 1]
        if score is None or explanation is None:
            raise ValueError(f"criterion {facet.name!r} has no score or explanation for response {candidate}")
        out.append(
            CriterionJudgment(
                criterion=facet.name,
                description=facet.description,
                guideline=facet.guideline,
                score=score,
                explanation=explanation,
                weight=facet.weight,
            )
        )
    return out


def correction_messages(
    query: str, response: str, judgments: Sequence[CriterionJudgment]
) -> tuple[Message, ...]:
    """The correction prompt (Table 9) for ``response`` to ``query`` with its per-criterion judgments."""
    return render(
        CORRECTION_TEMPLATE, query=query, response=response, judgments=[j.shown() for j in judgments]
    )


def load_correctable(judgments_path: Path, input_path: Path | None = None) -> list[Correctable]:
    """Every judgment of ``judgments_path`` with its instance, each checked (see `read_correctable`).

    The instances come from ``input_path``, else from where `faceteval.datasets.judged_instances`
    finds them (the run record beside the judgments, or a meta-evaluation run's ``instances.jsonl``).

    Raises:
        InputError: A line cannot be corrected (file and line named), or the input is malformed.
        FacetevalError: The judged input cannot be found.
    """
    return list(read_correctable(judgments_path, judged_instances(judgments_path, input_path)))


def read_correctable(judgments_path: Path, instances: Mapping[str, Instance]) -> Iterator[Correctable]:
    """The judgments of ``judgments_path`` with their instances, streamed, traces dropped.

    Raises:
        InputError: A line is not a judgment, not a fennec judgment, an ok judgment without
            per-response explanations, or one of an instance not in ``instances`` (file and line named).
    """
    name = str(judgments_path)
    for line, judgment in read_numbered_judgments(judgments_path):
        _check(name, line, judgment, instances)
        yield Correctable(judgment.model_copy(update={"trace": []}), instances.get(judgment.id), line)


def _check(path: str, line: int, judgment: Judgment, instances: Mapping[str, Instance]) -> None:
    if judgment.method not in (methods := per_criterion_methods()):
        raise InputError(
            path,
            line,
            "method",
            f"judgment {judgment.id!r} was made with method {judgment.method!r}; correction needs "
            f"{either(methods)} judgments (faceteval judge --method {methods[0]})",
        )
    if judgment.status != "ok":
        return
    instance = instances.get(judgment.id)
    if instance is None:
        raise InputError(path, line, "id", f"instance {judgment.id!r}: {why_missing(instances, judgment.id)}")
    if (changed := changed_since(instance, judgment)) is not None:
        raise InputError(path, line, "input_hash", changed)
    if not judgment.facets:
        raise InputError(path, line, "facets", "the judgment has no per-criterion scores")
    _check_facets(path, line, judgment.facets, instance.n_candidates)


def _check_facets(path: str, line: int, facets: Sequence[FacetScore], n: int) -> None:
    """Every facet has a score and an explanation for each of the ``n`` responses."""
    for j, facet in enumerate(facets):
        explanations = facet.explanations
        if explanations is None or len(explanations) != n or any(e is None for e in explanations):
            raise InputError(
                path,
                line,
                f"facets.{j}.explanations",
                f"criterion {facet.name!r} lacks an explanation for each of the {n} responses",
            )
        if len(facet.scores) != n or any(s is None for s in facet.scores):
            raise InputError(
                path,
                line,
                f"facets.{j}.scores",
                f"criterion {facet.name!r} lacks a score for each of the {n} responses",
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

    Every response of an ok judgment gives one `Correction` (kept ones too); failed judgments are
    skipped and counted. ``stats``, when given, is filled as responses finish and returned.

    Raises:
        RunAborted: ``options.abort_after`` responses in a row failed with provider errors.
        FacetevalError: A fatal error (credentials refused, cache unusable) stopped the run.
    """
    memo = QueryMemo()
    emitter = _Emitter(sink, CorrectionStats() if stats is None else stats, options.abort_after)

    async def work(item: Correctable) -> list[_Done] | None:
        if item.judgment.status != "ok" or item.instance is None:
            return None
        n = item.instance.n_candidates
        return await gather(
            [partial(_correct_response, item, m, llm, memo, options) for m in range(1, n + 1)]
        )

    await in_order(items, work, emitter.emit, window=options.window or default_window(llm))
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
    item: Correctable, candidate: int, llm: LLM, memo: QueryMemo, options: CorrectOptions
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
    outcome, trace = await _rewrite(instance.query, original, judgments, llm, memo)
    fields |= outcome
    corrected = outcome.get("correction")
    if options.rejudge and corrected is not None:
        rejudged, entries = await rejudge_correction(instance, judgments, original, corrected, llm, memo=memo)
        fields["rejudge"] = rejudged
        trace = [*trace, *entries]
    correction = Correction(**fields, usage=usage_of(trace), trace=trace if options.trace else [])
    return correction, trace


async def _rewrite(
    query: str, original: str, judgments: Sequence[CriterionJudgment], llm: LLM, memo: QueryMemo
) -> tuple[dict[str, Any], list[TraceEntry]]:
    """The rewrite's fields of a `Correction` (status, text or error) and its exchanges."""
    ctx = JudgeContext(llm, memo)
    messages = correction_messages(query, original, judgments)
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


async def rejudge_correction(
    instance: Instance,
    judgments: Sequence[CriterionJudgment],
    original: str,
    corrected: str,
    llm: LLM,
    *,
    memo: QueryMemo | None = None,
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
    judgment, trace = await judge_instance(pair, method, llm, memo or QueryMemo(), JudgeOptions(swap=True))
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
