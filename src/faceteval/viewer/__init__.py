"""The run viewer (``faceteval view``): a local web app over any run, its result and its items.

It shows the list of runs, each run's result, a table of its items to filter (verdict, agreement of
the orders, status, facet, system, agreement with the human label) and each item whole: its candidates
side by side, every facet's scores, weight and explanation, and every prompt and raw reply in its
trace. Big runs are paged from disk through an index of their lines (`RunIndex`).

Names are imported on first use, so the command line starts without loading the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:
    from faceteval.viewer._app import DEFAULT_HOST
    from faceteval.viewer._filters import FilterError, Filters
    from faceteval.viewer._index import Page, RunIndex
    from faceteval.viewer._lines import RunGone
    from faceteval.viewer._record import RecordView, read_record
    from faceteval.viewer._runs import Run

_LAZY = {
    "_app": ("DEFAULT_HOST",),
    "_filters": ("FilterError", "Filters"),
    "_index": ("Page", "RunIndex"),
    "_lines": ("RunGone",),
    "_record": ("RecordView", "read_record"),
    "_runs": ("Run",),
}

__all__ = [
    "DEFAULT_HOST",
    "FilterError",
    "Filters",
    "Page",
    "RecordView",
    "Run",
    "RunGone",
    "RunIndex",
    "read_record",
]

__getattr__ = lazy_attributes(__name__, _LAZY)
