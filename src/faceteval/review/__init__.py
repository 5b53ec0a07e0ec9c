"""Human review of LLM criteria and evaluations (CoEval): a SQLite project, a web app, import and export.

Names are imported on first use, so the command line starts without loading the web stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faceteval.review._app import create_app
    from faceteval.review._coeval import COEVAL_TASKS, CoevalImport, import_coeval
    from faceteval.review._io import ImportSummary, export_actions, export_scores, import_run
    from faceteval.review._model import (
        OVERALL,
        CriterionRow,
        CriterionView,
        DiskFullError,
        Draft,
        Item,
        ReviewError,
        SentenceView,
        split_sentences,
    )
    from faceteval.review._stats import render_stats_markdown, review_stats
    from faceteval.review._store import ReviewStore

_HOMES = {
    "COEVAL_TASKS": "_coeval",
    "CoevalImport": "_coeval",
    "import_coeval": "_coeval",
    "render_stats_markdown": "_stats",
    "review_stats": "_stats",
    "OVERALL": "_model",
    "CriterionRow": "_model",
    "CriterionView": "_model",
    "DiskFullError": "_model",
    "Draft": "_model",
    "ImportSummary": "_io",
    "Item": "_model",
    "ReviewError": "_model",
    "ReviewStore": "_store",
    "SentenceView": "_model",
    "create_app": "_app",
    "export_actions": "_io",
    "export_scores": "_io",
    "import_run": "_io",
    "split_sentences": "_model",
}

__all__ = [
    "COEVAL_TASKS",
    "OVERALL",
    "CoevalImport",
    "CriterionRow",
    "CriterionView",
    "DiskFullError",
    "Draft",
    "ImportSummary",
    "Item",
    "ReviewError",
    "ReviewStore",
    "SentenceView",
    "create_app",
    "export_actions",
    "export_scores",
    "import_coeval",
    "import_run",
    "render_stats_markdown",
    "review_stats",
    "split_sentences",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
