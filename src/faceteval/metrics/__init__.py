"""Meta-evaluation metrics: how well a judge agrees with humans, and how sure we can be.

Pure functions over plain sequences; each result is a small frozen value object (`Rate`,
`Correlation`, `PairedTest`) with an ``as_dict()`` for JSON. Values are fractions in [0, 1].

Pairwise verdicts are 1-based candidate indices, 0 for a tie, None when the judge gave no verdict. A
None verdict counts as wrong: it stays in ``n`` as a miss and is reported in `Rate.missing`.
Pointwise scores drop a pair where either score is None or NaN, reported in `Correlation.missing`.
"""

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes
from faceteval.metrics._intervals import (
    FISHER_Z,
    STUDENT_T,
    WILSON,
    bootstrap_fisher_se,
    fisher_interval,
    fisher_se,
    mean_interval,
    wilson_interval,
)
from faceteval.metrics._pairwise import (
    TIE,
    accuracy_order_avg,
    agreement,
    agreement_consistent,
    agreement_consistent_without_ties,
    agreement_without_ties,
    by_group,
    cohen_kappa,
    confusion,
    consistency,
    consistency_without_ties,
    correct,
    vote_agreement,
)
from faceteval.metrics._ranking import DEFAULT_PENALTY, rank_by_weight, topk_kendall_distance
from faceteval.metrics._selective import (
    Calibration,
    CalibrationBin,
    FixedSequence,
    SelectiveAgreement,
    ThresholdTest,
    agreement_lower_bound,
    calibration_error,
    confidence_auroc,
    fixed_sequence_threshold,
    labels_for_guarantee,
    selective_agreement,
    tied_shares,
)
from faceteval.metrics._types import BOOTSTRAP, CLOPPER_PEARSON, Correlation, PairedTest, Rate

if TYPE_CHECKING:
    from faceteval.metrics._agreement import AlphaLevel, average_pairwise_pearson, krippendorff_alpha
    from faceteval.metrics._pointwise import CorrelationMethod, correlation, summary_level, system_level
    from faceteval.metrics._ppi import (
        CLASSICAL,
        PPI,
        Estimate,
        human_mean,
        labels_for_width,
        ppi_available,
        ppi_module,
        prediction_powered_mean,
    )
    from faceteval.metrics._stats import (
        DEFAULT_LEVEL,
        DEFAULT_N_RESAMPLES,
        binomial_interval,
        bootstrap_ci,
        correlation_with_ci,
        mcnemar_exact,
        paired_bootstrap,
        paired_correlation_test,
        permutation_test,
        summary_level_with_ci,
        system_level_with_ci,
        with_ci,
    )

__getattr__ = lazy_attributes(
    __name__,
    {
        "_agreement": ("AlphaLevel", "average_pairwise_pearson", "krippendorff_alpha"),
        "_ppi": (
            "CLASSICAL",
            "PPI",
            "Estimate",
            "human_mean",
            "labels_for_width",
            "ppi_available",
            "ppi_module",
            "prediction_powered_mean",
        ),
        "_pointwise": ("CorrelationMethod", "correlation", "summary_level", "system_level"),
        "_stats": (
            "DEFAULT_LEVEL",
            "DEFAULT_N_RESAMPLES",
            "binomial_interval",
            "bootstrap_ci",
            "correlation_with_ci",
            "mcnemar_exact",
            "paired_bootstrap",
            "paired_correlation_test",
            "permutation_test",
            "summary_level_with_ci",
            "system_level_with_ci",
            "with_ci",
        ),
    },
)
"""The metrics over arrays (numpy, some scipy), imported on first use: a judge run's win rates need
none of them."""

__all__ = [
    "BOOTSTRAP",
    "CLASSICAL",
    "CLOPPER_PEARSON",
    "DEFAULT_LEVEL",
    "DEFAULT_N_RESAMPLES",
    "DEFAULT_PENALTY",
    "FISHER_Z",
    "PPI",
    "STUDENT_T",
    "TIE",
    "WILSON",
    "AlphaLevel",
    "Calibration",
    "CalibrationBin",
    "Correlation",
    "CorrelationMethod",
    "Estimate",
    "FixedSequence",
    "PairedTest",
    "Rate",
    "SelectiveAgreement",
    "ThresholdTest",
    "accuracy_order_avg",
    "agreement",
    "agreement_consistent",
    "agreement_consistent_without_ties",
    "agreement_lower_bound",
    "agreement_without_ties",
    "average_pairwise_pearson",
    "binomial_interval",
    "bootstrap_ci",
    "bootstrap_fisher_se",
    "by_group",
    "calibration_error",
    "cohen_kappa",
    "confidence_auroc",
    "confusion",
    "consistency",
    "consistency_without_ties",
    "correct",
    "correlation",
    "correlation_with_ci",
    "fisher_interval",
    "fisher_se",
    "fixed_sequence_threshold",
    "human_mean",
    "krippendorff_alpha",
    "labels_for_guarantee",
    "labels_for_width",
    "mcnemar_exact",
    "mean_interval",
    "paired_bootstrap",
    "paired_correlation_test",
    "permutation_test",
    "ppi_available",
    "ppi_module",
    "prediction_powered_mean",
    "rank_by_weight",
    "selective_agreement",
    "summary_level",
    "summary_level_with_ci",
    "system_level",
    "system_level_with_ci",
    "tied_shares",
    "topk_kendall_distance",
    "vote_agreement",
    "wilson_interval",
    "with_ci",
]
