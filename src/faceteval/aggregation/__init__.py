"""Aggregation of facet scores outside the LLM: weighted sum, mean, verdicts and ranks."""

from faceteval.aggregation._functions import DECIMALS, mean, normalise, ranks, total, verdict, weighted_sum

__all__ = ["DECIMALS", "mean", "normalise", "ranks", "total", "verdict", "weighted_sum"]
