"""The plumbing of `faceteval.aggregation` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.aggregation._functions import DECIMALS

__all__ = [
    "DECIMALS",
]
