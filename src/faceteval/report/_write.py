"""Writing ``report.md`` and ``report.html`` into a run directory."""

from __future__ import annotations

from pathlib import Path

from faceteval.report._build import DEFAULT_EXAMPLES, DEFAULT_TOP_FACETS
from faceteval.report._html import render_html
from faceteval.report._markdown import render_markdown
from faceteval.report._run import load_run
from faceteval.store import write_atomic

MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"


def write_report(
    run_dir: Path, *, examples: int = DEFAULT_EXAMPLES, top_facets: int = DEFAULT_TOP_FACETS
) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` for the meta-evaluation run in ``run_dir``.

    The run directory needs ``summary.json``; ``instances.jsonl`` and ``judgments.jsonl`` add the
    examples and score distributions when present.

    Returns:
        The paths of the Markdown and the HTML report.

    Raises:
        InputError: ``summary.json`` is missing or unreadable.
    """
    run_dir = Path(run_dir)
    run = load_run(run_dir)
    markdown = render_markdown(
        run.summary, run.instances, run.judgments, examples=examples, top_facets=top_facets
    )
    html = render_html(run.summary, run.instances, run.judgments, examples=examples, top_facets=top_facets)
    markdown_path, html_path = run_dir / MARKDOWN_FILE, run_dir / HTML_FILE
    write_atomic(markdown_path, markdown)
    write_atomic(html_path, html)
    return markdown_path, html_path
