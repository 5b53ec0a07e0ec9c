"""Each command's run record: its ``command`` and the summary of what it did.

`AnyRunRecord` is their union, told apart by ``command`` (a pydantic discriminated union).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import ConfigDict, Field, JsonValue, TypeAdapter

from faceteval.core import JudgeResult, Usage
from faceteval.frames import result_to_pandas, summary_to_pandas
from faceteval.store._record import RecordPart, RecordSummary, RunRecord

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
    prefix_share: float | None = None
    """Of the prompts of the per-facet calls (``dna.score`` ...), the share each instance's calls
    start with alike (their longest common prefix, in characters): what a server's prefix cache can
    reuse (``--prefix-cache`` puts the facet last to raise it). None without such calls."""
    result: JudgeResult | None = None
    """The run's result (`faceteval.results.JudgeResult`): win rates with their intervals per system
    and position, the ranking, swap consistency, the facets, the failures; computed as the judgments
    were written (those an earlier run left and this one kept included). None in a record written
    before results were recorded, and in a dry run's."""


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


class CorrectionGain(RecordPart):
    """What correction gained, re-judged against the originals (cf. Fennec's Table 4)."""

    responses: int
    """Re-judged corrected responses counted."""
    before: float | None = None
    """Mean score of their originals (1-5)."""
    after: float | None = None
    """Mean score of their corrections."""
    gain: float | None = None
    """Mean of ``after - before`` per response."""
    ci: list[float] | None = None
    """The gain's confidence interval (Student's t), None with fewer than two responses."""
    confidence: float | None = None
    wins: int = 0
    ties: int = 0
    losses: int = 0


class CorrectSummary(RecordSummary):
    """What a ``correct`` run did."""

    judgments: int = 0
    """Judgments read and used (ok)."""
    skipped_judgments: int = 0
    """Failed judgments, skipped."""
    responses: int = 0
    """Responses written (kept or corrected)."""
    below_threshold: int = 0
    kept: int = 0
    corrected: int = 0
    parse_errors: int = 0
    errors: int = 0
    rejudged: dict[str, int] = Field(default_factory=dict)
    """Corrections re-judged against their originals (``--rejudge``), by status."""
    improvement: CorrectionGain | None = None
    """The gain of the corrections, with ``--rejudge``."""


class CorrectRecord(RunRecord):
    """The record of a ``correct`` run (``<out>.run.json``). ``inputs``: ``judgments`` and the judged
    ``input``; ``options``: ``threshold``, ``rejudge``, ``trace``."""

    command: Literal["correct"] = "correct"
    summary: CorrectSummary = Field(default_factory=CorrectSummary)


class BridgeRunSummary(RecordSummary):
    """What a ``bridge`` run did."""

    sources: int | None = None
    """Recorded outputs to bridge (what the run would have written had it not stopped)."""
    records: int = 0
    kept: int = 0
    """Consistent records: the training examples."""
    inconsistent: int = 0
    parse_errors: int = 0
    errors: int = 0
    skipped: int = 0
    """Recorded outputs without a readable verdict (no call made)."""
    duplicates: int = 0
    """Kept records whose chat repeats one already written."""
    usage: Usage = Field(default_factory=Usage)
    """The records' calls (cached included), tokens and cost."""
    files: dict[str, str] = Field(default_factory=dict)
    """The file names: ``records`` and ``sft``."""


class BridgeRunRecord(RunRecord):
    """The record of a ``bridge`` run (``<benchmark>.run.json``). ``options``: ``benchmark``, ``judge``
    (``recorded:<name>``), ``limit``."""

    command: Literal["bridge"] = "bridge"
    summary: BridgeRunSummary = Field(default_factory=BridgeRunSummary)


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
    """Agreement at 50/75/90/100% coverage, abstaining on the least confident verdicts (pairwise)."""
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


class MetaEvalRecord(RunRecord):
    """The record of a meta-evaluation: a run directory's ``summary.json``. ``method`` and ``llm`` are
    those of a method run (``--method``); ``options``: ``swap`` and the sample and bootstrap settings."""

    command: Literal["meta-eval"] = "meta-eval"
    summary: MetaEvalSummary = Field(default_factory=MetaEvalSummary)

    def summary_table(self) -> pd.DataFrame:
        """A sweep's or repeats' runs, one a row; a single run's summary as one row."""
        runs = self.summary.runs
        return super().summary_table() if not runs else summary_to_pandas(runs)


class TrainSummary(RecordSummary):
    """What ``hdeval train`` made: an evaluator, as `faceteval.methods.hdeval` loads it.

    Its targets, features and background are taken as they were written, and checked by the
    evaluator that reads them against each other and its files (each problem named by its field).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=True)

    targets: JsonValue = None
    """The human score aspects it predicts: a non-empty list of distinct names."""
    features: JsonValue = None
    """Tree node ids in the aggregator's column order: a non-empty list of distinct names."""
    background: JsonValue = None
    """Mean training score of each feature (the reference point of each contribution): a number each."""
    aggregator: str | None = None
    task: str | None = None
    benchmark: str | None = None
    source: str | None = None
    """Where the criterion scores came from: the model, or recorded scores."""
    model: JsonValue = None
    """The model (``provider:model``) whose criterion scores it learned; None for recorded scores (an
    evaluator written before it named one has it as its ``source``)."""
    group_by: str | None = None
    system_by: str | None = None
    level: str | None = None
    """The level results are read at (``sample``, ``summary``)."""


class TrainRecord(RunRecord):
    """The record of ``hdeval train``: an evaluator directory's ``evaluator.json``."""

    command: Literal["hdeval train"] = "hdeval train"
    summary: TrainSummary = Field(default_factory=TrainSummary)


class Demonstration(RecordPart):
    """The example shown with the task."""

    input: str
    output: str


class GeneratedSet(RecordPart):
    """One criteria set of a generation."""

    index: int
    """0: the temperature-0 set; 1..N: the samples."""
    temperature: float
    status: str
    file: str | None = None
    """Its criteria file, relative to the directory (None when it failed)."""
    criteria: int = 0
    usage: Usage = Field(default_factory=Usage)
    sha256: str | None = None
    """Its file's SHA-256 as written (edits since are refused unless forced)."""


class GenerationFailure(RecordPart):
    """A set that could not be generated, with its raw replies."""

    index: int
    status: str
    error: str | None = None
    replies: list[str] = Field(default_factory=list)


class GenerationSummary(RecordSummary):
    """What ``criteria generate`` made."""

    task: str = ""
    example: Demonstration | None = None
    temperature: float | None = None
    """The samples' temperature."""
    samples: int = 0
    sets: list[GeneratedSet] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    failures: list[GenerationFailure] = Field(default_factory=list)


class GenerationRecord(RunRecord):
    """The record of ``criteria generate``: the directory's ``generation.json``."""

    command: Literal["criteria generate"] = "criteria generate"
    summary: GenerationSummary = Field(default_factory=GenerationSummary)


AnyRunRecord = Annotated[
    JudgeRecord | CorrectRecord | BridgeRunRecord | MetaEvalRecord | TrainRecord | GenerationRecord,
    Field(discriminator="command"),
]
"""Any command's run record, told apart by its ``command``."""
RUN_RECORDS: TypeAdapter[AnyRunRecord] = TypeAdapter(AnyRunRecord)
