"""``faceteval judge``: parse flags, build the method and LLM, call the library, show the results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from faceteval._cli._app import handle_errors
from faceteval._cli._cascade import cascade_specs, run_cascade, show_cascade
from faceteval._cli._choices import NamedChoice
from faceteval._cli._confidence import confidence_options
from faceteval._cli._console import err_console, escape
from faceteval._cli._display import show_invalid, show_plan, show_summary
from faceteval._cli._failures import FAILURES_EXIT, max_failures_option, too_many_failures
from faceteval._cli._inputs import as_usage_error, group_by_option, input_options, input_reading, input_source
from faceteval._cli._method_options import (
    add_method_options,
    build_method,
    check_method_flags,
    method_params,
)
from faceteval._cli._numbers import delta_option, target_agreement_option
from faceteval._cli._options import build_job, engine_options, force_option, scoring_options
from faceteval._cli._panel import panel_flags
from faceteval._cli._results import (
    FAIL_UNDER_EXIT,
    below_thresholds,
    check_before_run,
    fail_under_option,
    show_result,
    systems_option,
)
from faceteval._cli._run import run_judge
from faceteval._runner import ORDERS, JudgeJob, JudgeSpec, check_keys
from faceteval.methods import DEFAULT_METHOD, method_names, method_spec
from faceteval.results import JudgeResult


@click.command()
@click.argument("input_path", metavar="INPUT", required=False, type=click.Path(path_type=Path))
@click.option(
    "--method",
    type=NamedChoice(method_names()),
    default=DEFAULT_METHOD,
    show_default=True,
    help="How to judge.",
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Judgments JSONL (default: stdout)."
)
@force_option
@click.option(
    "--order",
    type=click.Choice(ORDERS),
    default="input",
    show_default=True,
    help="How judgments are written: in input order (those finished before their turn wait in a "
    "temporary file, so a slow instance holds back the output, not the work), or as they finish.",
)
@click.option(
    "--strict", is_flag=True, help="Check the whole input first; stop before any call if a line is bad."
)
@click.option(
    "--limit", type=click.IntRange(1), metavar="N", help="Judge only the input's first N instances."
)
@click.option(
    "--sample",
    type=click.IntRange(1),
    metavar="N",
    help="Judge a random sample of N instances (seeded by --seed, 0 without; the same on a re-run), "
    "in input order.",
)
@click.option(
    "--calibration",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A threshold made by `faceteval calibrate` for this judge: verdicts less confident than it are "
    "marked abstained (never guessed), and the result states the agreement it guarantees.",
)
@click.option(
    "--human-labels",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Human labels by id (JSONL of {id, label} or {id, scores}, as `review export --labels` writes) in "
    "place of the instances' own: the result adds the win rates humans would give, prediction-powered.",
)
@click.option(
    "--cascade",
    metavar="MODEL,MODEL[,...]",
    help="Judges in turn, cheapest first (MODEL@URL for its own endpoint): each keeps the verdicts at or "
    "above its threshold calibrated on --calibration-set; only what it abstains on goes to the next.",
)
@click.option(
    "--calibration-set",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --cascade: labelled instances (a `label` each) every judge is calibrated on.",
)
@target_agreement_option("With --cascade: the agreement with humans each judge's kept verdicts must reach.")
@delta_option("With --cascade: the chance allowed, per judge, that its guarantee fails.")
@input_options()
@systems_option
@group_by_option("the result adds each group's win rates (or mean scores) per system.")
@fail_under_option
@max_failures_option
@engine_options(panel=True)
@scoring_options
@confidence_options
@click.pass_context
@handle_errors
def judge(ctx: click.Context, /, **flags: Any) -> None:
    """Judge the instances in INPUT and write one judgment per line.

    INPUT is canonical JSONL, or any JSONL, JSON, CSV, TSV or Parquet file read with --field / --preset
    (common column names are found without: prompt, output_1/output_2, output_a/output_b, winner...);
    --hf-dataset reads a Hugging Face dataset instead (docs/inputs.md).

    \b
    Examples:
      faceteval judge pairs.jsonl --method dna --model openai:gpt-4o-mini --out judgments.jsonl
      faceteval judge pairs.jsonl --model openai:judge --base-url http://127.0.0.1:8000/v1 --out j.jsonl
      faceteval judge pairs.jsonl --model ollama:qwen2.5:7b --aspects 5 --swap --out j.jsonl
      faceteval judge pairs.jsonl --criteria criteria.yaml --aggregate mean --model ... --out j.jsonl
      faceteval judge pairs.jsonl --method cot --model openai:gpt-4o --dry-run
      faceteval judge pairs.jsonl --model openai:gpt-4o --model anthropic:claude-sonnet-4-5 \\
          --model openai:qwen@http://127.0.0.1:8000/v1 --panel-vote majority --out j.jsonl
      faceteval judge pairs.jsonl --method fennec --criteria-count 5 --swap --model openai:gpt-4o --out j
      faceteval judge outputs.jsonl --method fennec --single --model openai:gpt-4o --out s.jsonl
      faceteval judge pairs.jsonl --systems base,tuned --fail-under win_rate:tuned=0.5 --model ... --out j
      faceteval judge pairs.csv --field query=prompt --field candidates=output_a,output_b --model ... --out j
      faceteval judge annotations.json --preset alpacaeval --model ... --out j.jsonl
      faceteval judge --hf-dataset ./arena --split train --preset chatbot-arena --model ... --out j.jsonl

    The result (win rates with CIs per system and position, a Bradley-Terry ranking of 3+ systems,
    swap consistency, the facets that decided the verdicts; mean scores of single outputs) is printed
    at the end. When some instances carry a human label (or --human-labels gives them), it adds the
    prediction-powered win rates (or means) with their intervals, and the human-only ones.

    \b
    Exit status:
      0  every judgment ok (or abstained), or no more failed than --max-failures allows
      1  no instance was judged, or an error stopped the run
      2  a usage error
      3  the result is below a --fail-under threshold
      4  a --batch files round waits for a cluster
      5  --batch gave up on requests no batch answered (written as error judgments)
      6  more judgments failed (parse_error, error) than --max-failures allows (default: none)
      130  interrupted

    OUT and its run record (OUT.run.json) are put in place when the run ends, however it ends: a
    crash leaves the earlier ones as they were. Re-running an interrupted command finishes the rest
    from the response cache; with --no-cache, it reuses the ok judgments of the earlier OUT.
    """
    if (specs := cascade_specs(ctx, flags)) is not None:
        _judge_by_cascade(ctx, flags, specs)
        return
    job = job_of_flags(ctx, flags)
    check_before_run(flags)
    with as_usage_error():
        check_keys(job)
    result = run_judge(job, on_invalid=show_invalid)
    if job.dry_run:
        show_plan(job, result)
    else:
        show_summary(job, result)
        if result.result is not None and result.result.judgments:
            show_result(result.result)
    if result.stopped is not None:
        raise result.stopped
    if result.interrupted:
        ctx.exit(130)
    if result.batch is not None and (incomplete := result.batch.incomplete()) is not None:
        raise incomplete  # the judgments are written, those that needed them as errors
    if job.dry_run and (result.stats.unjudgeable or result.stats.invalid or not result.stats.judged):
        ctx.exit(1)  # the plan is of a run that would not judge everything
    if not job.dry_run and not result.stats.statuses.get("ok") and not result.stats.statuses.get("abstained"):
        if result.stats.judged:
            err_console.print("[bold red]error:[/] no instance was judged; see the failures above")
        else:
            where = escape(str(job.input_path))
            err_console.print(f"[bold red]error:[/] {where} holds no instance to judge")
        ctx.exit(1)
    if not job.dry_run:  # a plan's judgments are "planned", not failed
        _exit_on_failures(ctx, flags, result.stats.statuses, result.result)


add_method_options(judge, after="force", sweeps=False)


def _judge_by_cascade(ctx: click.Context, flags: dict[str, Any], specs: list[JudgeSpec]) -> None:
    """``judge --cascade``: the cascade run, its stages and result shown, the exit status set."""
    job = job_of_flags(ctx, flags | {"model": (specs[0].model,), "base_url": specs[0].base_url})
    check_before_run(flags)
    cascaded, computed = run_cascade(job, specs, flags)
    show_cascade(cascaded, computed, job.outputs.out)
    if not computed.statuses.get("ok") and not computed.statuses.get("abstained"):
        err_console.print("[bold red]error:[/] no instance was judged; see the failures above")
        ctx.exit(1)
    _exit_on_failures(ctx, flags, computed.statuses, computed)


def _exit_on_failures(
    ctx: click.Context, flags: dict[str, Any], statuses: Mapping[str, int], result: JudgeResult | None
) -> None:
    """Exit with `FAILURES_EXIT` when more judgments failed than ``--max-failures`` allows, else with
    `FAIL_UNDER_EXIT` when the result is below a ``--fail-under`` threshold (both are said)."""
    failing = too_many_failures(statuses, flags["max_failures"])
    below = bool(flags["fail_under"]) and result is not None and below_thresholds(flags["fail_under"], result)
    if failing:
        ctx.exit(FAILURES_EXIT)
    if below:
        ctx.exit(FAIL_UNDER_EXIT)


def job_of_flags(ctx: click.Context, flags: dict[str, Any]) -> JudgeJob:
    """The job the ``judge`` command's flags ask for (what it runs)."""
    check_method_flags(ctx, flags["method"])
    spec = method_spec(flags["method"])
    method = build_method(spec, method_params(ctx, spec), flags["criteria_path"])
    flags = panel_flags(ctx, flags)
    source = input_source(flags, "input_path")
    reading = input_reading(flags)
    if flags["limit"] is not None and flags["sample"] is not None:
        raise click.UsageError("--limit takes the first instances and --sample a random few: give one")
    job = build_job(
        flags,
        input_path=source,
        out=flags["out"],
        method=method,
        strict=flags["strict"],
        systems=flags["systems"],
        reading=reading,
    )
    sampled = flags["sample"] is not None  # --seed is the provider's too: the sample's only with --sample
    subset = {
        "limit": flags["limit"],
        "sample": flags["sample"],
        "sample_seed": (flags["seed"] or 0) if sampled else 0,
    }
    return replace(job, options=replace(job.options, **subset, group_by=flags["group_by"]))


def job_from_cli(args: Sequence[str]) -> JudgeJob:
    """The job ``faceteval judge ARGS`` runs, its flags parsed as the command parses them, without
    running it (nothing is opened; ``--hf-dataset`` is staged as the command stages it).

    Raises:
        click.UsageError: Flags the command refuses.
    """
    with judge.make_context("judge", list(args)) as ctx:
        return job_of_flags(ctx, dict(ctx.params))


__all__ = ["err_console", "job_from_cli", "judge"]
