"""Writing a report's two files: ``report.md`` and ``report.html`` of a meta-evaluation run directory, or
any report's Markdown and HTML pages (`write_pages`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from faceteval.report._build import DEFAULT_EXAMPLES, DEFAULT_TOP_FACETS
from faceteval.report._format import escape_markdown
from faceteval.report._html import render_html, render_page
from faceteval.report._markdown import render_markdown, section_lines
from faceteval.report._model import Section
from faceteval.report._plots import Plot
from faceteval.report._run import load_run
from faceteval.store.internal import write_atomic

MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"


def write_report(
    run_dir: Path,
    *,
    examples: int = DEFAULT_EXAMPLES,
    top_facets: int = DEFAULT_TOP_FACETS,
    markdown_path: Path | None = None,
    html_path: Path | None = None,
) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` for the meta-evaluation run in ``run_dir``.

    The run directory needs ``summary.json``; ``instances.jsonl`` and ``judgments.jsonl`` add the
    examples and score distributions when present. ``markdown_path`` and ``html_path`` write them
    elsewhere.

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
    markdown_path = markdown_path or run_dir / MARKDOWN_FILE
    html_path = html_path or run_dir / HTML_FILE
    write_atomic(markdown_path, markdown)
    write_atomic(html_path, html)
    return markdown_path, html_path


def markdown_page(title: str, sections: Sequence[Section], footer: str) -> str:
    """A report as Markdown: its title, each section, and the footer.

    Examples:
        >>> print(markdown_page("A *run*", [], "faceteval 1.0"))
        # A \\*run\\*
        <BLANKLINE>
        *faceteval 1.0*
        <BLANKLINE>
    """
    lines = [f"# {escape_markdown(title)}", ""]
    for section in sections:
        lines += section_lines(section)
    lines.append(f"*{escape_markdown(footer)}*")
    return "\n".join(lines) + "\n"


def write_pages(
    title: str,
    sections: Sequence[Section],
    plots: Sequence[Plot],
    footer: str,
    *,
    markdown_path: Path,
    html_path: Path,
) -> tuple[Path, Path]:
    """Write a report of ``sections`` as Markdown (`markdown_page`) and as a self-contained HTML page
    with ``plots`` (`render_page`), each file replaced whole.

    Returns:
        ``(markdown_path, html_path)``.
    """
    write_atomic(markdown_path, markdown_page(title, sections, footer))
    write_atomic(html_path, render_page(title, sections, plots, footer))
    return markdown_path, html_path
