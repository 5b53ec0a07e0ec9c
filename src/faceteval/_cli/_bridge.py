"""``faceteval bridge``: Fennec's bridging of a benchmark's recorded judgments into training data."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from faceteval._cli._app import handle_errors
from faceteval._cli._console import err_console
from faceteval._cli._display import calls_line
from faceteval._cli._options import build_request, data_dir_option, engine_options
from faceteval._cli._run import open_llm
from faceteval.fennec._bridge import BridgeRecord
from faceteval.fennec._bridge import bridge as bridge_records
from faceteval.fennec._bridge_files import BridgeFiles, BridgeSummary, save_bridge, summarize
from faceteval.fennec._bridge_sources import BRIDGEABLE, load_sources
from faceteval.llm import Spend
from faceteval.methods import create_method

console = Console(highlight=False, soft_wrap=True, emoji=False)

BRIDGE_EXCLUDED = ("--swap", "--trace", "--dry-run", "--criteria", "--aggregate", "--single", "--quiet")
"""Engine flags that do not apply: records are bridged in the recorded order, traces always kept."""
SHOWN_FAILURES = 5
"""Failed records listed on the terminal; every one is in the records file."""


@click.command("bridge")
@click.argument("benchmark", type=click.Choice(sorted(BRIDGEABLE)))
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
@data_dir_option
@engine_options(exclude=BRIDGE_EXCLUDED)
@handle_errors
def bridge(**flags: Any) -> None:
    """Bridge BENCHMARK's recorded judgments into Fennec training data (Fennec, Section 3.2).

    Per recorded judgment: the evaluation criteria it applied and a 1-5 scoring guideline are recovered
    from the query, the response(s) and the judgment; the record is judged again with them, and kept
    only when the new verdict (single-eval: the new score) equals the recorded one. Writes
    OUT/<benchmark>.jsonl (every record: criteria, guideline, regenerated verdict, status, raw replies
    that could not be read, usage, trace), OUT/<benchmark>.sft.jsonl (the kept records as chats: the
    bridging prompt, then the recorded judgment) and OUT/<benchmark>.run.json. Every reply is cached:
    re-running the command makes no call.

    \b
    Examples:
      faceteval bridge autoj-pairwise --model openai:gpt-4o-mini --out bridged/ --limit 50
      faceteval bridge pandalm --judge gpt-3.5-turbo --model openai:gpt-4o-mini --out bridged/
      faceteval bridge prometheus-mtbench --model ollama:qwen2.5:7b --out bridged/
    """
    benchmark: str = flags["benchmark"]
    sources = load_sources(benchmark, flags["data_dir"], judge=flags["judge"], limit=flags["limit"])
    judge = flags["judge"] or BRIDGEABLE[benchmark].judge
    engine = flags | {"swap": False, "trace": True, "dry_run": False, "quiet": True}
    # The engine's request carries a method; bridging uses only its LLM settings.
    request = build_request(engine, input_path=Path(), out=None, method=create_method("direct"))
    with ExitStack() as stack:
        llm = open_llm(request, stack)
        records = bridge_records(sources, llm)
    files = save_bridge(
        records, flags["out"], benchmark=benchmark, judge=judge, llm=llm.describe(), limit=flags["limit"]
    )
    _show(benchmark, judge, records, summarize(records), files, llm.spent)


def _show(
    benchmark: str,
    judge: str,
    records: list[BridgeRecord],
    summary: BridgeSummary,
    files: BridgeFiles,
    spent: Spend,
) -> None:
    for record in [r for r in records if r.status in ("parse_error", "error")][:SHOWN_FAILURES]:
        err_console.print(f"[yellow]{escape(record.id)}: {record.status}:[/] {escape(record.error or '')}")
    console.print(
        f"Bridged {summary.records} records of {escape(benchmark)} (recorded:{escape(judge)}): "
        f"{summary.kept} kept, {summary.inconsistent} inconsistent, {summary.parse_errors} parse errors, "
        f"{summary.errors} errors, {summary.skipped} skipped (no recorded verdict)."
    )
    console.print(
        f"Records in {escape(str(files.records))}; {summary.kept} training chats in "
        f"{escape(str(files.sft))}; run in {escape(str(files.run))}"
    )
    console.print(calls_line(summary.usage, spent))
