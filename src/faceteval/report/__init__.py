"""Reports of runs: Markdown and a self-contained HTML page with plots.

`write_judge_report` reads a judge run (its judgments, the record beside them and the input it names)
and writes ``X.report.md`` and ``X.report.html`` beside ``X.jsonl`` (`judge_report_paths`): the run,
its result (win rates with their intervals, ranking, swap consistency, facets), plots, and the items
where the facets disagree with the verdict or the orders disagree. `spend_table` shows what runs
spent, from their records.

`write_report` reads a meta-evaluation run directory (``summary.json``, and ``instances.jsonl`` /
``judgments.jsonl`` when present) and writes ``report.md`` and ``report.html`` beside them.
`render_markdown` and `render_html` are the pure functions behind it; `render_comparison` and
`render_cost_table` write Markdown across runs. Every key of a summary is optional: a report shows
what is there.

A report of another kind (HD-Eval's evaluator report, the review statistics) is built from the same
parts: a `Section` holds `Table` objects, shown as a page by `render_page`, with a `Plot` in it. The
helpers those reports share (Markdown of sections and tables, run-record sections, figures, how
numbers and text are shown, the bias rows) are in `faceteval.report.internal`.
"""

from faceteval.report._build import DEFAULT_EXAMPLES, DEFAULT_TOP_FACETS
from faceteval.report._compare import render_comparison, render_cost_table
from faceteval.report._format import count
from faceteval.report._html import render_html, render_page
from faceteval.report._judge import judge_report_paths, write_judge_report
from faceteval.report._markdown import render_markdown
from faceteval.report._model import Section, Table
from faceteval.report._plots import Plot
from faceteval.report._run import Run, load_run
from faceteval.report._spend import spend_table
from faceteval.report._write import markdown_page, write_report

__all__ = [
    "DEFAULT_EXAMPLES",
    "DEFAULT_TOP_FACETS",
    "Plot",
    "Run",
    "Section",
    "Table",
    "count",
    "judge_report_paths",
    "load_run",
    "markdown_page",
    "render_comparison",
    "render_cost_table",
    "render_html",
    "render_markdown",
    "render_page",
    "spend_table",
    "write_judge_report",
    "write_report",
]
