"""The plumbing of `faceteval.report` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.report._compare import cost_table
from faceteval.report._diagnostics import BIAS_NOTE, bias_rows
from faceteval.report._format import DASH, decimal, escape_markdown, percent
from faceteval.report._judge_run import DEFAULT_ITEMS
from faceteval.report._markdown import section_lines, table_lines
from faceteval.report._model import numeric_columns
from faceteval.report._plots import encode_plot, new_figure, plot_label
from faceteval.report._record_section import record_section
from faceteval.report._run import summary_view
from faceteval.report._selective import guarantee_notes
from faceteval.report._spend import method_of, render_spend_table
from faceteval.report._write import HTML_FILE, MARKDOWN_FILE, write_pages

__all__ = [
    "BIAS_NOTE",
    "DASH",
    "DEFAULT_ITEMS",
    "HTML_FILE",
    "MARKDOWN_FILE",
    "bias_rows",
    "cost_table",
    "decimal",
    "encode_plot",
    "escape_markdown",
    "guarantee_notes",
    "method_of",
    "new_figure",
    "numeric_columns",
    "percent",
    "plot_label",
    "record_section",
    "render_spend_table",
    "section_lines",
    "summary_view",
    "table_lines",
    "write_pages",
]
