"""``faceteval bridge``: Fennec's bridging of a benchmark's recorded judgments into training data."""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import click

from faceteval._cli.kit import (
    Console,
    NamedChoice,
    RunRequest,
    build_request,
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
    record_header,
    run_until_stopped,
    spent_fields,
)
from faceteval._util.text import plural
from faceteval.errors import FacetevalError, StoreError
from faceteval.llm import LLM, Spend
from faceteval.methods.fennec._bridge import BridgeRecord, bridge_each
from faceteval.methods.fennec._bridge_files import (
    BridgeFiles,
    BridgeSummary,
    BridgeWriter,
    bridge_files,
    run_description,
    summarize,
)
from faceteval.methods.fennec._bridge_sources import BRIDGEABLE, BridgeSource, load_sources
from faceteval.methods.fennec._method import Fennec
from faceteval.store import BRIDGE_RECORDS, CHATS, RUN_RECORD, check_outputs

console = Console(highlight=False, soft_wrap=True, emoji=False)

BRIDGE_EXCLUDED = ("--swap", "--trace", "--dry-run", "--criteria")
"""Engine flags that do not apply: records are bridged in the recorded order, traces always kept."""
SHOWN_FAILURES = 5
"""Failed records listed on the terminal; every one is in the records file."""


@dataclass(slots=True)
class BridgeRun:
    """What a ``bridge`` command did."""

    sources: int
    """Recorded outputs to bridge (what the run would write if not stopped)."""
    files: BridgeFiles
    summary: BridgeSummary = field(default_factory=lambda: summarize(()))
    """The records written, counted."""
    failures: list[BridgeRecord] = field(default_factory=list)
    """The first failed records, as the terminal lists them."""
    interrupted: bool = False
    stopped: FacetevalError | None = None
    """The error that stopped the run early, if one did."""
    elapsed: float = 0.0
    spent: Spend = field(default_factory=Spend)
    """Every call the run made, including those of records an interruption left unfinished."""


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
    request = build_request(engine, input_path=Path(), out=None, method=Fennec())
    run = run_bridge(request, sources, flags["out"], benchmark=benchmark, judge=judge, limit=flags["limit"])
    _show(request, benchmark, judge, run)
    if run.stopped is not None:
        raise run.stopped
    if run.interrupted:
        ctx.exit(130)
    if not run.summary.kept:
        err_console.print("[bold red]error:[/] no record was kept; see the counts above")
        ctx.exit(1)


def run_bridge(
    request: RunRequest,
    sources: Sequence[BridgeSource],
    out: Path,
    *,
    benchmark: str,
    judge: str,
    limit: int | None,
) -> BridgeRun:
    """Bridge ``sources`` into ``out``, each record written as it finishes, in the recorded order.

    Ctrl-C and SIGTERM stop the run cleanly: what finished is written, with the run record.
    """
    run = BridgeRun(sources=len(sources), files=bridge_files(out, benchmark))
    targets = ((run.files.records, BRIDGE_RECORDS), (run.files.sft, CHATS), (run.files.run, RUN_RECORD))
    check_outputs(targets, given=out, cache=request.cache_path, force=request.force)
    started = datetime.now(UTC)
    clock = time.perf_counter()
    with ExitStack() as stack:
        llm = open_llm(request, stack)
        run.spent = llm.spent
        writer = stack.enter_context(BridgeWriter(out, benchmark))
        progress = stack.enter_context(progress_bar(request))
        task = progress.add_task("bridging", total=len(sources) or None)

        def sink(record: BridgeRecord) -> None:
            writer.write(record)
            if record.status in ("parse_error", "error") and len(run.failures) < SHOWN_FAILURES:
                run.failures.append(record)
            progress.advance(task)

        try:
            run_until_stopped(run, llm.closing_after, partial(bridge_each, sources, llm, sink=sink))
        finally:
            run.elapsed = time.perf_counter() - clock
            run.summary = writer.summary()
            try:
                writer.finish(_record(run, llm, started, benchmark=benchmark, judge=judge, limit=limit))
            except StoreError as exc:
                run.stopped = run.stopped or exc
    return run


def _record(
    run: BridgeRun, llm: LLM, started: datetime, *, benchmark: str, judge: str, limit: int | None
) -> dict[str, Any]:
    description = run_description(
        run.summary, run.files, benchmark=benchmark, judge=judge, llm=llm.describe(), limit=limit
    )
    return {
        **record_header(started, interrupted=run.interrupted, stopped=run.stopped),
        "sources": run.sources,
        **description,
        "spent": {**spent_fields(run.spent), "seconds": round(run.elapsed, 3)},
    }


def _show(request: RunRequest, benchmark: str, judge: str, run: BridgeRun) -> None:
    summary, files, spent = run.summary, run.files, run.spent
    if run.interrupted:
        console.print(interrupted_note(request))
    for record in run.failures:
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
