"""The plumbing of `faceteval.methods` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.methods._base import as_criteria, candidate_labels, severity
from faceteval.methods._context import DEFAULT_MEMO_SIZE, DEFAULT_TOP_LOGPROBS, SCORE_MODES, ScoreModeOption
from faceteval.methods._registry import ENTRY_POINT_GROUP, find_method_spec, sweep_of

__all__ = [
    "DEFAULT_MEMO_SIZE",
    "DEFAULT_TOP_LOGPROBS",
    "ENTRY_POINT_GROUP",
    "SCORE_MODES",
    "ScoreModeOption",
    "as_criteria",
    "candidate_labels",
    "find_method_spec",
    "severity",
    "sweep_of",
]
