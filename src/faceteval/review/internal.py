"""The plumbing of `faceteval.review` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:  # imported on first use, as the package's own names are
    from faceteval.review._access import base_address, invite_url, is_loopback, is_wildcard, new_invite
    from faceteval.review._app import create_app
    from faceteval.review._explain import explanation_parts, split_sentences, states_score
    from faceteval.review._export import export_actions, export_scores
    from faceteval.review._human_labels import LabelNeeds, human_labels, label_needs
    from faceteval.review._queue import ORDERS
    from faceteval.review._stats import review_stats
    from faceteval.review._stats_tables import render_stats_markdown, stats_tables
    from faceteval.review._store import DATABASE

__getattr__ = lazy_attributes(
    "faceteval.review",
    {
        "_access": ("base_address", "invite_url", "is_loopback", "is_wildcard", "new_invite"),
        "_app": ("create_app",),
        "_explain": ("explanation_parts", "split_sentences", "states_score"),
        "_export": ("export_actions", "export_scores"),
        "_human_labels": ("LabelNeeds", "human_labels", "label_needs"),
        "_queue": ("ORDERS",),
        "_stats": ("review_stats",),
        "_stats_tables": ("render_stats_markdown", "stats_tables"),
        "_store": ("DATABASE",),
    },
)

__all__ = [
    "DATABASE",
    "ORDERS",
    "LabelNeeds",
    "base_address",
    "create_app",
    "explanation_parts",
    "export_actions",
    "export_scores",
    "human_labels",
    "invite_url",
    "is_loopback",
    "is_wildcard",
    "label_needs",
    "new_invite",
    "render_stats_markdown",
    "review_stats",
    "split_sentences",
    "states_score",
    "stats_tables",
]
