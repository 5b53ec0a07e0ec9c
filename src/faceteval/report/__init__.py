"""Reports of a meta-evaluation run: Markdown and a self-contained HTML page with plots.

`write_report` reads a run directory (``summary.json``, and ``instances.jsonl`` /
``judgments.jsonl`` when present) and writes ``report.md`` and ``report.html`` beside them.
`render_markdown` and `render_html` are the pure functions behind it; `render_comparison` and
`render_cost_table` write Markdown across runs. Every key of a summary is optional: a report
shows what is there.

A report of another kind (HD-Eval's evaluator report, the review statistics) is built from the same
parts: a `Section` holds `Table` objects (`numeric_columns` aligns their columns), written as Markdown
by `section_lines` / `table_lines` and as a page by `render_page`; a `Plot` is drawn on `new_figure`
and embedded by `encode_plot` (`plot_label` shortens a label and draws it as written); numbers and
text are shown as a report shows them (`decimal`, `percent`, `count`, `DASH`, `escape_markdown`).
"""

from faceteval.report._build import DEFAULT_EXAMPLES, DEFAULT_TOP_FACETS
from faceteval.report._compare import cost_table, render_comparison, render_cost_table
from faceteval.report._format import DASH, count, decimal, escape_markdown, percent
from faceteval.report._html import render_html, render_page
from faceteval.report._markdown import render_markdown, section_lines, table_lines
from faceteval.report._model import Section, Table, numeric_columns
from faceteval.report._plots import Plot, encode_plot, new_figure, plot_label
from faceteval.report._run import Run, load_run, summary_view
from faceteval.report._write import HTML_FILE, MARKDOWN_FILE, write_report

__all__ = [
    "DASH",
    "DEFAULT_EXAMPLES",
    "DEFAULT_TOP_FACETS",
    "HTML_FILE",
    "MARKDOWN_FILE",
    "Plot",
    "Run",
    "Section",
    "Table",
    "cost_table",
    "count",
    "decimal",
    "encode_plot",
    "escape_markdown",
    "load_run",
    "new_figure",
    "numeric_columns",
    "percent",
    "plot_label",
    "render_comparison",
    "render_cost_table",
    "render_html",
    "render_markdown",
    "render_page",
    "section_lines",
    "summary_view",
    "table_lines",
    "write_report",
]
