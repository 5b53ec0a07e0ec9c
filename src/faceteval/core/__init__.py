"""The data model: no I/O, no LLM, just the shapes everything else agrees on.

`partial_weights`, `repeated_name` and `zero_weights` say what is wrong with a list of criteria
(where criteria are given and where their weights are used); `usage_of` is the usage of a trace;
`failure_kind` says why a judgment failed; `confidence` is how far to trust a verdict. `JudgeResult`
and its parts are the result of a judge run (computed by `faceteval.results`, which exports them too).
"""

from faceteval.core._confidence import ConfidenceInputs, confidence, confidence_components
from faceteval.core._criterion import Criterion
from faceteval.core._instance import Instance
from faceteval.core._judgment import (
    FacetScore,
    FailureKind,
    Judgment,
    OrderResult,
    PanelMember,
    PanelVote,
    Status,
    TraceEntry,
    Usage,
    usage_of,
)
from faceteval.core._result import (
    Consistency,
    FacetDecisions,
    FacetSummary,
    JudgeResult,
    Matchup,
    Mean,
    PairwiseResult,
    PointwiseResult,
    Proportion,
    Ranking,
    Standing,
    Strength,
    SystemMean,
)
from faceteval.core._scoring import RecordedMode, ScoreMode, ScoreSource

__all__ = [
    "ConfidenceInputs",
    "Consistency",
    "Criterion",
    "FacetDecisions",
    "FacetScore",
    "FacetSummary",
    "FailureKind",
    "Instance",
    "JudgeResult",
    "Judgment",
    "Matchup",
    "Mean",
    "OrderResult",
    "PairwiseResult",
    "PanelMember",
    "PanelVote",
    "PointwiseResult",
    "Proportion",
    "Ranking",
    "RecordedMode",
    "ScoreMode",
    "ScoreSource",
    "Standing",
    "Status",
    "Strength",
    "SystemMean",
    "TraceEntry",
    "Usage",
    "confidence",
    "confidence_components",
    "usage_of",
]
