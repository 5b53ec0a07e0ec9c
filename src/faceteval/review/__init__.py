"""Human review of LLM criteria, evaluations and comparisons: a SQLite project, a web app, import and export.

Names are imported on first use, so the command line starts without loading the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:
    from faceteval.review._access import base_address, invite_url, is_loopback, is_wildcard, new_invite
    from faceteval.review._app import create_app
    from faceteval.review._explain import explanation_parts, split_sentences, states_score
    from faceteval.review._export import export_actions, export_scores
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
    from faceteval.review._stats import review_stats
    from faceteval.review._stats_tables import render_stats_markdown, stats_tables
    from faceteval.review._store import DATABASE, ReviewStore

_LAZY = {
    "_access": ("base_address", "invite_url", "is_loopback", "is_wildcard", "new_invite"),
    "_app": ("create_app",),
    "_explain": ("explanation_parts", "split_sentences", "states_score"),
    "_export": ("export_actions", "export_scores"),
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
    "_stats": ("review_stats",),
    "_stats_tables": ("render_stats_markdown", "stats_tables"),
    "_store": ("DATABASE", "ReviewStore"),
}

__all__ = [
    "DATABASE",
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
    "base_address",
    "create_app",
    "explanation_parts",
    "export_actions",
    "export_scores",
    "import_run",
    "invite_url",
    "is_loopback",
    "is_wildcard",
    "new_invite",
    "render_stats_markdown",
    "review_stats",
    "split_sentences",
    "states_score",
    "stats_tables",
]


__getattr__ = lazy_attributes(__name__, _LAZY)
