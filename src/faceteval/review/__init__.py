"""Human review of LLM criteria, evaluations and comparisons: a SQLite project, a web app, import and export.

Names are imported on first use, so the command line starts without loading the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:
    from faceteval.review._coeval import COEVAL_TASKS, CoevalImport
    from faceteval.review._io import ImportSummary
    from faceteval.review._model import (
        OVERALL,
        TIE,
        Candidate,
        CriterionRow,
        CriterionView,
        DiskFullError,
        Draft,
        Item,
        Part,
        ReviewError,
        SentenceView,
    )
    from faceteval.review._store import ReviewStore

_LAZY = {
    "_coeval": ("COEVAL_TASKS", "CoevalImport"),
    "_io": ("ImportSummary",),
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
        "SentenceView",
        "TIE",
    ),
    "_store": ("ReviewStore",),
}

__all__ = [
    "COEVAL_TASKS",
    "OVERALL",
    "TIE",
    "Candidate",
    "CoevalImport",
    "CriterionRow",
    "CriterionView",
    "DiskFullError",
    "Draft",
    "ImportSummary",
    "Item",
    "Part",
    "ReviewError",
    "ReviewStore",
    "SentenceView",
]


__getattr__ = lazy_attributes(__name__, _LAZY)
