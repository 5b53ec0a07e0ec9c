"""Aggregation of facet scores outside the LLM: weighted sum, mean, verdicts and ranks; a judge panel's
combined verdict."""

from faceteval.aggregation._functions import mean, normalise, ranks, total, verdict, weighted_sum
from faceteval.aggregation._panel import (
    DEFAULT_PANEL_VOTE,
    PANEL_VOTES,
    combine_panel,
    majority_verdict,
    votes,
)

__all__ = [
    "DEFAULT_PANEL_VOTE",
    "PANEL_VOTES",
    "combine_panel",
    "majority_verdict",
    "mean",
    "normalise",
    "ranks",
    "total",
    "verdict",
    "votes",
    "weighted_sum",
]
