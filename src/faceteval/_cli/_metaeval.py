"""``faceteval meta-eval``: measure a judge (a method run now, or recorded judgments) against humans."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from faceteval._cli._app import handle_errors
from faceteval._cli._choices import NamedChoice
from faceteval._cli._console import err_console, escape
from faceteval._cli._display import show_invalid, show_plan, show_summary
from faceteval._cli._metaeval_display import show_results
from faceteval._cli._method_options import (
    add_method_options,
    build_method,
    check_method_flags,
    method_params,
)
from faceteval._cli._options import build_request, data_dir_option, engine_options, force_option
from faceteval._cli._run import run_judge
from faceteval._cli._sweeps import SWEEP_KEY, Variant, combine, runs_of
from faceteval._util.text import plural
from faceteval.datasets import parse_field_options, read_judgments
from faceteval.errors import FacetevalError
from faceteval.llm import ModelSpec
from faceteval.metaeval import (
    INSTANCES,
    JUDGMENTS,
    RECORDED,
    SUMMARY,
    Settings,
    Target,
    load_human_weights,
    load_judgments,
    load_target,
    measure,
    run_files,
    select,
    write_instances,
    write_summary,
)
from faceteval.methods import method_names, method_spec
from faceteval.report import write_report
from faceteval.store import check_outputs, record_path_for, same_file


@click.command("meta-eval")
@click.argument("target_spec", metavar="BENCHMARK|FILE")
@click.option(
    "--judgments",
    "judgments_spec",
    metavar="SOURCE",
    help="Judgments to measure: recorded:<name> (see `faceteval datasets list -v`), a judgments JSONL, "
    "or a run directory.",
)
@click.option(
    "--method", type=NamedChoice(method_names()), help="Judge now with this method (needs --model)."
)
@click.option(
    "--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Run directory to write."
)
@data_dir_option
@click.option("--limit", type=click.IntRange(1), help="A stratified sample of this many instances.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sample and the bootstrap.")
@click.option("--turn", type=click.IntRange(1), help="Only this turn (multi-turn benchmarks: MT-Bench).")
@click.option("--category", multiple=True, help="Only these categories (repeatable).")
@click.option(
    "--field",
    "fields",
    multiple=True,
    metavar="FIELD=COLUMN",
    help="For your own file: where each field comes from, e.g. query=instruction, "
    "candidates=output_1,output_2, label=winner, scores.coherence=coh (repeatable).",
)
@click.option(
    "--label-map", metavar="VALUE=LABEL,...", help="For your own file: e.g. model_a=1,model_b=2,tie=0."
)
@click.option(
    "--human-weights",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="People's weightings of the judge's facets (JSONL: id, annotator, weights): how close the "
    "judge's weight rankings are to theirs (top-k Kendall distance).",
)
@click.option(
    "--seeds",
    metavar="S[,S...]",
    help="Repeat the run once per provider seed (significance over repeated runs).",
)
@click.option(
    "--resamples",
    type=click.IntRange(0),
    default=1000,
    show_default=True,
    help="Bootstrap resamples behind each 95% CI (0: none).",
)
@click.option(
    "--report/--no-report", default=True, show_default=True, help="Write report.md and report.html."
)
@force_option
@engine_options(exclude=("--seed",))
@click.pass_context
@handle_errors
def meta_eval(ctx: click.Context, /, **flags: Any) -> None:
    """Measure a judge against the human labels of BENCHMARK (or of your labelled FILE).

    \b
    Examples:
      faceteval meta-eval llmbar-adversarial --method dna --model openai:gpt-4o --swap --out runs/dna
      faceteval meta-eval autoj-pairwise --method fennec --swap --model openai:gpt-4o --out runs/fennec
      faceteval meta-eval autoj-pairwise --judgments recorded:auto-j-13b --out runs/autoj
      faceteval meta-eval mtbench-human --judgments recorded:gpt4-pair --turn 1 --out runs/mtb
      faceteval meta-eval llmbar-natural --judgments recorded:llmbar/GPT-4/Vanilla --out runs/nat
      faceteval meta-eval my_labels.jsonl --judgments runs/dna/judgments.jsonl --out runs/x

    Writes OUT/summary.json, OUT/judgments.jsonl, OUT/instances.jsonl, OUT/report.md, OUT/report.html.
    A run with --method is resumable: re-running it finishes from the response cache.
    """
    if bool(flags["judgments_spec"]) == bool(flags["method"]):
        raise click.UsageError("give either --judgments SOURCE or --method METHOD")
    if flags["judgments_spec"]:
        _check_measure_flags(ctx)
    out: Path = flags["out"]
    _check_inputs_kept(out, flags["target_spec"], flags["judgments_spec"])
    if not flags["dry_run"]:  # a dry run writes nothing
        run_dirs = [out, *(out / v.name for v in runs_of(ctx, flags) if v.name)] if flags["method"] else [out]
        check_outputs([f for d in run_dirs for f in run_files(d)], given=out, force=flags["force"])
    fields = (
        parse_field_options(list(flags["fields"]), label_map=flags["label_map"])
        if flags["fields"] or flags["label_map"]
        else None
    )
    target = load_target(flags["target_spec"], flags["data_dir"], fields=fields)
    if fields is not None and target.benchmark is not None:
        raise click.UsageError(
            f"--field and --label-map describe your own file; {target.name} is a built-in benchmark"
        )
    instances = select(
        target.instances,
        limit=flags["limit"],
        seed=flags["seed"],
        turn=flags["turn"],
        categories=flags["category"],
        group_by=target.group_by,
    )
    if not instances:
        raise FacetevalError(f"{target.name}: nothing to measure after --turn / --category / --limit")
    settings = Settings(resamples=flags["resamples"], seed=flags["seed"])
    human_weights = load_human_weights(flags["human_weights"]) if flags["human_weights"] else ()
    flags["human_weights"] = human_weights
    if flags["judgments_spec"]:
        source = load_judgments(flags["judgments_spec"], target, flags["data_dir"])
        whole = len(instances) == len(target.instances)
        extra = {"reported": source.reported} if source.reported and whole else {}
        if source.reported and not whole:
            err_console.print(
                f"{escape(source.name)}'s published numbers are for all of {escape(target.name)}: "
                f"not shown beside these, measured on {len(instances):,} of its "
                f"{plural(len(target.instances), 'instance')} (--limit, --category, --turn)."
            )
        summary = measure(
            out,
            target,
            instances,
            source.judgments,
            judge=source.name,
            settings=settings,
            extra=extra,
            human_weights=human_weights,
            source=source.name,
        )
        if flags["report"]:
            write_report(out)
        show_results(summary, out, reports=flags["report"])
        return
    _run_method(ctx, flags, target, instances, settings)


def _run_method(
    ctx: click.Context, flags: dict[str, Any], target: Target, instances: list[Any], settings: Settings
) -> None:
    if target.benchmark is not None and not target.benchmark.texts:
        raise FacetevalError(
            f"{target.name} ships labels only, not the outputs' texts: measure recorded judgments with "
            "--judgments, or judge a benchmark that has the texts"
        )
    check_method_flags(ctx, flags["method"])
    spec = method_spec(flags["method"])
    variants = runs_of(ctx, flags)
    swept = spec.sweep[0].param if spec.sweep is not None else None
    params = method_params(ctx, spec, leave_out=[swept] if swept else [])
    out: Path = flags["out"]
    unjudgeable = 0
    summaries: list[tuple[Variant, dict[str, Any]]] = []
    for variant in variants:
        run_dir = out / variant.name if len(variants) > 1 else out
        counted = {swept: variant.count} if swept else {}
        method = build_method(spec, params | counted, flags["criteria_path"])
        request = build_request(
            flags | {"seed": variant.seed},
            input_path=run_dir / INSTANCES,
            out=run_dir / JUDGMENTS,
            method=method,
        )
        ModelSpec.parse(request.model)  # an unknown provider stops here, before anything is written
        if request.dry_run:  # the run directory is left as it is
            with tempfile.TemporaryDirectory() as scratch:
                planned = replace(request, input_path=write_instances(Path(scratch), instances))
                plan = run_judge(planned, on_invalid=show_invalid)
                show_plan(planned, plan, subject=_sample_name(flags["target_spec"], target, instances))
            unjudgeable += plan.stats.unjudgeable
            continue
        _forget_results(run_dir, out if len(variants) > 1 else None)
        write_instances(run_dir, instances)
        result = run_judge(request, on_invalid=show_invalid)
        show_summary(request, result)
        if result.stopped is not None:
            raise result.stopped
        if result.interrupted:
            ctx.exit(130)
        if not result.stats.statuses.get("ok"):  # nothing to measure: no summary of a run that did not judge
            err_console.print("[bold red]error:[/] no instance was judged; see the failures above")
            ctx.exit(1)
        judge = f"{method.name} ({flags['model']}{', swap' if flags['swap'] else ''})"
        judgments = list(read_judgments(run_dir / "judgments.jsonl"))
        extra = {
            "method": {**method.describe(), "model": flags["model"], "swap": flags["swap"]},
            "variant": {swept or SWEEP_KEY: variant.count, "seed": variant.seed},
        }
        summary = measure(
            run_dir,
            target,
            instances,
            judgments,
            judge=judge,
            settings=settings,
            extra=extra,
            in_place=True,
            human_weights=flags["human_weights"],
            source=str(run_dir / JUDGMENTS),
        )
        if flags["report"]:
            write_report(run_dir)
        summaries.append((variant, summary))
    if unjudgeable:  # a dry run that found instances the method cannot judge, as `judge --dry-run` does
        ctx.exit(1)
    if len(summaries) > 1:
        combined = combine(summaries)
        write_summary(out, combined)
        if flags["report"]:
            write_report(out)
        show_results(combined, out, reports=flags["report"])
    elif summaries:
        show_results(summaries[0][1], out, reports=flags["report"])


def _sample_name(target_spec: str, target: Target, instances: list[Any]) -> str:
    """What a run measures: ``llmbar-natural (10 of 100 instances)``, or the file given and its sample."""
    name = target.name if target.benchmark is not None else target_spec
    whole = len(target.instances)
    sample = (
        (f"all {plural(whole, 'instance')}" if whole > 1 else plural(whole, "instance"))
        if len(instances) == whole
        else f"{len(instances):,} of {plural(whole, 'instance')}"
    )
    return f"{name} ({sample})"


MEASURE_FLAGS = frozenset(
    {
        "target_spec",
        "judgments_spec",
        "out",
        "data_dir",
        "limit",
        "seed",
        "turn",
        "category",
        "fields",
        "label_map",
        "human_weights",
        "resamples",
        "report",
        "quiet",
        "force",
    }
)
"""The options that apply to recorded judgments (--judgments); the others judge with --method."""


RESULT_FILES = (SUMMARY, "report.md", "report.html")


def _check_measure_flags(ctx: click.Context) -> None:
    """A usage error for judging options given with --judgments (they would be silently unused)."""
    given = [
        param.opts[0]
        for param in ctx.command.params
        if param.name not in MEASURE_FLAGS
        and param.name is not None
        and ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE
    ]
    if given:
        raise click.UsageError(
            f"{', '.join(given)} judge{'s' if len(given) == 1 else ''} with --method; --judgments "
            "measures the given judgments as they are"
        )


def _check_inputs_kept(out: Path, target_spec: str, judgments_spec: str | None) -> None:
    """A usage error when the run directory's files would overwrite the benchmark file or the judgments."""
    inputs = [Path(target_spec)]
    if judgments_spec and not judgments_spec.startswith(RECORDED):
        inputs += [Path(judgments_spec), Path(judgments_spec) / JUDGMENTS]
    for written in (
        out / INSTANCES,
        out / JUDGMENTS,
        record_path_for(out / JUDGMENTS),
        *map(out.joinpath, RESULT_FILES),
    ):
        for given in inputs:
            if same_file(written, given):
                raise click.UsageError(
                    f"--out {out} would overwrite the input {given}; write the run to another directory"
                )


def _forget_results(run_dir: Path, sweep_dir: Path | None) -> None:
    """Remove the results of an earlier run here: until this one finishes, they would describe another."""
    for directory in (run_dir, sweep_dir):
        if directory is not None:
            for name in RESULT_FILES:
                (directory / name).unlink(missing_ok=True)


add_method_options(meta_eval, after="human_weights", sweeps=True)


__all__ = ["err_console", "meta_eval"]
