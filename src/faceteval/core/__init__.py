"""The data model: no I/O, no LLM, just the shapes everything else agrees on.

`partial_weights`, `repeated_name` and `zero_weights` say what is wrong with a list of criteria
(where criteria are given and where their weights are used); `usage_of` is the usage of a trace.
"""

from faceteval.core._criterion import Criterion, partial_weights, repeated_name, zero_weights
from faceteval.core._instance import Instance
from faceteval.core._judgment import FacetScore, Judgment, OrderResult, Status, TraceEntry, Usage, usage_of

__all__ = [
    "Criterion",
    "FacetScore",
    "Instance",
    "Judgment",
    "OrderResult",
    "Status",
    "TraceEntry",
    "Usage",
    "partial_weights",
    "repeated_name",
    "usage_of",
    "zero_weights",
]
