"""``faceteval calibrate``: a confidence threshold with a guarantee of agreement with humans."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import click

from faceteval._cli._app import handle_errors
from faceteval._cli._console import err_console, escape
from faceteval._cli._numbers import delta_option, target_agreement_option
from faceteval._cli._options import data_dir_option, force_flag
from faceteval._runner import record_identity
from faceteval._util.text import plural
from faceteval.core import SIGNALS, ConfidenceInputs, Instance, Judgment, confidence
from faceteval.datasets import InstanceFile, read_human_labels, read_judgments
from faceteval.datasets.internal import judged_input, recorded_reading
from faceteval.errors import FacetevalError, InputError
from faceteval.metaeval import load_judgments, load_target
from faceteval.metaeval.internal import SUMMARY, run_scale
from faceteval.results import CalibratedThreshold, calibrate_threshold
from faceteval.store import JudgeRecord, MetaEvalRecord, OutputKind, RunRecord, read_record, record_path_for
from faceteval.store.internal import check_outputs, write_atomic

CALIBRATION_FILE = OutputKind("a calibration", "json", ("kind", "threshold", "target_agreement", "judge"))
"""What ``--out`` writes, for the output checks (`faceteval.store.internal.check_outputs`)."""


@click.command()
@click.argument("source", metavar="RUN_OR_BENCHMARK")
@click.option(
    "--judgments",
    "judgments_spec",
    metavar="SOURCE",
    help="With a BENCHMARK (or a labelled file): the judgments to calibrate: recorded:<name>, a judgments "
    "JSONL or a run directory.",
)
@target_agreement_option(
    "The agreement with humans to guarantee on the verdicts kept, e.g. 0.9.", required=True
)
@delta_option("The chance allowed that the guarantee fails (it holds with probability 1 - delta).")
@click.option(
    "--labels",
    "labels_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Human labels by id (JSONL of {id, label}) in place of the instances' own.",
)
@click.option(
    "--min-kept",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Test only thresholds that keep at least this many calibration verdicts.",
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The calibration JSON."
)
@force_flag("--out")
@data_dir_option
@handle_errors
def calibrate(
    source: str,
    judgments_spec: str | None,
    target_agreement: float,
    delta: float,
    labels_path: Path | None,
    min_kept: int,
    out: Path,
    force: bool,
    data_dir: Path,
) -> None:
    """Choose the confidence threshold at which a judge's verdicts agree with humans.

    RUN_OR_BENCHMARK is a judge run (its judgments JSONL, or its .run.json), a meta-eval run directory,
    or, with --judgments, a benchmark or labelled file. Human labels come from the instances' `label`
    (or --labels). The threshold is chosen by fixed-sequence testing with exact binomial bounds: with
    probability at least 1 - delta, agreement with humans on the verdicts whose confidence reaches it is
    at least --target-agreement, for new instances like these judged by the same judge. `judge
    --calibration FILE` then marks the verdicts below it abstained.

    \b
    Examples:
      faceteval calibrate runs/labelled.jsonl --target-agreement 0.9 --delta 0.1 --out cal.json
      faceteval calibrate runs/dna --target-agreement 0.85 --out cal.json
      faceteval calibrate llmbar-natural --judgments recorded:llmbar/GPT-4/CoT \
          --target-agreement 0.9 --out cal.json
    """
    if judgments_spec is not None:
        judgments, labels, record, name = _benchmark(source, judgments_spec, data_dir)
    else:
        judgments, labels, record, name = _run(Path(source))
    if labels_path is not None:
        labels = _file_labels(labels_path)
    check_outputs([(out, CALIBRATION_FILE)], given=out, option="--out", inputs=_inputs(source), force=force)
    identity = record_identity(record, judgments, source=name)
    if identity.estimator == SIGNALS:  # (another estimator's missing confidence stays missing: never kept)
        judgments = with_confidences(judgments)
    calibration = calibrate_threshold(
        judgments, labels, judge=identity, target_agreement=target_agreement, delta=delta, source=name,
        min_kept=min_kept,
    )  # fmt: skip
    write_atomic(out, calibration.model_dump_json(indent=2) + "\n")
    _show(calibration, out)


def _run(path: Path) -> tuple[list[Judgment], dict[str, int], RunRecord | None, str]:
    """A judge run's or a meta-eval run directory's judgments, labels and record."""
    if path.is_dir():
        summary = path / SUMMARY
        judgments_path = path / "judgments.jsonl"
        if not judgments_path.is_file():
            raise FacetevalError(
                f"{path}: no judgments.jsonl: give a judge output or a meta-eval run directory"
            )
        record: RunRecord | None = read_record(summary, MetaEvalRecord) if summary.is_file() else None
    else:
        judgments_path = path.with_name(path.name.removesuffix(".run.json") + ".jsonl") if path.name.endswith(
            ".run.json"
        ) else path  # fmt: skip
        if not judgments_path.is_file():
            raise FacetevalError(f"{path}: no such judgments file")
        beside = record_path_for(judgments_path)
        record = read_record(beside, JudgeRecord) if beside.is_file() else None
    judged = judged_input(judgments_path)
    reading = recorded_reading(record if isinstance(record, JudgeRecord) else None)
    labels = _labels(InstanceFile(judged, reading=reading))
    return list(read_judgments(judgments_path)), labels, record, str(path)


def _benchmark(
    spec: str, judgments_spec: str, data_dir: Path
) -> tuple[list[Judgment], dict[str, int], RunRecord | None, str]:
    target = load_target(spec, data_dir)
    loaded = load_judgments(judgments_spec, target, data_dir, whole=True)
    record = None
    run_dir = Path(judgments_spec)
    if not judgments_spec.startswith("recorded:") and os.path.lexists(run_dir):
        beside = run_dir / SUMMARY if run_dir.is_dir() else record_path_for(run_dir)
        kind = MetaEvalRecord if run_dir.is_dir() else JudgeRecord
        record = read_record(beside, kind) if beside.is_file() else None
    return list(loaded.judgments), _labels(target.instances), record, f"{spec} ({loaded.name})"


def _labels(instances: Iterable[Instance | InputError]) -> dict[str, int]:
    """The human label of each labelled instance, by id (a bad line is skipped: it has no judgment)."""
    return {
        item.id: item.label for item in instances if isinstance(item, Instance) and item.label is not None
    }


def _file_labels(path: Path) -> dict[str, int]:
    """The pairwise labels of a labels file by id; those chosen by the judge's doubt are set aside
    (a guarantee needs a random sample), and said.

    Raises:
        InputError: The file is not a labels file (naming its line and field), or holds no usable label.
    """
    read = read_human_labels(path)
    labels = {id_: label.label for id_, label in read.items() if label.random and label.label is not None}
    if aside := sum(not label.random for label in read.values()):
        err_console.print(
            f"[yellow]{plural(aside, 'label')} chosen where the judge was least sure set aside:[/] a "
            "guarantee holds for a random sample of labelled verdicts"
        )
    if not labels:
        raise InputError(str(path), None, "label", "no pairwise label drawn at random in it")
    return labels


def with_confidences(judgments: list[Judgment]) -> list[Judgment]:
    """The judgments, each ok one without a confidence given the signals' (its margin on the run's
    score range), as meta-evaluation measures them."""
    inputs = ConfidenceInputs(scale=run_scale(judgments))
    made = []
    for judgment in judgments:
        if judgment.status == "ok" and judgment.confidence is None:
            value = confidence(judgment, inputs)
            judgment = judgment.model_copy(
                update={"confidence": value, "confidence_estimator": SIGNALS if value is not None else None}
            )
        made.append(judgment)
    return made


def _inputs(source: str) -> list[Path]:
    path = Path(source)
    return [path] if path.is_file() else []


def _show(calibration: CalibratedThreshold, out: Path) -> None:
    if calibration.threshold is None:
        err_console.print(f"[bold yellow]{escape(calibration.guarantee())}[/].")
        if calibration.tests:
            first = calibration.tests[0]
            err_console.print(
                f"The most confident {plural(int(str(first['kept'])), 'verdict')} agree at a lower bound of "
                f"{float(str(first['lower_bound'])):.1%}: more labelled verdicts, a lower target or a larger "
                "delta let a threshold pass."
            )
    else:
        err_console.print(escape(calibration.guarantee()) + ".")
        err_console.print(
            f"threshold {calibration.threshold:.4g}: keeps {calibration.kept:,} of {calibration.data.n:,} "
            f"({calibration.coverage:.1%}), agreement {calibration.agreement or 0:.1%}, lower bound "
            f"{calibration.lower_bound:.1%}"
        )
    err_console.print(f"Written to {escape(str(out))}")
