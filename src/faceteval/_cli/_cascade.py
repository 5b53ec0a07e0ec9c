"""``faceteval judge --cascade``: judges in turn, each trusted only above its calibrated threshold."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import click
from rich.table import Table

from faceteval._cli._console import err_console, escape, json_lines_out
from faceteval._cli._panel import split_endpoint
from faceteval._cli._results import show_result
from faceteval._runner import (
    CascadeResult,
    JobHooks,
    JudgeJob,
    JudgeSpec,
    cascade_async,
    file_instances,
    human_labels_of,
    open_judges,
    selected,
)
from faceteval.core import Instance, Usage
from faceteval.datasets import InstanceFile
from faceteval.datasets.internal import measure_input
from faceteval.errors import FacetevalError, InputError
from faceteval.llm import LLM
from faceteval.results import JudgeResult, ResultOptions, compute_result
from faceteval.store import (
    InputFile,
    JudgeRecord,
    JudgeSummary,
    LLMRecord,
    MethodRecord,
    SpendRecord,
    record_path_for,
)
from faceteval.store.internal import JUDGMENTS, RUN_RECORD, check_outputs, write_atomic


def cascade_specs(ctx: click.Context, flags: dict[str, Any]) -> list[JudgeSpec] | None:
    """The judges ``--cascade`` names, each a spec with its endpoint; None without ``--cascade``.

    Raises:
        click.UsageError: Flags that do not go with a cascade, or a cascade's own missing.
    """
    if not flags.get("cascade"):
        for name in ("calibration_set", "target_agreement"):
            if flags.get(name) is not None:
                raise click.UsageError(f"--{name.replace('_', '-')} goes with --cascade")
        return None
    if ctx.get_parameter_source("model") is click.core.ParameterSource.COMMANDLINE or flags.get("panel"):
        raise click.UsageError("--cascade names the judges: give no --model or --panel with it")
    for name in ("calibration", "dry_run"):
        if flags.get(name):
            raise click.UsageError(f"--{name.replace('_', '-')} does not go with --cascade")
    if flags.get("calibration_set") is None or flags.get("target_agreement") is None:
        raise click.UsageError("--cascade needs --calibration-set FILE (labelled) and --target-agreement A")
    models = [part.strip() for part in str(flags["cascade"]).split(",") if part.strip()]
    if not models:
        raise click.UsageError("--cascade names one judge at least: MODEL[,MODEL...]")
    specs = []
    for model in models:
        spec, endpoint = split_endpoint(model)
        specs.append((spec, endpoint or flags.get("base_url")))
    if len(set(specs)) < len(specs):
        raise click.UsageError(f"a cascade names each judge once, got {', '.join(models)}")
    return [JudgeSpec(spec, base_url) for spec, base_url in specs]


def run_cascade(
    job: JudgeJob, specs: list[JudgeSpec], flags: dict[str, Any]
) -> tuple[CascadeResult, JudgeResult]:
    """Run the cascade of ``specs`` over ``job``'s input, writing its output and run record."""
    source = file_instances(job.instances)
    assert source is not None
    assert isinstance(job.judge, JudgeSpec)
    out = job.outputs.out
    calibration_path = Path(flags["calibration_set"])
    if out is not None:
        check_outputs(
            [(out, JUDGMENTS), (record_path_for(out), RUN_RECORD)], given=out,
            inputs=[source.path, calibration_path], cache=job.outputs.cache, force=job.outputs.force,
        )  # fmt: skip
    items = list(selected(source.read(), job.options))
    calibration_set = _calibration_set(calibration_path)
    started, clock = datetime.now(UTC), time.monotonic()
    with ExitStack() as stack:
        named = [replace(job.judge, model=spec.model, base_url=spec.base_url) for spec in specs]
        judges = open_judges(named, job, JobHooks(), stack)
        work = partial(
            cascade_async, items, calibration_set, job.method, judges,
            target_agreement=flags["target_agreement"], delta=flags["delta"], options=job.options,
            mode=job.mode, source=str(calibration_path),
        )  # fmt: skip
        result = anyio.run(_closing, judges, work)
    judged = [item for item in items if isinstance(item, Instance)]
    grouped = ResultOptions(group_by=job.options.group_by)
    computed = compute_result(result.judgments, judged, labels=human_labels_of(job.options), options=grouped)
    lines = "".join(judgment.model_dump_json() + "\n" for judgment in result.judgments)
    if out is None:
        json_lines_out(sys.stdout).write(lines)
        return result, computed
    record = _record(job, result, computed, calibration_path, started, time.monotonic() - clock)
    write_atomic(out, lines)
    write_atomic(record_path_for(out), record.to_json())
    return result, computed


def show_cascade(result: CascadeResult, computed: JudgeResult, out: Path | None) -> None:
    """The stages (threshold, decided, abstained, calls, cost), the guarantee, then the result."""
    table = Table(title="Cascade", title_justify="left")
    for column in (
        "judge",
        "threshold",
        "calibration kept",
        "judged",
        "decided",
        "passed on",
        "calls",
        "cost",
    ):
        table.add_column(column, justify="left" if column == "judge" else "right")
    for stage in result.stages:
        threshold = "none" if stage.calibration.threshold is None else f"{stage.calibration.threshold:.4g}"
        table.add_row(
            escape(stage.judge), threshold, f"{stage.calibration.kept:,} of {stage.calibration_judged:,}",
            f"{stage.judged:,}", f"{stage.decided:,}", f"{stage.abstained:,}", f"{stage.usage.calls:,}",
            f"${stage.usage.cost_usd:.4f}" if stage.usage.cost_usd is not None else "unknown",
        )  # fmt: skip
    err_console.print(table)
    abstained = sum(j.status == "abstained" for j in result.judgments)
    err_console.print(
        f"{result.decided:,} of {len(result.judgments):,} decided, {abstained:,} abstained. Guarantee: each "
        f"judge's kept verdicts agree with humans at least {result.target_agreement:.0%} of the time, with "
        f"probability >= {1 - result.delta:.0%} per judge (its threshold calibrated on the calibration "
        "instances no earlier judge decided)."
    )
    if out is not None:
        err_console.print(f"Written to {escape(str(out))} (run record: {escape(str(record_path_for(out)))})")
    if computed.judgments:
        show_result(computed)


async def _closing(judges: list[LLM], work: Callable[[], Awaitable[CascadeResult]]) -> CascadeResult:
    """``work``'s result, the judges' connections closed after it in the same event loop."""
    try:
        return await work()
    finally:
        for judge in judges:
            await judge.aclose()


def _calibration_set(path: Path) -> list[Instance]:
    """The labelled instances of ``path``; a bad line stops the run (a calibration needs them whole)."""
    found = []
    for item in InstanceFile(path):
        if isinstance(item, InputError):
            raise item
        found.append(item)
    if not found:
        raise FacetevalError(f"{path}: no instance in it to calibrate on")
    return found


def _record(
    job: JudgeJob,
    result: CascadeResult,
    computed: JudgeResult,
    calibration: Path,
    started: datetime,
    elapsed: float,
) -> JudgeRecord:
    source = file_instances(job.instances)
    assert source is not None
    inputs = {name: _input(path) for name, path in (("input", source.path), ("calibration_set", calibration))}
    usage = sum((stage.usage for stage in result.stages), Usage())
    return JudgeRecord(
        started_at=started.isoformat(timespec="seconds"),
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        inputs=inputs,
        output=str(job.outputs.out),
        method=MethodRecord.of(job.method.describe()),
        llm=LLMRecord(model="cascade: " + ", ".join(stage.judge for stage in result.stages)),
        options={"swap": job.options.swap, "cascade": result.as_dict()},
        summary=JudgeSummary(judgments=dict(computed.statuses), result=computed),
    ).model_copy(update={"spend": _spend(usage, elapsed)})


def _input(path: Path) -> InputFile:
    return InputFile(path=str(path), absolute=os.path.abspath(path), sha256=measure_input(path)[1])


def _spend(usage: Usage, elapsed: float) -> SpendRecord:
    return SpendRecord(
        calls=usage.calls, cached=usage.cached_calls, input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens, cost_usd=usage.cost_usd, seconds=round(elapsed, 3),
    )  # fmt: skip
