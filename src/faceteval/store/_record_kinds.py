r"""The engine's run records: a ``judge`` run's and a meta-evaluation's, each with the summary of what
it did. The method families' records (``correct``, ``bridge``, ``hdeval train``, ``criteria
generate``) are their workflows', registered as `faceteval.store.RecordKind`\ s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field, JsonValue

from faceteval.core import JudgeResult
from faceteval.frames import result_to_pandas, summary_to_pandas
from faceteval.store._record import RecordSummary, RunRecord

if TYPE_CHECKING:
    import pandas as pd


class JudgeSummary(RecordSummary):
    """What a ``judge`` run did (its LLM use is the record's ``spend``)."""

    judgments: dict[str, int] = Field(default_factory=dict)
    """Judgments written, by status (``ok``, ``parse_error``, ``error``)."""
    reused: int = 0
    """Of them, ok judgments taken as they were from an earlier output of the same job."""
    invalid_input: int = 0
    """Input lines that were not valid instances (written as ``error`` judgments)."""
    orders_agreed: int = 0
    """Judgments made in several orders whose orders agreed."""
    orders_disagreed: int = 0
    start_seconds: float | None = None
    """Of the run's seconds, those spent opening the model (and the response cache)."""
    score_modes: dict[str, int] | None = None
    """With ``--score-mode logprobs``: the scores of the judgments by how they were obtained
    (``logprobs``, ``parse`` where the fallback was used, ``mixed`` where swapped orders differed)."""
    confidence_missing: dict[str, int] | None = None
    """Ok judgments left without the confidence the run's estimator asked for (``--confidence
    verdict-logprobs`` without distributions), by the reason; None when there are none."""
    prefix_share: float | None = None
    """Of the prompts of the per-facet calls (``dna.score`` ...), the share each instance's calls
    start with alike (their longest common prefix, in characters): what a server's prefix cache can
    reuse (``--prefix-cache`` puts the facet last to raise it). None without such calls."""
    result: JudgeResult | None = None
    """The run's result (`faceteval.results.JudgeResult`): win rates with their intervals per system
    and position, the ranking, swap consistency, the facets, the failures; computed as the judgments
    were written (those an earlier run left and this one kept included). None in a record written
    before results were recorded, and in a dry run's."""

    def written_items(self) -> int | None:
        """Judgments written."""
        return sum(self.judgments.values())


class JudgeRecord(RunRecord):
    """The record of a ``judge`` run (``<out>.run.json``), and of the judging of a meta-evaluation or
    of HD-Eval's criterion scoring. ``inputs.input`` is the instances file; ``options`` are
    ``swap``, ``strict``, ``trace``, ``systems`` (``--systems``: the systems named for instances
    that name none, or None), and with ``--score-mode logprobs`` ``score_mode`` and ``top_logprobs``."""

    command: Literal["judge"] = "judge"
    summary: JudgeSummary = Field(default_factory=JudgeSummary)

    def summary_table(self) -> pd.DataFrame:
        """The run's result per system (`faceteval.frames.result_to_pandas`), when it has one."""
        result = self.summary.result
        return super().summary_table() if result is None else result_to_pandas(result)


class MetaEvalSummary(RecordSummary):
    """What a meta-evaluation measured: one judge on one benchmark, or the runs of a sweep or repeats.

    Every field may be absent (a report shows what is there). Metric entries are as
    `faceteval.metrics` gives them: ``{value, n, ci, ...}``; one that is not a finite number is
    refused when the record is written (`RunRecord.to_json`), not when it is made.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=True)

    benchmark: str | None = None
    kind: str | None = None
    """``pairwise`` or ``pointwise``."""
    reference: str | None = None
    judge: str | None = None
    """Who judged: ``method (model)``, or the recorded judge's name or file."""
    n: int | None = None
    """Instances measured."""
    status: dict[str, int] | None = None
    """Judgments by status, and ``missing`` ones."""
    unmatched_judgments: int | None = None
    unmatched_examples: list[str] | None = None
    judgments_outside_sample: int | None = None
    labelled: int | None = None
    agreement: JsonValue = None
    agreement_without_ties: JsonValue = None
    cohen_kappa: JsonValue = None
    agreement_order1: JsonValue = None
    agreement_order2: JsonValue = None
    accuracy_order_avg: JsonValue = None
    consistency: JsonValue = None
    consistency_without_ties: JsonValue = None
    positional_agreement: JsonValue = None
    agreement_consistent: JsonValue = None
    agreement_consistent_without_ties: JsonValue = None
    order_metrics_leave_out: int | None = None
    rotation_consistency: JsonValue = None
    confusion: JsonValue = None
    by_category: JsonValue = None
    votes: JsonValue = None
    bias: JsonValue = None
    """Position, length and self-preference rates of the judge and the humans (pairwise)."""
    selective_accuracy: JsonValue = None
    """Agreement at 50/75/90/100% coverage, abstaining on the least confident verdicts (pairwise): the
    expectation over the orders of tied confidences, with its range (``low``, ``high``). Records
    written before the range give the agreement of one order (ties broken by the SHA-256 of the id)."""
    calibration: JsonValue = None
    """How well the verdicts' confidence ranks and predicts agreement with humans (pairwise): its
    estimator, AUROC, expected calibration error with the reliability bins, and the shares of tied
    confidences. None in a record written before it was measured."""
    cascade: JsonValue = None
    """Recorded judges measured as a cascade (``--cascade``): the target agreement and delta, the
    violation rate over calibration/test splits, coverage, agreement on the verdicts kept, each judge's
    median threshold and share decided, the relative cost, and each split's numbers (``per_split``)."""
    ppi: JsonValue = None
    """Prediction-powered win rates measured (``--ppi-labels``): per model pair and pooled, how often
    the PPI, judge-only and human-only intervals from a few random human labels cover the all-human
    win rate, and their mean widths."""
    correlations: JsonValue = None
    unjudged: JsonValue = None
    systems: JsonValue = None
    alpha: JsonValue = None
    facet_weights: JsonValue = None
    weight_rankings: JsonValue = None
    usage: JsonValue = None
    """The judgments' calls, tokens and cost (cached calls at their price), and per instance."""
    panel: JsonValue = None
    """A judge panel's: each judge's agreement (pointwise: correlations), the vote, and the judges'
    agreement (Krippendorff's alpha: nominal on verdicts; pointwise, interval on scores per aspect)."""
    score_modes: dict[str, int] | None = None
    """With ``--score-mode logprobs``: the judgments' scores by how they were obtained (``logprobs``,
    ``parse`` where the fallback was used, ``mixed``)."""
    reported: dict[str, JsonValue] | None = None
    """The numbers the recorded judge's authors published, to compare."""
    variant: dict[str, JsonValue] | None = None
    """Its place in a sweep: the swept count (``aspects``, ``criteria_count`` ...) and the seed."""
    runs: list[dict[str, JsonValue]] | None = None
    """A sweep's or repeats' runs: each one's directory, count, seed and headline numbers."""
    sweep: list[dict[str, JsonValue]] | None = None
    """The runs, when the swept count varies."""
    repeats: dict[str, JsonValue] | None = None
    """Mean and spread over seeds, when the seed varies."""

    def written_items(self) -> int | None:
        """Instances measured."""
        return self.n


class MetaEvalRecord(RunRecord):
    """The record of a meta-evaluation: a run directory's ``summary.json``. ``method`` and ``llm`` are
    those of a method run (``--method``); ``options``: ``swap`` and the sample and bootstrap settings."""

    command: Literal["meta-eval"] = "meta-eval"
    summary: MetaEvalSummary = Field(default_factory=MetaEvalSummary)

    def summary_table(self) -> pd.DataFrame:
        """A sweep's or repeats' runs, one a row; a single run's summary as one row."""
        runs = self.summary.runs
        return super().summary_table() if not runs else summary_to_pandas(runs)
