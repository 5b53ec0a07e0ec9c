"""``faceteval cost``: calls, tokens and dollars of runs, side by side."""

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
from faceteval._cli._runs import find_run, run_files
from faceteval.errors import FacetevalError
from faceteval.metaeval import read_summary
from faceteval.metaeval.internal import run_inputs
from faceteval.report import Table as ReportTable
from faceteval.report import render_cost_table, spend_table
from faceteval.report.internal import cost_table, method_of, render_spend_table, summary_view
from faceteval.store import RunRecord, read_record, record_kind, record_path_for
from faceteval.store.internal import COST_TABLE, check_outputs, write_atomic
from faceteval.viewer import Run

console = Console(highlight=False, soft_wrap=True, emoji=False)


@click.command()
@click.argument("runs", metavar="RUN...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the tables.",
)
@force_flag("--markdown")
@handle_errors
def cost(runs: tuple[Path, ...], markdown_path: Path | None, force: bool) -> None:
    """What each RUN cost: calls, cached calls, tokens and dollars.

    A meta-eval run directory: its judgments' calls, cached calls, tokens and dollars, in total and
    per instance; cached calls count at their price; per-instance figures divide by the instances with
    a judgment, failed ones included; a sweep or repeated run (--aspects 1,2,3 / --seeds) shows one
    row per sub-run. Any other run (a judge output X.jsonl or its record X.run.json, an HD-Eval
    evaluator, a correct or bridge output): what it spent, from its run record: calls, cached calls,
    retries, tokens, dollars and seconds, with its model.

    \b
    Examples:
      faceteval cost runs/direct runs/cot runs/dna --markdown cost.md
      faceteval cost dna.jsonl cot.jsonl
    """
    found = [find_run(path) for path in runs]
    meta = [run.path for run in found if run.command == "meta-eval"]
    spent = _records([run for run in found if run.command != "meta-eval"])
    if markdown_path is not None:
        inputs = [path for run_dir in meta for path in run_inputs(run_dir)]
        inputs += [path for run in found for path in run_files(run)]
        check_outputs(
            [(markdown_path, COST_TABLE)],
            given=markdown_path,
            option="--markdown",
            inputs=inputs,
            force=force,
        )
    named: dict[str, Mapping[str, Any]] = {}
    for run_dir in meta:
        for name, summary in _rows(run_dir):
            named[name if name not in named else f"{name} ({run_dir})"] = summary
    tables = []
    if named:
        _show("Cost per run", cost_table(named))
        tables.append(render_cost_table(named))
    if spent:
        _show("Spend per run", spend_table(spent))
        tables.append(render_spend_table(spent))
    if markdown_path is not None:
        write_atomic(markdown_path, "\n".join(tables))


def _records(runs: list[Run]) -> dict[str, tuple[Path, RunRecord]]:
    """Each run's record, named by its method (and its path, when two share a method).

    Raises:
        FacetevalError: A run has no record.
    """
    named: dict[str, tuple[Path, RunRecord]] = {}
    for run in runs:
        if run.record is None:
            expected = record_path_for(run.lines or run.path)
            raise FacetevalError(
                f"{run.path}: no run record ({expected.name} is not beside it): cost reads what a run "
                "spent from the record its command writes"
            )
        record = read_record(run.record, record_kind(run.command).record)
        name = method_of(record)
        named[name if name not in named else f"{name} ({run.path})"] = (run.path, record)
    return named


def _show(title: str, rows: ReportTable) -> None:
    """``rows`` as one table when the terminal is wide enough, else as a block per run."""
    table = Table(title=title, title_justify="left", caption=rows.note, caption_justify="left")
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
        return
    console.print(title)  # too narrow a terminal for a column per figure: a block per run, a line per figure
    for row in rows.rows:
        block = Table(title=escape(row[0]), title_justify="left", show_header=False)
        block.add_column(overflow="fold")
        block.add_column(justify="right", overflow="fold")
        for column, cell in zip(rows.columns[1:], row[1:], strict=True):
            block.add_row(escape(column), escape(cell))
        console.print(block)
    console.print(rows.note)


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
