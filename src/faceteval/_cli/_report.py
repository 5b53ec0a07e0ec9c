"""``faceteval report``: Markdown and self-contained HTML for a meta-evaluation run."""

from __future__ import annotations

from pathlib import Path

import click

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, err_console, escape
from faceteval._cli._options import force_flag
from faceteval.errors import FacetevalError
from faceteval.metaeval import read_run
from faceteval.report import HTML_FILE, MARKDOWN_FILE, write_report
from faceteval.store import REPORT, check_outputs

console = Console(highlight=False, soft_wrap=True, emoji=False)


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@force_flag("report.md and report.html")
@handle_errors
def report(run_dirs: tuple[Path, ...], force: bool) -> None:
    """Write RUN_DIR/report.md and RUN_DIR/report.html (tables and plots) for each run directory.

    A directory that is not a run, or whose report.md or report.html is not a report (unless
    --force), is reported and the others are still written; the exit status is then 1.
    """
    failed = []
    for run_dir in run_dirs:
        try:
            if not run_dir.is_dir():
                raise FacetevalError(f"{run_dir}: no such run directory")
            read_run(run_dir)  # a clear error for a directory that is not a run
            reports = [(run_dir / MARKDOWN_FILE, REPORT), (run_dir / HTML_FILE, REPORT)]
            check_outputs(reports, given=run_dir, option=None, force=force)
            markdown, html = write_report(run_dir)
        except FacetevalError as exc:
            err_console.print(f"[red]error:[/] {escape(str(exc))}")
            failed.append(run_dir)
            continue
        console.print(f"{escape(str(markdown))}\n{escape(str(html))}")
    if failed:
        raise FacetevalError(f"{len(failed)} of {len(run_dirs)} run directories have no report (see above)")
