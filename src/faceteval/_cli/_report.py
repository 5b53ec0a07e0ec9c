"""``faceteval report``: Markdown and self-contained HTML for any run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import click

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, err_console, escape
from faceteval._cli._options import force_flag
from faceteval._cli._results import systems_option
from faceteval._cli._runs import family_report, find_run, report_paths, run_files
from faceteval.datasets import HumanLabel, read_human_labels
from faceteval.errors import FacetevalError
from faceteval.metaeval.internal import check_run
from faceteval.report import write_judge_report, write_report
from faceteval.store.internal import REPORT, check_outputs
from faceteval.viewer import Run

console = Console(highlight=False, soft_wrap=True, emoji=False)


@click.command()
@click.argument("runs", metavar="RUN...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to OUT.md and OUT.html (one RUN only). Default: beside the run.",
)
@systems_option
@click.option(
    "--human-labels",
    "labels_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Of a judge run: human labels by id (JSONL of {id, label} or {id, scores}) in place of the "
    "instances' own; the result then adds the win rates humans would give, prediction-powered.",
)
@force_flag("the report's Markdown and HTML files")
@handle_errors
def report(
    runs: tuple[Path, ...],
    out: Path | None,
    systems: tuple[str, ...] | None,
    labels_path: Path | None,
    force: bool,
) -> None:
    """Write the report of each RUN: a Markdown file and a self-contained HTML page with plots.

    A RUN is a judge output (X.jsonl, or its record X.run.json): the run, its result (win rates
    with CIs per system and position, ranking, swap consistency, facets; mean scores of single
    outputs), plots, and the items where the facets disagree with the verdict or the orders
    disagree, written to X.report.md and X.report.html. Or a meta-eval run directory, or an HD-Eval
    evaluator directory (report.md and report.html in it); or a correct or bridge output (X.report.md
    and X.report.html beside it).

    The result of a judge run is the one its record holds; else (an older record) it is computed from
    the judgments and the input the record names, as is it with --systems (for a run judged with
    judge --systems whose record does not name them) and with --human-labels. With human labels (the
    input's or --human-labels), the result adds the prediction-powered win rates or means.

    A path that is no run, or whose report files are not reports (unless --force), is reported and
    the others are still written; the exit status is then 1.

    \b
    Examples:
      faceteval report dna.jsonl
      faceteval report runs/llmbar-dna evaluator/ corrected.jsonl --force
      faceteval report dna.jsonl --out reports/dna
    """
    if out is not None and len(runs) > 1:
        raise click.UsageError("--out names one report: give one RUN with it")
    labels = read_human_labels(labels_path) if labels_path is not None else None
    failed = []
    for path in runs:
        try:
            markdown, html = _write(find_run(path), out, systems, labels, force)
        except FacetevalError as exc:
            err_console.print(f"[red]error:[/] {escape(str(exc))}")
            failed.append(path)
            continue
        console.print(f"{escape(str(markdown))}\n{escape(str(html))}")
    if failed:
        if len(runs) == 1:
            raise FacetevalError("no report written (see above)")
        raise FacetevalError(
            f"{len(failed)} of {len(runs)} runs {'has' if len(failed) == 1 else 'have'} no report (see above)"
        )


def _write(
    run: Run,
    out: Path | None,
    systems: tuple[str, ...] | None,
    labels: Mapping[str, HumanLabel] | None,
    force: bool,
) -> tuple[Path, Path]:
    markdown, html = report_paths(run, out)
    given = out if out is not None else run.path
    check_outputs(
        [(markdown, REPORT), (html, REPORT)],
        given=given,
        option=None if out is None else "--out",
        inputs=run_files(run),
        force=force,
    )
    if run.command == "meta-eval":
        check_run(run.path)  # a clear error for a run whose files are not those its summary describes
        return write_report(run.path, markdown_path=markdown, html_path=html)
    if run.command == "judge" and run.lines is not None:
        return write_judge_report(
            run.lines, markdown_path=markdown, html_path=html, systems=systems, labels=labels
        )
    family_report(run.command)(run.path, markdown_path=markdown, html_path=html)
    return markdown, html
