"""Judging methods: each turns instances into outcomes through the LLM wrapper.

``direct`` and ``cot`` are the single-call baselines; ``dna`` is DnA-Eval.
"""

from faceteval.methods._base import DEFAULT_SCALE, Method, OrderOutcome, candidate_labels, gather
from faceteval.methods._context import JudgeContext, QueryMemo
from faceteval.methods._dna import AGGREGATES, DEFAULT_ASPECTS, DnA
from faceteval.methods._holistic import DEFAULT_CRITERIA, CoT, Direct
from faceteval.methods._registry import create_method, method_names

__all__ = [
    "AGGREGATES",
    "DEFAULT_ASPECTS",
    "DEFAULT_CRITERIA",
    "DEFAULT_SCALE",
    "CoT",
    "Direct",
    "DnA",
    "JudgeContext",
    "Method",
    "OrderOutcome",
    "QueryMemo",
    "candidate_labels",
    "create_method",
    "gather",
    "method_names",
]
