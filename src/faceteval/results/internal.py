"""The plumbing of `faceteval.results` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.results._human import outcome
from faceteval.results._thresholds import METRICS, did_you_mean, result_systems

__all__ = [
    "METRICS",
    "did_you_mean",
    "outcome",
    "result_systems",
]
