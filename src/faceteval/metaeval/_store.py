"""A meta-evaluation run on disk: the instances measured, the judgments, and the summary.

The summary records the line count and SHA-256 of the instances and judgments it was computed from
(``written``, as a run record does), and a run is read back only with the files it describes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from faceteval import store
from faceteval.core import Instance, Judgment
from faceteval.datasets import read_instances, read_judgments
from faceteval.errors import FacetevalError, InputError
from faceteval.metaeval._judgments import join
from faceteval.metaeval._summary import Settings, summarize
from faceteval.metaeval._target import Target
from faceteval.metaeval._weights import HumanWeights
from faceteval.store import MetaEvalRecord, MetaEvalSummary, OutputKind, record_path_for
from faceteval.store import internal as store_internal
from faceteval.store.internal import REPORT, RUN_RECORD, OutputFile, check_written, header, write_atomic

INSTANCES = "instances.jsonl"
"""The file of a run directory holding the instances measured."""
JUDGMENTS = "judgments.jsonl"
"""The file of a run directory holding the judgments measured."""
SUMMARY = "summary.json"
"""The file of a run directory holding its measures (`summarize`)."""
REPORT_FILES = ("report.md", "report.html")


def write_instances(out: Path, instances: Iterable[Instance]) -> Path:
    """``out/instances.jsonl``: exactly what is measured, so a run can be re-read and compared."""
    return _write_lines(out / INSTANCES, (i.model_dump_json(exclude_defaults=True) for i in instances))


def stage_instances(out: Path, instances: Iterable[Instance]) -> OutputFile:
    """``out/instances.jsonl`` written beside itself, not yet in place: judge from its partial file,
    and commit it (`faceteval.store.OutputFile.commit`) only once the run has judgments to put in place,
    so that a run that judges nothing leaves the earlier run directory as it was."""
    staged = OutputFile(out / INSTANCES)
    try:
        staged.write_lines(i.model_dump_json(exclude_defaults=True) for i in instances)
    except BaseException:
        staged.discard()
        raise
    return staged


def write_judgments(out: Path, judgments: Iterable[Judgment]) -> Path:
    return _write_lines(out / JUDGMENTS, (j.model_dump_json() for j in judgments))


def write_summary(out: Path, record: MetaEvalRecord) -> Path:
    """``out/summary.json``: the record of a run that wrote no file of its own (a sweep's summary).

    Raises:
        ValueError: A number is not finite (no JSON reader could read it).
    """
    return write_atomic(out / SUMMARY, record.to_json())


def measure(
    out: Path,
    target: Target,
    instances: Sequence[Instance],
    judgments: Iterable[Judgment],
    *,
    judge: str,
    settings: Settings | None = None,
    extra: Mapping[str, Any] | None = None,
    about: MetaEvalRecord | None = None,
    in_place: bool = False,
    human_weights: Sequence[HumanWeights] = (),
    source: str = "judgments",
) -> MetaEvalRecord:
    """Summarise the judgments of ``instances`` and write the run directory ``out``; its record.

    ``out`` gets instances.jsonl, judgments.jsonl with the judgment of each instance, and
    summary.json: the run's record (what ``about`` says of the method, LLM, options and spend, its
    summary with ``extra`` merged in, and the two files' line counts and SHA-256s under
    ``written``), all put in place together when the summary is done. With ``in_place``, ``out``
    already holds the first two (a method run writes them as it judges) and only the summary is
    written. ``source`` names the judgments in errors (see `join`). A judgment of an instance of
    ``target`` that is not among ``instances`` (a sample or filter left it out) is counted apart
    from one of no instance at all.

    Judgments read slim (`read_slim`) are read again whole from their file to write
    ``judgments.jsonl``.
    """
    started = datetime.now(UTC)
    all_ids = (instance.id for instance in target.instances)
    joined = join(instances, judgments, source=source, all_ids=all_ids)
    files = [out / INSTANCES, out / JUDGMENTS]
    with store.RunFiles([] if in_place else files, out / SUMMARY, described=files if in_place else ()) as run:
        if not in_place:
            whole = whole_instances(target, instances)
            run[out / INSTANCES].write_lines(i.model_dump_json(exclude_defaults=True) for i in whole)
            run[out / JUDGMENTS].write_lines(joined.pairs.judgment_lines())
        models = [about.llm.model] if about is not None and about.llm is not None else []
        numbers = summarize(
            target,
            joined,
            judge=judge,
            settings=settings or Settings(),
            human_weights=human_weights,
            judge_models=models,
        ) | dict(extra or {})
        about = about or MetaEvalRecord(**header("meta-eval", started))
        record = about.finished(summary=MetaEvalSummary.model_validate(numbers))
        run.finish(record)
    return record


def whole_instances(target: Target, instances: Sequence[Instance]) -> Iterator[Instance]:
    """``instances`` whole: read again (`Target.whole`) when the target keeps them slim.

    ``instances`` are the target's, in its order (a sample or filter keeps its order): the target's
    are read again in turn, and each kept when it is the next of ``instances``.

    Raises:
        FacetevalError: The instances read again are not those measured (the file changed).
    """
    if target.whole is None:
        yield from instances
        return
    measured = iter(instances)
    wanted = next(measured, None)
    for instance in target.whole():
        if wanted is None:
            break
        if instance.id == wanted.id:
            yield instance
            wanted = next(measured, None)
    if wanted is not None:
        raise FacetevalError(f"{target.name}: its instances changed while they were measured")


def read_summary(run_dir: Path) -> MetaEvalRecord:
    """The record of a run directory: its ``summary.json``, of any schema.

    Raises:
        FacetevalError: The directory holds no summary.
        InputError: The summary is not one (a field named).
    """
    summary_path = run_dir / SUMMARY
    if not summary_path.is_file():
        raise FacetevalError(f"{run_dir}: not a meta-evaluation run (no {SUMMARY})")
    return store.read_record(summary_path, MetaEvalRecord)


def check_run(run_dir: Path) -> MetaEvalRecord:
    """The record of a run directory, once its files are checked as `read_run` checks them, without
    holding them: those the summary describes (``written``) by their SHA-256, those of a summary
    written before summaries described them read line by line.

    Raises:
        InputError: A file is not as the summary describes it, or (not described) has a bad line.
    """
    summary = read_summary(run_dir)
    check_written(summary, run_dir / SUMMARY)
    if INSTANCES not in summary.written and (run_dir / INSTANCES).is_file():
        for item in read_instances(run_dir / INSTANCES):
            if isinstance(item, InputError):
                raise item
    if JUDGMENTS not in summary.written and (run_dir / JUDGMENTS).is_file():
        for _ in read_judgments(run_dir / JUDGMENTS):
            pass
    return summary


def read_run(run_dir: Path) -> tuple[MetaEvalRecord, list[Instance], list[Judgment]]:
    """The record, instances and judgments of a run directory.

    Raises:
        InputError: A file the summary describes is missing, or not as it describes it (another
            run's, or changed since); a summary written before summaries described them is read as is.
    """
    summary = read_summary(run_dir)
    check_written(summary, run_dir / SUMMARY)
    instances: list[Instance] = []
    if (run_dir / INSTANCES).is_file():
        for item in read_instances(run_dir / INSTANCES):
            if isinstance(item, InputError):
                raise item
            instances.append(item)
    judgments = list(read_judgments(run_dir / JUDGMENTS)) if (run_dir / JUDGMENTS).is_file() else []
    return summary, instances, judgments


def run_files(run_dir: Path) -> list[tuple[Path, OutputKind]]:
    """The files a run writes into ``run_dir``, each with its kind (see
    `faceteval.store.internal.check_outputs`)."""
    return [
        (run_dir / INSTANCES, store_internal.INSTANCES),
        (run_dir / JUDGMENTS, store_internal.JUDGMENTS),
        (record_path_for(run_dir / JUDGMENTS), RUN_RECORD),
        (run_dir / SUMMARY, store_internal.SUMMARY),
        (run_dir / REPORT_FILES[0], REPORT),
        (run_dir / REPORT_FILES[1], REPORT),
    ]


RESULT_FILES = (SUMMARY, *REPORT_FILES)
"""What a run directory holds of its results: they describe one run, and go when another begins."""


def forget_results(run_dir: Path, sweep_dir: Path | None = None) -> None:
    """Remove the results of an earlier run in ``run_dir`` (and of the sweep in ``sweep_dir``): until the
    new one finishes, they would describe another."""
    for directory in (run_dir, sweep_dir):
        if directory is not None:
            for name in RESULT_FILES:
                (directory / name).unlink(missing_ok=True)


def run_inputs(run_dir: Path) -> list[Path]:
    """The files of a run directory that are read to report on it or compare it, and those of the
    runs of a sweep or repeated run inside it."""
    folders = [run_dir, *(d for d in sorted(run_dir.glob("*/")) if (d / SUMMARY).is_file())]
    names = (INSTANCES, JUDGMENTS, SUMMARY, record_path_for(Path(JUDGMENTS)).name)
    return [folder / name for folder in folders for name in names]


def _write_lines(path: Path, lines: Iterable[str]) -> Path:
    with OutputFile(path) as out:
        out.write_lines(lines)
    return path
