"""The result of a judge run: win rates, rankings, swap consistency, facets, failures.

`compute_result` reads judgments (and, for the systems behind the candidates, their instances)
and returns a `JudgeResult`; `ResultBuilder` does the same as judgments come. `Threshold` is one
``--fail-under`` check of a result. `calibrate_threshold` chooses a confidence threshold with a
guarantee of agreement with humans (a `CalibratedThreshold`), and `abstain` applies it to a judgment.

Every rate is a `Proportion` whose ``n`` is its denominator, every mean a `Mean` whose ``n`` is the
number of scores averaged; failed judgments are counted beside them, never silently left out.
"""

from faceteval.core import (
    Consistency,
    FacetDecisions,
    FacetSummary,
    GroupResult,
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
from faceteval.core.internal import RESULT_SCHEMA
from faceteval.results._build import ResultBuilder, compute_result
from faceteval.results._calibrated import (
    CalibratedThreshold,
    CalibrationData,
    JudgeIdentity,
    abstain,
    calibrate_threshold,
    read_calibration,
)
from faceteval.results._options import DEFAULT_MAX_FACETS, DEFAULT_RESULT_OPTIONS, ResultOptions
from faceteval.results._thresholds import Threshold

__all__ = [
    "DEFAULT_MAX_FACETS",
    "DEFAULT_RESULT_OPTIONS",
    "RESULT_SCHEMA",
    "CalibratedThreshold",
    "CalibrationData",
    "Consistency",
    "FacetDecisions",
    "FacetSummary",
    "GroupResult",
    "JudgeIdentity",
    "JudgeResult",
    "Matchup",
    "Mean",
    "PairwiseResult",
    "PointwiseResult",
    "Proportion",
    "Ranking",
    "ResultBuilder",
    "ResultOptions",
    "Standing",
    "Strength",
    "SystemMean",
    "Threshold",
    "abstain",
    "calibrate_threshold",
    "compute_result",
    "read_calibration",
]
