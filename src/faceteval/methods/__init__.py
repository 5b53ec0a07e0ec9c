"""Judging methods: each turns instances into outcomes through the LLM wrapper.

``direct`` and ``cot`` are the single-call baselines; ``dna`` is DnA-Eval; ``coeval`` is CoEval
(criterion by criterion, then overall) and ``coeval-direct`` its straightforward baseline; ``fennec``
is Fennec (criteria, scoring guidelines, a judgment per criterion, summed in code).
"""

from faceteval.methods._base import (
    DEFAULT_SCALE,
    CriterionLike,
    Method,
    OrderOutcome,
    candidate_labels,
    gather,
)
from faceteval.methods._coeval import (
    COEVAL_SCALE,
    DEFAULT_TASK,
    CoEval,
    CoEvalDirect,
    CriterionEvaluation,
    OverallEvaluation,
)
from faceteval.methods._context import JudgeContext, QueryMemo
from faceteval.methods._dna import AGGREGATES, DEFAULT_ASPECTS, DnA
from faceteval.methods._fennec import (
    DEFAULT_CRITERIA_COUNT,
    FENNEC_AGGREGATES,
    Fennec,
    response_labels,
)
from faceteval.methods._holistic import DEFAULT_CRITERIA, CoT, Direct
from faceteval.methods._registry import create_method, method_names

__all__ = [
    "AGGREGATES",
    "COEVAL_SCALE",
    "DEFAULT_ASPECTS",
    "DEFAULT_CRITERIA",
    "DEFAULT_CRITERIA_COUNT",
    "DEFAULT_SCALE",
    "DEFAULT_TASK",
    "FENNEC_AGGREGATES",
    "CoEval",
    "CoEvalDirect",
    "CoT",
    "CriterionEvaluation",
    "CriterionLike",
    "Direct",
    "DnA",
    "Fennec",
    "JudgeContext",
    "Method",
    "OrderOutcome",
    "OverallEvaluation",
    "QueryMemo",
    "candidate_labels",
    "create_method",
    "gather",
    "method_names",
    "response_labels",
]
