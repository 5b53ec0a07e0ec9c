"""The data model: no I/O, no LLM, just the shapes everything else agrees on.

`usage_of` is the usage of a trace; `confidence` is how far to trust a verdict. The checks of lists
of criteria and of recorded score modes, why a judgment failed (`failure_kind`) and the error
markers the engine writes are in `faceteval.core.internal`. `JudgeResult`
and its parts are the result of a judge run (computed by `faceteval.results`, which exports them too).
"""

from faceteval.core._confidence import (
    CONFIDENCE_ESTIMATORS,
    SIGNALS,
    SIMULATED_ANNOTATORS,
    STRATEGIES,
    VERDICT_LOGPROBS,
    ConfidenceInputs,
    confidence,
    confidence_components,
)
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
    GroupResult,
    HumanEstimate,
    HumanLabelled,
    JudgeResult,
    LabelledEstimate,
    Matchup,
    Mean,
    PairwiseResult,
    PointwiseResult,
    Proportion,
    Ranking,
    Standing,
    Strength,
    SystemMean,
    VerdictAgreement,
)
from faceteval.core._scoring import RecordedMode, ScoreMode, ScoreSource

__all__ = [
    "CONFIDENCE_ESTIMATORS",
    "SIGNALS",
    "SIMULATED_ANNOTATORS",
    "STRATEGIES",
    "VERDICT_LOGPROBS",
    "ConfidenceInputs",
    "Consistency",
    "Criterion",
    "FacetDecisions",
    "FacetScore",
    "FacetSummary",
    "FailureKind",
    "GroupResult",
    "HumanEstimate",
    "HumanLabelled",
    "Instance",
    "JudgeResult",
    "Judgment",
    "LabelledEstimate",
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
    "VerdictAgreement",
    "confidence",
    "confidence_components",
    "usage_of",
]
