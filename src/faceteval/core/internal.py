"""The plumbing of `faceteval.core` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.core._criterion import partial_weights, repeated_name, zero_weights
from faceteval.core._judgment import INVALID_INPUT, PLANNED, UNANSWERED, UNJUDGEABLE, failure_kind
from faceteval.core._result import RESULT_SCHEMA
from faceteval.core._scoring import merged_modes, mode_counts, recorded_modes

__all__ = [
    "INVALID_INPUT",
    "PLANNED",
    "RESULT_SCHEMA",
    "UNANSWERED",
    "UNJUDGEABLE",
    "failure_kind",
    "merged_modes",
    "mode_counts",
    "partial_weights",
    "recorded_modes",
    "repeated_name",
    "zero_weights",
]
