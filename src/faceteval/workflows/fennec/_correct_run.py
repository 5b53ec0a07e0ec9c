"""A ``correct`` run into a file: the corrections, put in place with their run record however it ends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from faceteval._runner import BatchDone, Started, ending, note_ending, put_in_place, spent_since, with_batch
from faceteval.errors import FacetevalError
from faceteval.llm import LLM, Spend
from faceteval.methods.fennec import Fennec
from faceteval.prompts.internal import recorded_prompts
from faceteval.store import InputFile, LLMRecord, RunFiles, record_path_for
from faceteval.store.internal import RUN_RECORD, check_outputs, input_file, spend_of
from faceteval.workflows.fennec._correct import (
    CORRECTION_TEMPLATE,
    Correction,
    CorrectionStats,
    CorrectOptions,
    correct_each,
)
from faceteval.workflows.fennec._correctable import Correctable
from faceteval.workflows.fennec._records import CORRECTIONS, CorrectionGain, CorrectRecord, CorrectSummary


@dataclass(frozen=True, slots=True)
class CorrectJob:
    """What a ``correct`` run reads and writes: made by `check` before anything is opened."""

    judgments: InputFile
    """The fennec judgments corrected."""
    input: InputFile
    """The instances they judged."""
    out: Path

    @classmethod
    def check(
        cls, judgments: Path, input_path: Path, out: Path, *, cache: Path | None, force: bool = False
    ) -> CorrectJob:
        """The job, once the outputs are checked: ``out`` and its record may replace only files of their
        kinds (but with ``force``), never the inputs or the response ``cache``.

        Raises:
            ConfigError: An output would overwrite an input, the cache, or a file not ours.
            InputError: An input cannot be read.
        """
        check_outputs(
            [(out, CORRECTIONS), (record_path_for(out), RUN_RECORD)],
            given=out,
            inputs=[judgments, input_path],
            cache=cache,
            force=force,
        )
        return cls(input_file(judgments), input_file(input_path), out)


@dataclass(slots=True)
class CorrectRun:
    """What a ``correct`` run did; filled in as it goes, so it is current however it ends."""

    responses: int
    """Responses of the ok judgments read (what the run would consider if not stopped)."""
    judgments: int = 0
    """Judgments read, failed ones included."""
    stats: CorrectionStats = field(default_factory=CorrectionStats)
    interrupted: bool = False
    stopped: FacetevalError | None = None
    elapsed: float = 0.0
    record_path: Path | None = None
    kept: bool = False
    """The run had nothing to put in place of an earlier output, which was left as it was: no
    correction succeeded, and one failed (or there was nothing to correct)."""
    spent: Spend = field(default_factory=Spend)
    """Every call the run made, including those of corrections an interruption left unfinished."""
    batch: BatchDone | None = None
    """With ``--batch``: what its rounds did, once they are done (the record counts their spend)."""


async def correct_file(
    job: CorrectJob,
    items: list[Correctable],
    llm: LLM,
    *,
    options: CorrectOptions,
    run: CorrectRun,
    corrected: Callable[[Correction], None] | None = None,
    started: Started | None = None,
) -> None:
    """Correct ``items`` into ``job.out``, then write its run record (`faceteval.store.CorrectRecord`).

    The corrections and their record are put in place when the run ends, however it ends (``run``
    then says how), unless they would replace an earlier output with nothing gained (``run.kept``);
    an interruption or an error is raised again once they are. ``corrected`` is told
    of each correction as it is written.

    Raises:
        FacetevalError: What stopped the run (too many failures in a row, a refused key, an output
            that could not be written ...), once the files are in place.
    """
    started = started or Started.now()
    before = replace(llm.spent)
    with RunFiles([job.out], record_path_for(job.out)) as files:
        out = files[job.out]

        def sink(correction: Correction) -> None:
            out.write(correction.model_dump_json() + "\n")
            if corrected is not None:
                corrected(correction)

        failure: BaseException | None = None
        try:
            await correct_each(items, llm, options=options, sink=sink, stats=run.stats)
        except BaseException as exc:
            failure = exc
            note_ending(run, exc)
            raise
        finally:
            run.elapsed = started.elapsed()
            run.spent = spent_since(llm.spent, before)
            record = partial(_record, job, llm, options, run, started, failure)
            if _keeps_earlier(job, run):
                run.kept = True  # the partial files are removed as they close
            else:
                run.record_path = put_in_place(run, lambda: files.finish(record()), failure)


def _keeps_earlier(job: CorrectJob, run: CorrectRun) -> bool:
    """Whether the run leaves an earlier output as it was: no correction it asked for succeeded, and
    one failed or there was none to write at all, however the run ended."""
    statuses = run.stats.statuses
    failed = statuses.get("error", 0) + statuses.get("parse_error", 0)
    nothing = not sum(statuses.values())
    return job.out.exists() and not statuses.get("corrected", 0) and (failed > 0 or nothing)


def correct_templates(options: CorrectOptions) -> tuple[str, ...]:
    """The templates a correction run renders (re-judging's too, with ``rejudge``)."""
    return (CORRECTION_TEMPLATE, "common/reask", *(Fennec().templates() if options.rejudge else ()))


def _record(
    job: CorrectJob,
    llm: LLM,
    options: CorrectOptions,
    run: CorrectRun,
    started: Started,
    failure: BaseException | None,
) -> CorrectRecord:
    stats = run.stats
    gain = stats.improvement().to_dict() if options.rejudge else None
    summary = CorrectSummary(
        judgments=stats.judgments,
        skipped_judgments=stats.skipped,
        responses=stats.responses,
        below_threshold=stats.below,
        kept=stats.statuses.get("kept", 0),
        corrected=stats.statuses.get("corrected", 0),
        parse_errors=stats.statuses.get("parse_error", 0),
        errors=stats.statuses.get("error", 0),
        rejudged=dict(stats.rejudged),
        improvement=None if gain is None else CorrectionGain.model_validate(gain),
    )
    return CorrectRecord(
        **ending("correct", run, started.at, failure),
        inputs={"judgments": job.judgments, "input": job.input},
        output=str(job.out),
        llm=LLMRecord.of_judge(llm),
        options={"threshold": options.threshold, "rejudge": options.rejudge, "trace": options.trace},
        **recorded_prompts(correct_templates(options), prompts=options.prompts()),
        spend=spend_of(with_batch(run.spent, run.batch), run.elapsed),
        batch=None if run.batch is None else run.batch.record,
        summary=summary,
    )
