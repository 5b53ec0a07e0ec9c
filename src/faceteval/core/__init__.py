"""The data model: no I/O, no LLM, just the shapes everything else agrees on."""

from faceteval.core._criterion import Criterion
from faceteval.core._instance import Instance
from faceteval.core._judgment import FacetScore, Judgment, OrderResult, Status, TraceEntry, Usage

__all__ = ["Criterion", "FacetScore", "Instance", "Judgment", "OrderResult", "Status", "TraceEntry", "Usage"]
