"""``faceteval meta-eval``: measure a judge (a method run now, or recorded judgments) against humans."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from faceteval._cli._app import handle_errors
from faceteval._cli._batch import batch_first
from faceteval._cli._cascade_options import NAMES as CASCADE_NAMES
from faceteval._cli._cascade_options import cascade_options, cascade_settings, check_cascade_flags
from faceteval._cli._choices import NamedChoice
from faceteval._cli._confidence import measured_confidence_options
from faceteval._cli._console import err_console, escape
from faceteval._cli._display import show_invalid, show_plan, show_summary
from faceteval._cli._failures import FAILURES_EXIT, max_failures_option, too_many_failures
from faceteval._cli._inputs import as_usage_error, group_by_option, input_options, input_reading, input_source
from faceteval._cli._metaeval_display import show_results
from faceteval._cli._method_options import (
    add_method_options,
    build_method,
    check_method_flags,
    method_params,
)
from faceteval._cli._options import (
    build_job,
    data_dir_option,
    engine_options,
    force_option,
    scoring_options,
)
from faceteval._cli._panel import panel_flags
from faceteval._cli._ppi_options import NAMES as PPI_NAMES
from faceteval._cli._ppi_options import check_ppi_flags, ppi_options, ppi_settings
from faceteval._cli._run import open_judge, progress_bar, run_until_stopped
from faceteval._cli._sweeps import runs_of
from faceteval._runner import (
    BatchDone,
    FileInstances,
    FileJob,
    JudgeJob,
    MetaEvalHooks,
    MetaEvalOptions,
    NothingJudged,
    RunContext,
    RunHooks,
    RunPlan,
    RunResult,
    check_judgeable,
    collect_runs,
    criteria_use,
    grouped_as,
    labelled_as,
    measure_source,
    measured_instances,
    run_meta_eval,
)
from faceteval._util.text import plural
from faceteval.core import SIGNALS
from faceteval.errors import FacetevalError
from faceteval.metaeval import Target, load_human_weights, load_target
from faceteval.metaeval.internal import (
    INSTANCES,
    JUDGMENTS,
    RESULT_FILES,
    SWEEP_KEY,
    measured_sources,
    run_files,
    source_files,
)
from faceteval.methods import method_names, method_spec
from faceteval.report import write_report
from faceteval.report.internal import summary_view
from faceteval.store import MetaEvalRecord, record_path_for
from faceteval.store.internal import check_outputs, same_file


@click.command("meta-eval")
@click.argument("target_spec", metavar="BENCHMARK|FILE", required=False)
@click.option(
    "--judgments",
    "judgments_spec",
    metavar="SOURCE",
    help="Judgments to measure: recorded:<name> (see `faceteval datasets list -v`), a judgments JSONL, "
    "or a run directory; several, comma-separated, are a judge panel (see --panel-vote).",
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
@input_options(what="your file")
@group_by_option(
    "correlations are also computed within each group, then averaged (the summary level), and a --limit "
    "sample keeps groups whole; in place of a benchmark's own."
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
@cascade_options
@ppi_options
@force_option
@max_failures_option
@engine_options(exclude=("--seed",), panel=True)
@scoring_options
@measured_confidence_options
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
      faceteval meta-eval llmbar-adversarial --panel-vote majority --out runs/panel \\
          --judgments recorded:llmbar/GPT-4/CoT,recorded:llmbar/ChatGPT/CoT,recorded:llmbar/LLaMA2/CoT
      faceteval meta-eval llmbar-natural --method direct --model openai:gpt-4o --model openai:gpt-4o-mini ...
      faceteval meta-eval llmbar-natural --cascade --target-agreement 0.9 --delta 0.1 --out runs/cas \\
          --judgments recorded:llmbar/ChatGPT/Vanilla,recorded:llmbar/GPT-4/Vanilla --confidence strategies
      faceteval meta-eval mtbench-human --judgments recorded:gpt4-pair --ppi-labels 50 --out runs/ppi
      faceteval meta-eval my_labels.jsonl --judgments runs/dna/judgments.jsonl --out runs/x
      faceteval meta-eval votes.csv --field label=winner --label-map a=1,b=2,tie=0 --method dna ...
      faceteval meta-eval --hf-dataset ./mtb --split human --preset mt-bench --method dna --model ...

    Writes OUT/summary.json, OUT/judgments.jsonl, OUT/instances.jsonl, OUT/report.md, OUT/report.html.
    A run with --method is resumable: re-running it finishes from the response cache.
    """
    flags["target_spec"] = str(input_source(flags, "target_spec", "BENCHMARK|FILE"))
    reading = input_reading(flags)
    if bool(flags["judgments_spec"]) == bool(flags["method"]):
        raise click.UsageError("give either --judgments SOURCE or --method METHOD")
    check_cascade_flags(ctx, flags)
    check_ppi_flags(ctx, flags)
    if flags["judgments_spec"]:
        _check_measure_flags(ctx)
    out: Path = flags["out"]
    _check_inputs_kept(out, flags["target_spec"], flags["judgments_spec"], flags["labels"])
    if not flags["dry_run"]:  # a dry run writes nothing
        run_dirs = [out, *(out / v.name for v in runs_of(ctx, flags) if v.name)] if flags["method"] else [out]
        check_outputs([f for d in run_dirs for f in run_files(d)], given=out, force=flags["force"])
    slim = bool(flags["judgments_spec"])  # measured only, not judged: no texts (but those grouped by)
    keep = [key for key in (flags["group_by"], flags["system_by"]) if key]
    target = load_target(flags["target_spec"], flags["data_dir"], reading=reading, slim=slim, keep=keep)
    if not reading.model_copy(update={"system_by": None}).plain and target.benchmark is not None:
        raise click.UsageError(
            f"--field, --label-map, --preset, --format and --id describe your own file; {target.name} is "
            "a built-in benchmark"
        )
    options = _options(flags)
    with as_usage_error():
        target = grouped_as(labelled_as(target, options), options)
    instances = measured_instances(target, options)
    if flags["judgments_spec"]:
        source, judges = measured_sources(
            flags["judgments_spec"],
            target,
            flags["data_dir"],
            vote=flags["panel_vote"],
            confidence=options.confidence,
            cascade=options.cascade is not None,
        )
        if source.reported and len(instances) < len(target.instances):
            err_console.print(
                f"{escape(source.name)}'s published numbers are for all of {escape(target.name)}: "
                f"not shown beside these, measured on {len(instances):,} of its "
                f"{plural(len(target.instances), 'instance')} (--limit, --category, --turn)."
            )
        unreported = replace(options, report=False)
        record = measure_source(target, instances, source, out, unreported, cascade=judges)
        # the report reads the run directory: the judgments measured go first
        del target, instances, source, judges
        if options.report:
            write_report(out)
        show_results(summary_view(record), out, reports=flags["report"])
        return
    _run_method(ctx, panel_flags(ctx, flags), target, instances, options)


def _options(flags: dict[str, Any]) -> MetaEvalOptions:
    """What the flags ask to measure, and how."""
    return MetaEvalOptions(
        limit=flags["limit"],
        seed=flags["seed"],
        turn=flags["turn"],
        categories=tuple(flags["category"]),
        resamples=flags["resamples"],
        human_weights=tuple(load_human_weights(flags["human_weights"])) if flags["human_weights"] else (),
        report=flags["report"],
        panel_vote=flags["panel_vote"],
        # a --method run's estimator is its judging's (build_job); a recorded one's is measured here
        confidence=flags["confidence"] if flags["judgments_spec"] else SIGNALS,
        cascade=cascade_settings(flags),
        judge_costs=flags["judge_costs"],
        ppi=ppi_settings(flags),
        labels=flags["labels"],
        group_by=flags["group_by"],
        system_by=flags["system_by"],
    )


@dataclass(slots=True)
class _Outcome:
    """How the runs ended, and the record of the run directory."""

    interrupted: bool = False
    stopped: FacetevalError | None = None
    record: MetaEvalRecord | None = None
    unjudgeable: int = 0
    """Instances a dry run found the method cannot judge as they are."""
    statuses: Counter[str] = field(default_factory=Counter)
    """The judgments of every run, by status."""


def _run_method(
    ctx: click.Context,
    flags: dict[str, Any],
    target: Target,
    instances: Sequence[Any],
    options: MetaEvalOptions,
) -> None:
    check_judgeable(target)
    check_method_flags(ctx, flags["method"])
    plans = _plans(ctx, flags)
    out: Path = flags["out"]
    # one LLM for every run: a run of another provider seed (--seeds) asks a copy with that seed
    engine = flags | {"seed": None}
    job = build_job(engine, input_path=out / INSTANCES, out=out / JUDGMENTS, method=plans[0].method)
    outcome = _Outcome()
    subject = _sample_name(flags["target_spec"], target, instances)
    hooks = MetaEvalHooks(
        judging=partial(_judging, job),
        judged=partial(_judged, job, outcome, subject, partial(_judged_with, target, instances)),
    )
    with ExitStack() as stack:
        llm = open_judge(job, stack, batched=True)
        context = RunContext(target, instances, llm, out, options, job.options, hooks, job.outputs.force)

        batches: list[BatchDone] = []

        async def run() -> None:
            done = replace(context, batch=batches[0]) if batches else context
            outcome.record = await run_meta_eval(done, plans)

        collect = partial(collect_runs, context, plans)
        batched = batch_first(job, llm, None, collect, run, told=batches.append, raise_incomplete=False)
        run_until_stopped(outcome, llm.closing_after, batched)
    incomplete = batches[0].incomplete() if batches else None  # --batch gave requests up: exit 5, after
    if isinstance(outcome.stopped, NothingJudged):  # nothing to measure: the failures were shown
        if incomplete is not None:
            raise incomplete
        err_console.print("[bold red]error:[/] no instance was judged; see the failures above")
        ctx.exit(1)
    if outcome.stopped is not None:
        raise outcome.stopped
    if outcome.interrupted:
        ctx.exit(130)
    if outcome.unjudgeable:  # a dry run found instances the method cannot judge, as `judge --dry-run` does
        ctx.exit(1)
    if outcome.record is not None:
        show_results(summary_view(outcome.record), out, reports=flags["report"])
    if incomplete is not None:
        raise incomplete
    if not job.dry_run and too_many_failures(outcome.statuses, flags["max_failures"]):
        ctx.exit(FAILURES_EXIT)


def _plans(ctx: click.Context, flags: dict[str, Any]) -> list[RunPlan]:
    """The method of each run the flags ask for: one per value of the swept option and per seed."""
    spec = method_spec(flags["method"])
    swept = spec.sweep[0].param if spec.sweep is not None else None
    params = method_params(ctx, spec, leave_out=[swept] if swept else [])
    plans = []
    for variant in runs_of(ctx, flags):
        counted = {swept: variant.count} if swept else {}
        method = build_method(spec, params | counted, flags["criteria_path"])
        plans.append(RunPlan(method, variant, swept or SWEEP_KEY))
    return plans


@contextmanager
def _judging(job: JudgeJob, plan: RunPlan, file: FileJob) -> Iterator[RunHooks]:
    """A run's progress bar, and what its judging shows."""
    with progress_bar(job) as progress:
        task = progress.add_task("judging", total=file.instances or None)
        yield RunHooks(judged=lambda _: progress.advance(task), invalid=show_invalid)


def _judged(
    job: JudgeJob,
    outcome: _Outcome,
    subject: str,
    judged_with: Callable[[RunPlan], str],
    plan: RunPlan,
    run_dir: Path,
    result: RunResult,
) -> None:
    """What a run's judging did, shown as ``judge`` shows it (a dry run: its plan, what it judges with)."""
    outputs = replace(job.outputs, out=run_dir / JUDGMENTS)
    shown = replace(job, method=plan.method, instances=FileInstances(run_dir / INSTANCES), outputs=outputs)
    if job.dry_run:
        show_plan(shown, result, subject=subject)
        err_console.print(judged_with(plan))
        outcome.unjudgeable += result.stats.unjudgeable
    else:
        show_summary(shown, result, kept=run_dir)
        outcome.statuses.update(result.stats.statuses)


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
        "preset",
        "input_format",
        "hf_dataset",
        "split",
        "id_fields",
        "system_by",
        "group_by",
        "human_weights",
        "resamples",
        "report",
        "panel_vote",
        *CASCADE_NAMES,
        *PPI_NAMES,
        "quiet",
        "force",
    }
)
"""The options that apply to recorded judgments (--judgments); the others judge with --method."""


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


def _judged_with(target: Target, instances: Sequence[Any], plan: RunPlan) -> str:
    """The criteria a run judges with and their source, and its templates (as its record will name them)."""
    use = criteria_use(plan.method, instances, benchmark=target.benchmark is not None)
    templates = ", ".join(name for name in plan.method.templates() if name != "common/reask")
    if use is None:
        return f"Templates: {escape(templates)}."
    source = _SOURCES.get(use["source"], use["source"])
    names = f": {escape(', '.join(use['names']))}" if use["names"] else ""
    return f"Criteria ({source}){names}. Templates: {escape(templates)}."


_SOURCES = {
    "benchmark": "the benchmark's predefined",
    "given": "given with --criteria",
    "instances": "the instances' own",
    "generated": "generated per query",
    "template": "named by the prompt template",
}
"""How a dry run names where the criteria come from (the record's ``options.criteria.source``)."""


def _sample_name(target_spec: str, target: Target, instances: Sequence[Any]) -> str:
    """What a run measures: ``llmbar-natural (10 of 100 instances)``, or the file given and its sample."""
    name = target.name if target.benchmark is not None else target_spec
    whole = len(target.instances)
    sample = (
        (f"all {plural(whole, 'instance')}" if whole > 1 else plural(whole, "instance"))
        if len(instances) == whole
        else f"{len(instances):,} of {plural(whole, 'instance')}"
    )
    return f"{name} ({sample})"


def _check_inputs_kept(out: Path, target_spec: str, judgments_spec: str | None, labels: Path | None) -> None:
    """A usage error when the run directory's files would overwrite the benchmark file, the judgments
    or the labels."""
    inputs = [Path(target_spec), *source_files(judgments_spec), *([labels] if labels else [])]
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


add_method_options(meta_eval, after="human_weights", sweeps=True)


__all__ = ["err_console", "meta_eval"]
