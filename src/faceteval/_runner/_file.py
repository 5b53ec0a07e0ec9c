"""Judging into a file: the judgments, put in place with their run record however the run ends.

`FileJob.check` measures the input and refuses outputs that are not ours before anything is opened;
`judge_file` then judges the instances into the output and writes the run record
(`faceteval.store.JudgeRecord`) beside it, whether the run finished, was interrupted (Ctrl-C, a
cancelled task) or stopped by an error, which it raises again once the files are in place. The
run's result (`faceteval.results.JudgeResult`) is counted as the judgments are written, stored in
the record and returned.
"""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from faceteval._runner._annotators import EXAMPLES_TEMPLATE
from faceteval._runner._ending import ending, note_ending, put_in_place
from faceteval._runner._instance import cannot_judge
from faceteval._runner._judge import Item, judge_each
from faceteval._runner._options import (
    JudgeOptions,
    calibration_of,
    human_labels_of,
    run_prompts,
    scoring_options,
)
from faceteval._runner._output import JudgmentsOutput
from faceteval._runner._stats import RunStats, spent_since, with_batch
from faceteval._runner._subset import subset_options
from faceteval._runner._tally import ResultTally
from faceteval._util.text import plural
from faceteval.core import Instance, Judgment
from faceteval.core.internal import INVALID_INPUT
from faceteval.datasets import Reading
from faceteval.datasets.internal import PLAIN_READING as PLAIN
from faceteval.datasets.internal import measure_input
from faceteval.errors import FacetevalError, InputError
from faceteval.llm import Judge, Panel, Spend
from faceteval.methods import Method
from faceteval.prompts.internal import recorded_prompts
from faceteval.results import JudgeResult
from faceteval.store import InputFile, JudgeRecord, JudgeSummary, LLMRecord, MethodRecord, record_path_for
from faceteval.store.internal import JUDGMENTS, RUN_RECORD, check_outputs, spend_of

if TYPE_CHECKING:
    from faceteval._runner._batch import BatchDone

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Started:
    """When a run started: the time, the clock, and the seconds it spent opening the model."""

    at: datetime
    clock: float
    opening: float = 0.0

    @classmethod
    def now(cls) -> Started:
        """Now."""
        return cls(datetime.now(UTC), time.perf_counter())

    def opened(self) -> Started:
        """The same start, with the model (and its cache) opened now."""
        return replace(self, opening=time.perf_counter() - self.clock)

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.perf_counter() - self.clock


@dataclass(frozen=True, slots=True)
class FileJob:
    """What a judge run reads and writes: made by `check` before anything is opened.

    Attributes:
        input_path: The instances file (None: instances given in Python, not from a file).
        out: The judgments file (None: standard output, or nowhere in a dry run).
        instances: The input's non-blank lines (for a progress bar).
        input_sha256: The input's SHA-256, for the run record.
        strict: Check every line first, and judge nothing if one is bad.
        reuse: Reuse the ok judgments of an earlier ``out`` of the same job (without a response cache).
        systems: The systems named for the candidates of every instance that names none (``--systems``),
            for the run record (the instances carry them); they change no judgment, so an earlier
            output judged with others is reused all the same.
        reading: How the input is read (its format, preset, field map), for the run record.
        recorded_as: Where the run record says the input is, when that is not ``input_path``: a file
            the input is staged in, put there once the run has judgments to put in place.
    """

    input_path: Path | None
    out: Path | None
    instances: int = 0
    input_sha256: str | None = None
    strict: bool = False
    reuse: bool = False
    systems: tuple[str, ...] | None = None
    reading: Reading = PLAIN
    recorded_as: Path | None = None

    @classmethod
    def check(
        cls,
        input_path: Path | None,
        out: Path | None,
        *,
        cache: Path | None,
        reuse: bool | None = None,
        strict: bool = False,
        force: bool = False,
        systems: Sequence[str] | None = None,
        reading: Reading = PLAIN,
        recorded_as: Path | None = None,
    ) -> FileJob:
        """The job, once the input is measured and the outputs checked: ``out`` and its record may
        replace only files of their kinds (but with ``force``), never the input or the response
        ``cache`` file. Without a cache (``reuse``, by default when ``cache`` is None), the ok
        judgments of an earlier ``out`` of the same job are reused.

        Raises:
            InputError: The input is not a readable file.
            ConfigError: An output would overwrite the input, the cache, or a file not ours.
        """
        count, digest = measure_input(input_path, reading) if input_path is not None else (0, None)
        if out is not None:
            check_outputs(
                [(out, JUDGMENTS), (record_path_for(out), RUN_RECORD)],
                given=out,
                inputs=[] if input_path is None else [input_path],
                cache=cache,
                force=force,
            )
        reuse = (cache is None if reuse is None else reuse) and input_path is not None
        named = None if systems is None else tuple(systems)
        return cls(input_path, out, count, digest, strict, reuse, named, reading, recorded_as)


@dataclass(frozen=True, slots=True)
class RunHooks:
    """What a caller is told as a run goes (the CLI shows it)."""

    judged: Callable[[Judgment], None] | None = None
    """Each judgment handed on (written, or planned in a dry run)."""
    invalid: Callable[[Judgment], None] | None = None
    """The judgment of an input line that is not a valid instance."""
    refused: Callable[[str, str], None] | None = None
    """With ``strict``: each problem found, as ``("invalid" | "cannot judge", problem)``."""
    stream: IO[str] | None = None
    """Where judgments go without an ``out`` (standard output when None)."""
    replacing: Callable[[], None] | None = None
    """Called just before the judgments are put in place (not when the earlier output is kept): what
    else must change with them (a staged input moved to where the record says it is)."""


@dataclass(slots=True)
class RunResult:
    """What a judge run did; filled in as it goes, so it is current however the run ends."""

    stats: RunStats = field(default_factory=RunStats)
    interrupted: bool = False
    stopped: FacetevalError | None = None
    """The error that stopped the run early, if one did."""
    elapsed: float = 0.0
    start: float = 0.0
    """Of ``elapsed``, the seconds spent opening the model."""
    instances: int = 0
    record_path: Path | None = None
    kept: bool = False
    """The run ended early with no ok judgment, and the earlier output was left as it was."""
    spent: Spend = field(default_factory=Spend)
    """Every call the run made, including those of judgments an interruption left unfinished."""
    result: JudgeResult | None = None
    """The result of the judgments handed on (and of the earlier ones the output kept), as the run
    record stores it; None in a dry run (a plan has no result)."""
    batch: BatchDone | None = None
    """With ``--batch``: what its rounds did, once they are done (`faceteval._runner._run_job`)."""


async def judge_file(
    job: FileJob,
    items: Iterable[Item],
    method: Method,
    llm: Judge,
    *,
    options: JudgeOptions,
    result: RunResult,
    hooks: RunHooks = RunHooks(),
    started: Started | None = None,
) -> None:
    """Judge ``items`` (those of ``job.input_path``, from `checked_items`) into ``job.out``, then write
    its run record.

    The output and its record are put in place when the run ends, however it ends: ``result``
    then says how, and holds the run's result (`RunResult.result`, stored in the record too). An
    interruption (a cancellation, Ctrl-C) or an error is raised again once they are; a run that
    has no ok judgment (however it ends) leaves an earlier output as it was. A dry run (``llm.dry_run``)
    writes nothing and has no result.

    Raises:
        FacetevalError: What stopped the run (`RunAborted`, a refused key, an output that could not
            be written ...), once the files are in place.
    """
    started = started or Started.now()
    result.instances, result.start = job.instances, started.opening
    before = replace(llm.spent)
    job_record = _job_record(job, method, llm, options)
    tally: ResultTally | None = None
    if not llm.dry_run:
        tally = ResultTally(items, labels=human_labels_of(options), group_by=options.group_by)
    out = None if llm.dry_run else job.out
    with JudgmentsOutput(out, job_record, reuse=job.reuse, stream=hooks.stream) as output:
        failure: BaseException | None = None
        try:
            sink = _sink(output, hooks, tally)
            stats, take = result.stats, output.take
            judged = items if tally is None else tally.items
            await judge_each(judged, method, llm, options=options, sink=sink, stats=stats, reuse=take)
        except BaseException as exc:
            failure = exc
            note_ending(result, exc)
            raise
        finally:
            result.elapsed = started.elapsed()
            result.spent = spent_since(llm.spent, before)
            if tally is not None:
                record = partial(_record, job_record, llm, result, started, failure)
                _finish(job, output, result, tally, record, failure, hooks.replacing)


def _finish(
    job: FileJob,
    output: JudgmentsOutput,
    result: RunResult,
    tally: ResultTally,
    record_of: Callable[[], JudgeRecord],
    failure: BaseException | None,
    replacing: Callable[[], None] | None = None,
) -> None:
    """Put the output in place with its record (``record_of()``), which holds the result, unless the
    earlier output is kept; ``replacing()`` first, if given; ``result.result`` is then the run's. A
    fault in counting the result is raised once the judgments are in place, with a record that has
    no result."""
    fault: list[Exception] = []

    def record() -> JudgeRecord:
        try:
            result.result = tally.result()
        except Exception as exc:  # a bug: never at the cost of the judgments
            fault.append(exc)
            logger.error("the run's result could not be counted", exc_info=exc)
        return record_of()

    if _keeps_earlier(job, result):
        result.kept = True  # the partial files are removed as the output closes
    else:

        def finish() -> Path | None:
            if replacing is not None:
                replacing()
            return output.finish(result.stats, record, carried=tally.carry)

        result.record_path = put_in_place(result, finish, failure)
    if result.result is None and not fault:  # nothing written (standard output), or the earlier kept
        result.result = tally.result()
    if fault and failure is None:
        raise fault[0]


def _sink(output: JudgmentsOutput, hooks: RunHooks, tally: ResultTally | None) -> Callable[[Judgment], None]:
    """Where each judgment goes: the output and the result (not a plan's: nowhere, not even to standard
    output), and the hooks."""

    def sink(judgment: Judgment) -> None:
        if tally is not None:
            output.write(judgment)
            tally.add(judgment)
        if hooks.invalid is not None and judgment.error and judgment.error.startswith(INVALID_INPUT):
            hooks.invalid(judgment)
        if hooks.judged is not None:
            hooks.judged(judgment)

    return sink


def _keeps_earlier(job: FileJob, result: RunResult) -> bool:
    """Whether the run leaves an earlier output as it was: it has no ok judgment to put in its place,
    however it ended (an empty or all-invalid input, every instance failing, a wrong endpoint, a
    refused key, Ctrl-C before any reply)."""
    earlier = job.out is not None and job.out.exists()
    statuses = result.stats.statuses
    judged = statuses.get("ok", 0) or statuses.get("abstained", 0)  # an abstention is a verdict withheld
    return earlier and not judged and not result.stats.reused


def _job_record(job: FileJob, method: Method, llm: Judge, options: JudgeOptions) -> JudgeRecord:
    """What the run record says of the job before it starts: input, output, method, LLM, options, prompts."""
    inputs = {}
    if job.input_path is not None:
        path = job.recorded_as or job.input_path
        absolute = os.path.abspath(path)  # symlinks kept: the typed path's own
        read_as = None if job.reading.plain else job.reading.model_dump(mode="json", exclude_none=True)
        inputs["input"] = InputFile(
            path=str(path), absolute=absolute, sha256=job.input_sha256, read_as=read_as
        )
    return JudgeRecord(
        inputs=inputs,
        output=str(job.out),
        method=MethodRecord.of(method.describe()),
        llm=LLMRecord.of_judge(llm),
        options={"swap": options.swap, "strict": job.strict, "trace": options.trace}
        | scoring_options(options)
        | ({"prefix_cache": True} if run_prompts(options).prefix_cache else {})
        | ({} if job.systems is None else {"systems": list(job.systems)})
        | ({} if options.order == "input" else {"order": options.order})
        | _calibration_option(options)
        | _human_labels_option(options)
        | subset_options(options)
        | ({} if options.group_by is None else {"group_by": options.group_by}),
        **recorded_templates(method, llm, options),
    )


def _calibration_option(options: JudgeOptions) -> dict[str, Any]:
    """What the run record's options say of ``--calibration``: the threshold and what it guarantees."""
    calibration = calibration_of(options)
    if calibration is None:
        return {}
    return {"calibration": calibration.as_option(options.calibration_source or "(given in Python)")}


def _human_labels_option(options: JudgeOptions) -> dict[str, Any]:
    """What the run record's options say of ``--human-labels``: where they came from and how many."""
    labels = human_labels_of(options)
    if labels is None:
        return {}
    source = options.human_labels_source or "(given in Python)"
    return {"human_labels": {"source": source, "labels": len(labels)}}


def recorded_templates(method: Method, llm: Judge, options: JudgeOptions) -> dict[str, dict[str, str]]:
    """The run record's ``prompts`` (each template the run renders, with its hash) and ``prompt_sources``
    (built-in, or the file it was read from): the method's, in structured mode the schema note, and
    with simulated annotators the examples' template."""
    judges = llm.judges if isinstance(llm, Panel) else (llm,)
    structured = any(judge.config.structured for judge in judges)
    examples = (EXAMPLES_TEMPLATE,) if options.annotators is not None else ()
    names = (*method.templates(), *(("common/structured",) if structured else ()), *examples)
    return recorded_prompts(names, prompts=run_prompts(options))


def _record(
    job: JudgeRecord, llm: Judge, result: RunResult, started: Started, failure: BaseException | None
) -> JudgeRecord:
    stats = result.stats
    header = ending("judge", result, started.at, failure)
    summary = JudgeSummary(
        judgments=dict(stats.statuses),
        reused=stats.reused,
        invalid_input=stats.invalid,
        orders_agreed=stats.consistency.get(True, 0),
        orders_disagreed=stats.consistency.get(False, 0),
        start_seconds=round(result.start, 3),
        **({"score_modes": dict(stats.score_modes)} if stats.score_modes else {}),
        **({"confidence_missing": dict(stats.confidence_missing)} if stats.confidence_missing else {}),
        **({"prefix_share": share} if (share := stats.prefix.share) is not None else {}),
        result=result.result,
    )
    batch = result.batch
    spend = spend_of(with_batch(result.spent, batch), result.elapsed)
    by_batch = {} if batch is None else {"batch": batch.record}
    described = {"llm": LLMRecord.of_judge(llm)}  # as the run ended: a structured fallback said
    return job.model_copy(update={**header, **described, "spend": spend, "summary": summary, **by_batch})


def checked_items(
    job: FileJob, items: Iterable[Item], method: Method, hooks: RunHooks = RunHooks()
) -> Iterator[Item]:
    """The items to judge, the first one read now (where a file that is not JSON Lines fails); with
    ``job.strict``, all of them, checked: call it before opening anything.

    Raises:
        InputError: The input is not JSON Lines; with ``job.strict``, a line is invalid or an
            instance cannot be judged as it is (each told to ``hooks.refused``).
    """
    if not job.strict:
        stream = iter(items)
        # The first line now, before anything is written: it is where a file that is not JSON Lines fails.
        return itertools.chain(list(itertools.islice(stream, 1)), stream)
    listed = list(items)
    where = "" if job.input_path is None else f"{job.input_path}: "
    problems = [str(item) for item in listed if isinstance(item, InputError)]
    unjudgeable = [
        f"{where}instance {item.id!r}: {error}"
        for item in listed
        if isinstance(item, Instance) and (error := cannot_judge(method, item)) is not None
    ]
    if hooks.refused is not None:
        for problem in problems:
            hooks.refused("invalid", problem)
        for problem in unjudgeable:
            hooks.refused("cannot judge", problem)
    if problems or unjudgeable:
        found = [
            plural(len(problems), "invalid line") if problems else "",
            f"{plural(len(unjudgeable), 'instance')} {method.name} cannot judge as "
            + ("it is" if len(unjudgeable) == 1 else "they are")
            if unjudgeable
            else "",
        ]
        name = "instances" if job.input_path is None else str(job.input_path)
        problem = f"{' and '.join(filter(None, found))}; nothing was judged (--strict)"
        raise InputError(name, None, None, problem)
    return iter(listed)
