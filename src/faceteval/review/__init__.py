"""Human review of LLM criteria, evaluations and comparisons: a SQLite project, a web app, import and export.

Names are imported on first use, so the command line starts without loading the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:
    from faceteval.review._io import ImportSummary, import_run
    from faceteval.review._model import (
        OVERALL,
        SENTENCE_ACTIONS,
        TIE,
        Candidate,
        CriterionRow,
        CriterionView,
        DiskFullError,
        Draft,
        Item,
        Part,
        ReviewError,
        SentenceAction,
        SentenceView,
    )
    from faceteval.review._store import ReviewStore

_LAZY = {
    "_io": ("ImportSummary", "import_run"),
    "_model": (
        "Candidate",
        "CriterionRow",
        "CriterionView",
        "DiskFullError",
        "Draft",
        "Item",
        "OVERALL",
        "Part",
        "ReviewError",
        "SENTENCE_ACTIONS",
        "SentenceAction",
        "SentenceView",
        "TIE",
    ),
    "_store": ("ReviewStore",),
}

__all__ = [
    "OVERALL",
    "SENTENCE_ACTIONS",
    "TIE",
    "Candidate",
    "CriterionRow",
    "CriterionView",
    "DiskFullError",
    "Draft",
    "ImportSummary",
    "Item",
    "Part",
    "ReviewError",
    "ReviewStore",
    "SentenceAction",
    "SentenceView",
    "import_run",
]


__getattr__ = lazy_attributes(__name__, _LAZY)
