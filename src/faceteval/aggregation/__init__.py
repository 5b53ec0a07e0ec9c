"""Aggregation of facet scores outside the LLM: weighted sum, mean, verdicts and ranks."""

from faceteval.aggregation._functions import mean, normalise, ranks, total, verdict, weighted_sum

__all__ = ["mean", "normalise", "ranks", "total", "verdict", "weighted_sum"]
