"""Reports of runs: Markdown and a self-contained HTML page with plots.

`write_judge_report` reads a judge run (its judgments, the record beside them and the input it names)
and writes ``X.report.md`` and ``X.report.html`` beside ``X.jsonl`` (`judge_report_paths`): the run,
its result (win rates with their intervals, ranking, swap consistency, facets), plots, and the items
where the facets disagree with the verdict or the orders disagree. `spend_table` shows what runs
spent, from their records.

`write_report` reads a meta-evaluation run directory (``summary.json``, and ``instances.jsonl`` /
``judgments.jsonl`` when present) and writes ``report.md`` and ``report.html`` beside them.
`render_markdown` and `render_html` are the pure functions behind it; `render_comparison` and
`render_cost_table` write Markdown across runs; `bias_rows` lists a summary's bias rates (judge and
humans) as reports and the command line show them, under `BIAS_NOTE`. Every key of a summary is
optional: a report shows what is there.

A report of another kind (HD-Eval's evaluator report, the review statistics) is built from the same
parts: a `Section` holds `Table` objects (`numeric_columns` aligns their columns), written as Markdown
by `section_lines` / `table_lines` and as a page by `render_page` (both by `write_pages`);
`record_section` shows a run record (what ran, and its spend); a `Plot` is drawn on `new_figure`
and embedded by `encode_plot` (`plot_label` shortens a label and draws it as written); numbers and
text are shown as a report shows them (`decimal`, `percent`, `count`, `DASH`, `escape_markdown`).
"""

from faceteval.report._build import DEFAULT_EXAMPLES, DEFAULT_TOP_FACETS
from faceteval.report._compare import render_comparison
from faceteval.report._format import count
from faceteval.report._html import render_html, render_page
from faceteval.report._markdown import render_markdown
from faceteval.report._model import Section, Table
from faceteval.report._plots import Plot
from faceteval.report._run import Run, load_run
from faceteval.report._write import markdown_page, write_report

__all__ = [
    "DEFAULT_EXAMPLES",
    "DEFAULT_TOP_FACETS",
    "Plot",
    "Run",
    "Section",
    "Table",
    "count",
    "load_run",
    "markdown_page",
    "render_comparison",
    "render_html",
    "render_markdown",
    "render_page",
    "write_report",
]
