"""The data model: no I/O, no LLM, just the shapes everything else agrees on.

`partial_weights`, `repeated_name` and `zero_weights` say what is wrong with a list of criteria
(where criteria are given and where their weights are used); `usage_of` is the usage of a trace;
`failure_kind` says why a judgment failed.
"""

from faceteval.core._criterion import Criterion, partial_weights, repeated_name, zero_weights
from faceteval.core._instance import Instance
from faceteval.core._judgment import (
    INVALID_INPUT,
    PLANNED,
    UNJUDGEABLE,
    FacetScore,
    FailureKind,
    Judgment,
    OrderResult,
    Status,
    TraceEntry,
    Usage,
    failure_kind,
    usage_of,
)

__all__ = [
    "INVALID_INPUT",
    "PLANNED",
    "UNJUDGEABLE",
    "Criterion",
    "FacetScore",
    "FailureKind",
    "Instance",
    "Judgment",
    "OrderResult",
    "Status",
    "TraceEntry",
    "Usage",
    "failure_kind",
    "partial_weights",
    "repeated_name",
    "usage_of",
    "zero_weights",
]
