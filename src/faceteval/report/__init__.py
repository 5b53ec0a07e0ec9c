"""Reports of a meta-evaluation run: Markdown and a self-contained HTML page with plots.

`write_report` reads a run directory (``summary.json``, and ``instances.jsonl`` /
``judgments.jsonl`` when present) and writes ``report.md`` and ``report.html`` beside them.
`render_markdown` and `render_html` are the pure functions behind it; `render_comparison` and
`render_cost_table` write Markdown across runs. Every key of a summary is optional: a report
shows what is there.
"""

from faceteval.report._build import DEFAULT_EXAMPLES, DEFAULT_TOP_FACETS
from faceteval.report._compare import cost_table, render_comparison, render_cost_table
from faceteval.report._html import render_html
from faceteval.report._markdown import render_markdown
from faceteval.report._run import Run, load_run
from faceteval.report._write import write_report

__all__ = [
    "DEFAULT_EXAMPLES",
    "DEFAULT_TOP_FACETS",
    "Run",
    "cost_table",
    "load_run",
    "render_comparison",
    "render_cost_table",
    "render_html",
    "render_markdown",
    "write_report",
]
