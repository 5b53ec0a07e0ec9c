"""The plumbing of `faceteval.methods.dna` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.methods.dna._method import facet_weights

__all__ = [
    "facet_weights",
]
