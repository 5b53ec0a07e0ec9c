"""``faceteval cost``: calls, tokens and dollars of meta-evaluation runs, side by side."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
from rich.measure import Measurement
from rich.table import Table

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, escape
from faceteval._cli._options import force_flag
from faceteval.metaeval import read_summary, run_inputs
from faceteval.report import cost_table, render_cost_table, summary_view
from faceteval.store import COST_TABLE, check_outputs, write_atomic

console = Console(highlight=False, soft_wrap=True, emoji=False)


@click.command()
@click.argument(
    "run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True, path_type=Path)
)
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the table.",
)
@force_flag("--markdown")
@handle_errors
def cost(run_dirs: tuple[Path, ...], markdown_path: Path | None, force: bool) -> None:
    """What each run's judgments cost: calls, cached calls, tokens and dollars, in total and per instance.

    Cached calls count at their price. Per-instance figures divide by the instances with a judgment,
    failed ones included. A sweep or repeated run (--aspects 1,2,3 / --seeds) shows one row per
    sub-run.

    \b
    Example:
      faceteval cost runs/direct runs/cot runs/dna --markdown cost.md
    """
    if markdown_path is not None:
        inputs = [path for run_dir in run_dirs for path in run_inputs(run_dir)]
        check_outputs(
            [(markdown_path, COST_TABLE)],
            given=markdown_path,
            option="--markdown",
            inputs=inputs,
            force=force,
        )
    named: dict[str, Mapping[str, Any]] = {}
    for run_dir in run_dirs:
        for name, summary in _rows(run_dir):
            named[name if name not in named else f"{name} ({run_dir})"] = summary
    rows = cost_table(named)
    table = Table(title="Cost per run", title_justify="left", caption=rows.note, caption_justify="left")
    for index, column in enumerate(rows.columns):
        if rows.is_numeric(index):  # a number is never split over lines
            table.add_column(column, justify="right", no_wrap=True)
        else:
            table.add_column(column, overflow="fold")
    for row in rows.rows:
        table.add_row(*(escape(cell) for cell in row))
    unbounded = console.options.update_width(1_000_000)  # a measure that a narrow terminal does not clip
    if Measurement.get(console, unbounded, table).maximum <= console.options.max_width:
        console.print(table)
    else:  # too narrow a terminal for a column per figure: a block per run, a line per figure
        console.print("Cost per run")
        for row in rows.rows:
            block = Table(title=escape(row[0]), title_justify="left", show_header=False)
            block.add_column(overflow="fold")
            block.add_column(justify="right", overflow="fold")
            for column, cell in zip(rows.columns[1:], row[1:], strict=True):
                block.add_row(escape(column), escape(cell))
            console.print(block)
        console.print(rows.note)
    if markdown_path is not None:
        write_atomic(markdown_path, render_cost_table(named))


def _rows(run_dir: Path) -> list[tuple[str, Mapping[str, Any]]]:
    summary = summary_view(read_summary(run_dir))
    name = str(summary.get("judge") or run_dir.name)
    runs = [row for row in summary.get("runs", []) if isinstance(row, Mapping) and row.get("dir")]
    if not runs:
        return [(name, summary)]
    return [
        (f"{name} [{row['dir']}]", {"benchmark": summary.get("benchmark"), "n": summary.get("n")} | dict(row))
        for row in runs
    ]
