"""``faceteval batch``: the replies a cluster gave to ``--batch files`` request files, imported."""

from __future__ import annotations

import os
from pathlib import Path

import click

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, err_console, escape
from faceteval._cli._options import _ENGINE_OPTIONS
from faceteval._cli._run import default_cache_path
from faceteval._util.text import plural

console = Console(highlight=False, soft_wrap=True, emoji=False)
OUTPUT = click.Path(dir_okay=False, path_type=Path)


@click.group()
def batch() -> None:
    """Batch rounds run on a cluster (--batch files): their replies imported into the response cache."""


@batch.command("import")
@click.argument("outputs", metavar="OUT.jsonl...", nargs=-1, required=True, type=OUTPUT)
@_ENGINE_OPTIONS["--cache"]
@click.pass_context
@handle_errors
def import_(ctx: click.Context, outputs: tuple[Path, ...], cache_path: Path | None) -> None:
    """Put the replies of batch output files (``vllm run-batch``'s, in OpenAI's batch output format) into
    the response cache a ``--batch files`` run uses; then run that command again.

    Each reply goes under its custom_id with the identity and model of the request file it answers (as
    the cache's ledger records it). A line that cannot be read, or whose custom_id no waiting request
    file holds, is listed with its file and line and skipped (exit status 1, after the rest is imported).
    Importing a file twice is harmless. A self-hosted cluster has no provider price: tokens are counted,
    not dollars.
    """
    from faceteval.batch import import_outputs
    from faceteval.store import SQLiteCache

    path = cache_path or default_cache_path(os.environ)
    if not path.is_file():
        raise click.BadParameter(f"{path} is no response cache", param_hint="--cache")
    with SQLiteCache(path) as cache:
        report = import_outputs(cache, outputs)
    tally = report.tally
    console.print(
        f"imported {tally.imported:,} replies into {escape(str(path))} ({tally.input_tokens:,} input and "
        f"{tally.output_tokens:,} output tokens, unpriced: a self-hosted cluster has no provider price)"
    )
    if report.already:
        console.print(f"{report.already:,} replies were already in the cache")
    if tally.failed:
        were = "was" if tally.failed == 1 else "were"
        console.print(
            f"{plural(tally.failed, 'request')} {were} answered with an error: the next round asks again"
        )
    for row in report.completed:
        requests = plural(row.requests, "request")
        console.print(f"done: {escape(row.input_file_id)} (round {row.round}, {requests})")
    for row, missing in report.waiting:
        without = f"{missing:,} of {row.requests:,} without a reply"
        console.print(f"waiting: {escape(row.input_file_id)} ({without})")
    for problem in report.problems:
        err_console.print(f"[bold red]error:[/] {escape(problem)} (skipped)")
    if not report.waiting:
        console.print("Every request file is imported: run the command again to go on.")
    if report.problems:
        ctx.exit(1)
