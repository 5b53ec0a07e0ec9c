"""``faceteval bridge``: Fennec's bridging of a benchmark's recorded judgments into training data."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

import click

from faceteval._cli.kit import (
    Console,
    JudgeJob,
    NamedChoice,
    batch_first,
    build_job,
    calls_line,
    data_dir_option,
    engine_options,
    err_console,
    escape,
    force_option,
    handle_errors,
    interrupted_note,
    open_llm,
    progress_bar,
    run_until_stopped,
)
from faceteval._runner import BatchDone, Started, templates_of
from faceteval._util.text import plural
from faceteval.llm import LLM
from faceteval.methods.fennec import Fennec
from faceteval.prompts import Prompts
from faceteval.prompts.internal import prompts_of
from faceteval.workflows.fennec._bridge import BridgeRecord, bridge_each
from faceteval.workflows.fennec._bridge_run import BridgeRun, bridge_into, check_bridge_outputs
from faceteval.workflows.fennec._bridge_sources import BRIDGEABLE, BridgeSource, load_sources

console = Console(highlight=False, soft_wrap=True, emoji=False)

BRIDGE_EXCLUDED = ("--swap", "--trace", "--dry-run", "--criteria")
"""Engine flags that do not apply: records are bridged in the recorded order, traces always kept."""
SHOWN_FAILURES = 5
"""Failed records listed on the terminal; every one is in the records file."""


@click.command("bridge")
@click.argument("benchmark", type=NamedChoice(sorted(BRIDGEABLE)))
@click.option(
    "--judge",
    help="The recorded judge whose judgments are bridged (the part after recorded:); "
    "default: auto-j-13b, pandalm-7b, gpt-4-run1.",
)
@click.option(
    "--limit",
    type=click.IntRange(1),
    help="Only the first N recorded judgments (one made in both orders, as Auto-J's, gives two records).",
)
@click.option(
    "--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Directory to write."
)
@force_option
@data_dir_option
@engine_options(exclude=BRIDGE_EXCLUDED)
@click.pass_context
@handle_errors
def bridge(ctx: click.Context, /, **flags: Any) -> None:
    """Bridge BENCHMARK's recorded judgments into Fennec training data (Fennec, Section 3.2).

    Per recorded judgment: the evaluation criteria it applied and a 1-5 scoring guideline are recovered
    from the query, the response(s) and the judgment; the record is judged again with them, and kept
    only when the new verdict (single-eval: the new score) equals the recorded one. Writes
    OUT/<benchmark>.jsonl (every record: criteria, guideline, regenerated verdict, status, raw replies
    that could not be read, usage, trace), OUT/<benchmark>.sft.jsonl (the kept records as chats: the
    bridging prompt, then the recorded judgment; a chat is written once, repeats are counted) and
    OUT/<benchmark>.run.json. Records are written in the recorded order as they finish. Every reply is
    cached: re-running the command makes no call, and re-running an interrupted one finishes the rest
    from the cache. The exit status is 1 when no record was kept.

    \b
    Examples:
      faceteval bridge autoj-pairwise --model openai:gpt-4o-mini --out bridged/ --limit 50
      faceteval bridge pandalm --judge gpt-3.5-turbo --model openai:gpt-4o-mini --out bridged/
      faceteval bridge prometheus-mtbench --model ollama:qwen2.5:7b --out bridged/
    """
    benchmark: str = flags["benchmark"]
    sources = load_sources(benchmark, flags["data_dir"], judge=flags["judge"], limit=flags["limit"])
    judge = flags["judge"] or BRIDGEABLE[benchmark].judge
    engine = flags | {"swap": False, "trace": True, "dry_run": False}
    # The engine's request carries a method; bridging uses only its LLM settings.
    request = build_job(engine, input_path=Path(), out=None, method=Fennec())
    run, failures = run_bridge(
        request, sources, flags["out"], benchmark=benchmark, judge=judge, limit=flags["limit"]
    )
    _show(request, benchmark, judge, run, failures)
    if run.stopped is not None:
        raise run.stopped
    if run.interrupted:
        ctx.exit(130)
    if not run.summary.kept:
        err_console.print("[bold red]error:[/] no record was kept; see the counts above")
        ctx.exit(1)


def run_bridge(
    request: JudgeJob,
    sources: Sequence[BridgeSource],
    out: Path,
    *,
    benchmark: str,
    judge: str,
    limit: int | None,
) -> tuple[BridgeRun, list[BridgeRecord]]:
    """Bridge ``sources`` into ``out``, each record written as it finishes, in the recorded order; the
    run, and its first failed records (as the terminal lists them).

    Ctrl-C and SIGTERM stop the run cleanly: what finished is written, with the run record.
    """
    files = check_bridge_outputs(out, benchmark, cache=request.outputs.cache, force=request.outputs.force)
    run = BridgeRun(sources=len(sources), files=files)
    failures: list[BridgeRecord] = []
    started = Started.now()
    prompts = prompts_of(templates_of(request.options), prefix_cache=request.options.prefix_cache)
    with ExitStack() as stack:
        llm = open_llm(request, stack, batched=True)
        progress = stack.enter_context(progress_bar(request))
        task = progress.add_task("bridging", total=len(sources) or None)

        def bridged(record: BridgeRecord) -> None:
            if record.status in ("parse_error", "error") and len(failures) < SHOWN_FAILURES:
                failures.append(record)
            progress.advance(task)

        bridging = partial(
            bridge_into, sources, llm, run, benchmark=benchmark, judge=judge, limit=limit, bridged=bridged,
            started=started, prompts=prompts,
        )  # fmt: skip
        collect = partial(_collect, sources, llm, prompts)

        def told(done: BatchDone) -> None:
            run.batch = done

        batched = batch_first(request, llm, progress, collect, bridging, told=told)
        run_until_stopped(run, llm.closing_after, batched)
    return run, failures


async def _collect(sources: Sequence[BridgeSource], llm: LLM, prompts: Prompts, window: int) -> None:
    """A collecting pass of ``--batch``: every source bridged, nothing written."""
    await bridge_each(sources, llm, sink=lambda _: None, window=window, abort_after=0, prompts=prompts)


def _show(
    request: JudgeJob, benchmark: str, judge: str, run: BridgeRun, failures: list[BridgeRecord]
) -> None:
    summary, files, spent = run.summary, run.files, run.spent
    if run.interrupted:
        console.print(interrupted_note(request))
    for record in failures:
        err_console.print(f"[yellow]{escape(record.id)}: {record.status}:[/] {escape(record.error or '')}")
    records = (
        plural(summary.records, "record")
        if summary.records == run.sources
        else f"{summary.records:,} of {plural(run.sources, 'record')}"
    )
    console.print(
        f"Bridged {records} of {escape(benchmark)} (recorded:{escape(judge)}): "
        f"{summary.kept:,} kept, {summary.inconsistent:,} inconsistent, "
        f"{plural(summary.parse_errors, 'parse error')}, {plural(summary.errors, 'error')}, "
        f"{summary.skipped:,} skipped (no recorded verdict)."
    )
    repeats = f" ({plural(summary.duplicates, 'repeated chat')} left out)" if summary.duplicates else ""
    if run.kept:
        console.print(
            f"Nothing written: no record was bridged; {escape(str(files.records))}, "
            f"{escape(str(files.sft))} and {escape(str(files.run))} are left as they were"
        )
    else:
        console.print(
            f"Records in {escape(str(files.records))}; {plural(summary.chats, 'training chat')} in "
            f"{escape(str(files.sft))}{repeats}; run in {escape(str(files.run))}"
        )
    console.print(calls_line(summary.usage, spent))
    if summary.records < run.sources:
        console.print(
            f"With the unfinished records' calls: {spent.calls:,} made, {spent.cached:,} from cache, "
            f"{plural(spent.retries, 'retry')}."
        )
