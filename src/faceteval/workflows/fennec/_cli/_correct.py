"""``faceteval correct``: rewrite the responses Fennec judged below a threshold (Fennec correction)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from faceteval._cli.kit import (
    Console,
    FiniteFloat,
    JudgeJob,
    batch_first,
    build_job,
    engine_options,
    escape,
    force_option,
    handle_errors,
    interrupted_note,
    judge_named,
    open_llm,
    progress_bar,
    run_until_stopped,
    show_failures,
    usage_rows,
)
from faceteval._runner import BatchDone, Started, templates_of
from faceteval._util.text import plural
from faceteval.datasets.internal import judged_input
from faceteval.methods.fennec import Fennec
from faceteval.workflows.fennec._correct import (
    DEFAULT_THRESHOLD,
    CorrectionStats,
    CorrectOptions,
    correct_each,
)
from faceteval.workflows.fennec._correct_run import CorrectJob, CorrectRun, correct_file
from faceteval.workflows.fennec._correctable import Correctable, load_correctable
from faceteval.workflows.fennec._rejudge import Improvement

console = Console(highlight=False, soft_wrap=True, emoji=False)

CORRECT_EXCLUDED = ("--criteria", "--swap", "--dry-run")
"""Engine flags that do not apply: criteria, guidelines and weights are the judgments' own, and
re-judging always judges both orders (the methods' own flags are judge's and meta-eval's only)."""


@click.command()
@click.argument(
    "judgments_path", metavar="JUDGMENTS", type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--threshold",
    type=FiniteFloat(1.0, 5.0),
    default=DEFAULT_THRESHOLD,
    show_default=True,
    help="Rewrite responses whose mean criterion score (1-5) is below this.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Corrections JSONL: one line per response, kept or corrected.",
)
@click.option(
    "--rejudge",
    is_flag=True,
    help="Judge each correction against its original (fennec pairwise, both orders, the same criteria "
    "and guidelines) and show the gain.",
)
@click.option(
    "--input",
    "input_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The judged instances (default: the input named in the judgments' run record).",
)
@force_option
@engine_options(exclude=CORRECT_EXCLUDED)
@click.pass_context
@handle_errors
def correct(ctx: click.Context, /, **flags: Any) -> None:
    """Rewrite every response of fennec JUDGMENTS scored below --threshold, from its own judgments.

    A response's score is the mean of its per-criterion scores on the 1-5 scale (weighted when the
    judgments have weights), not the summed overall score. Each response below the threshold is sent
    with its query and, per criterion, its score and explanation to Fennec's correction prompt; the
    others are written as kept. Failed judgments are skipped and counted (the exit status is 1 when
    none succeeded).

    Writes one line per response of every ok judgment to OUT, and a run record beside it
    (corrected.jsonl: corrected.run.json). With --rejudge, each correction is judged against its
    original and the mean gain is shown (cf. the paper's Table 4). Re-running an interrupted command
    finishes the rest from the response cache.

    \b
    Examples:
      faceteval judge pairs.jsonl --method fennec --model openai:gpt-4o-mini --out j.jsonl
      faceteval correct j.jsonl --threshold 3 --model openai:gpt-4o-mini --out corrected.jsonl --rejudge
      faceteval correct runs/x/judgments.jsonl --input pairs.jsonl --model ollama:qwen2.5:7b --out c.jsonl
    """
    judgments_path: Path = flags["judgments_path"]
    engine = flags | {"swap": True, "dry_run": False}
    request = build_job(engine, input_path=judgments_path, out=flags["out"], method=Fennec())
    input_path = judged_input(judgments_path, flags["input_path"])
    items = load_correctable(judgments_path, input_path)
    options = CorrectOptions(
        threshold=flags["threshold"],
        rejudge=flags["rejudge"],
        trace=flags["trace"],
        templates=templates_of(request.options),
        prefix_cache=request.options.prefix_cache,
    )
    run = run_correct(request, items, options, judgments_path=judgments_path, input_path=input_path)
    show_summary(request, options, run)
    if options.rejudge and run.stats.improvement().responses:
        show_improvement(run.stats)
    elif options.rejudge:
        console.print("No correction was re-judged, so there is no gain to show.")
    if run.stopped is not None:
        raise run.stopped
    if run.interrupted:
        ctx.exit(130)
    if run.stats.judgments == 0:
        console.print(
            f"[red]No judgment in {escape(str(judgments_path))} succeeded: there was nothing to correct.[/]"
        )
        ctx.exit(1)
    if run.kept:
        console.print("[bold red]error:[/] no correction succeeded; see the failures above")
        ctx.exit(1)


def run_correct(
    request: JudgeJob,
    items: list[Correctable],
    options: CorrectOptions,
    *,
    judgments_path: Path,
    input_path: Path,
) -> CorrectRun:
    """Correct ``items`` into ``request.outputs.out``; Ctrl-C stops cleanly with everything so far kept."""
    assert request.outputs.out is not None
    job = CorrectJob.check(
        judgments_path,
        input_path,
        request.outputs.out,
        cache=request.outputs.cache,
        force=request.outputs.force,
    )
    responses = sum(i.instance.n_candidates for i in items if i.judgment.status == "ok" and i.instance)
    run = CorrectRun(responses=responses, judgments=len(items))
    started = Started.now()
    with ExitStack() as stack:
        llm = open_llm(request, stack, batched=True)
        progress = stack.enter_context(progress_bar(request))
        task = progress.add_task("correcting", total=responses or None)
        correcting = partial(
            correct_file, job, items, llm, options=options, run=run,
            corrected=lambda _: progress.advance(task), started=started,
        )  # fmt: skip
        collect = lambda window: correct_each(items, llm, options=replace(options, window=window))  # noqa: E731

        def told(done: BatchDone) -> None:
            run.batch = done

        batched = batch_first(request, llm, progress, collect, correcting, told=told)
        run_until_stopped(run, llm.closing_after, batched)
    return run


def show_summary(request: JudgeJob, options: CorrectOptions, run: CorrectRun) -> None:
    """What the run did: responses by outcome, skipped judgments, calls, tokens, cost, where it is written."""
    stats = run.stats
    if run.interrupted:
        console.print(interrupted_note(request))
    table = Table.grid(padding=(0, 2))
    table.add_row(
        "responses",
        f"{stats.responses:,} of {run.responses:,} done, from {stats.judgments:,} of "
        f"{plural(run.judgments, 'judgment')}; {plural(stats.skipped, 'failed judgment')} skipped",
    )
    table.add_row(
        f"below {options.threshold:g}",
        f"{stats.below:,}: {stats.statuses.get('corrected', 0):,} corrected, "
        f"{plural(stats.statuses.get('parse_error', 0), 'parse error')}, "
        f"{plural(stats.statuses.get('error', 0), 'error')}",
    )
    table.add_row("kept", f"{stats.statuses.get('kept', 0):,}")
    if options.rejudge:
        failed = sum(n for status, n in stats.rejudged.items() if status != "ok")
        table.add_row("re-judged", f"{stats.rejudged.get('ok', 0):,} ({failed:,} failed)")
    usage_rows(table, judge_named(request), run.spent)
    table.add_row("time", f"{run.elapsed:,.1f} s")
    record = f" (run record: {run.record_path})" if run.record_path else ""
    if run.kept:
        table.add_row(
            "written", escape(f"nothing: no correction succeeded; {request.outputs.out} is left as it was")
        )
    else:
        table.add_row("written", escape(f"{request.outputs.out}{record}"))
    console.print(table)
    show_failures(stats.errors, stats.examples, console)


def show_improvement(stats: CorrectionStats) -> None:
    """The gain of the corrections, re-judged against their originals (cf. the paper's Table 4)."""
    gain = stats.improvement()
    table = Table(
        title="Correction gain: mean criterion score (1-5), fennec pairwise re-judging in both orders",
        title_justify="left",
        caption="W/T/L: corrections judged better / tied (or orders disagreeing) / worse than the original.",
        caption_justify="left",
    )
    for column in ("corrected", "re-judged", "before", "after", "Impr", "95% CI", "W/T/L"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_row(
        f"{stats.statuses.get('corrected', 0):,}",
        f"{gain.responses:,}",
        _number(gain.before),
        _number(gain.after),
        _signed(gain.gain),
        _interval(gain),
        f"{gain.wins:,}/{gain.ties:,}/{gain.losses:,}",
    )
    console.print(table)


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.2f}"


def _interval(gain: Improvement) -> str:
    return "n/a" if gain.ci is None else f"[{gain.ci[0]:.2f}, {gain.ci[1]:.2f}]"
