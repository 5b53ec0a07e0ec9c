"""``faceteval datasets``: the built-in benchmarks, and fetching them from their public sources."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, err_console, escape
from faceteval._cli._options import data_dir_option
from faceteval.datasets import DATA_DIR_ENV, benchmarks, get_benchmark
from faceteval.datasets import fetch as fetch_files

console = Console(highlight=False, soft_wrap=True, emoji=False)
WIDE = 150
"""Terminal columns from which `datasets list` shows every column in its table."""


@click.group()
def datasets() -> None:
    """The built-in benchmarks (with human labels) and their recorded LLM judges."""


@datasets.command("list")
@data_dir_option
@click.option("--verbose", "-v", is_flag=True, help="Also list each benchmark's details and recorded judges.")
@handle_errors
def list_(data_dir: Path, verbose: bool) -> None:
    """Name, size, label kind, license, and where each benchmark is read from.

    In a terminal narrower than 150 columns the table keeps name, size, kind and recorded judges;
    --verbose lists the rest under each benchmark.
    """
    wide = console.width >= WIDE
    if not data_dir.is_dir():
        err_console.print(
            f"[yellow]warning:[/] {escape(str(data_dir))} is not a directory: set --data-dir, "
            f"{DATA_DIR_ENV} or data-dir in faceteval.toml to where the benchmarks are, or fetch them "
            "(faceteval datasets fetch NAME)",
            highlight=False,
        )
    table = Table(title=f"Benchmarks in {escape(str(data_dir))}", title_justify="left")
    columns = ("name", "size", "kind", "human label", "license", "read from", "recorded")
    for column in columns if wide else ("name", "size", "kind", "recorded judges"):
        table.add_column(
            column,
            justify="right" if column in ("size", "recorded judges") else "left",
            overflow="fold",
            no_wrap=column in ("name", "kind"),
        )
    for benchmark in benchmarks():
        present = (data_dir / benchmark.path).exists()
        recorded = str(len(benchmark.recorded_sources(data_dir))) if present else ""
        missing = "" if present else " [red](missing)[/]"
        if wide:
            details = (escape(benchmark.labels), escape(benchmark.license), escape(benchmark.path) + missing)
            table.add_row(benchmark.name, f"{benchmark.size:,}", benchmark.kind, *details, recorded)
        else:
            table.add_row(benchmark.name + missing, f"{benchmark.size:,}", benchmark.kind, recorded)
    console.print(table)
    if not verbose:
        if not wide:
            console.print("Labels, licenses and paths: --verbose (or a terminal 150 columns wide).")
        return
    for benchmark in benchmarks():
        console.print(f"[bold]{benchmark.name}[/]")
        if not wide:
            console.print(f"  human label: {escape(benchmark.labels)}")
            console.print(f"  license: {escape(benchmark.license)}; read from {escape(benchmark.path)}")
        if (data_dir / benchmark.path).exists():
            for source in benchmark.recorded_sources(data_dir):
                console.print(f"  recorded:{escape(source.name)}  {escape(source.judge)}")


@datasets.command()
@click.argument("names", nargs=-1, required=True, metavar="NAME...")
@data_dir_option
@click.option("--mirror", metavar="URL", help="Fetch through this mirror (it replaces each URL's host).")
@handle_errors
def fetch(names: tuple[str, ...], data_dir: Path, mirror: str | None) -> None:
    """Download benchmarks from their public sources into the data directory, checksums verified."""
    for name in names:
        benchmark = get_benchmark(name)
        report = fetch_files(benchmark, data_dir, mirror=mirror)
        console.print(f"{escape(name)}: {escape(str(report))}")
