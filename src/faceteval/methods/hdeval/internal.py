"""The plumbing of `faceteval.methods.hdeval` that HD-Eval's workflows use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.methods.hdeval._domains import domain_of
from faceteval.methods.hdeval._tree import SEPARATOR

__all__ = ["SEPARATOR", "domain_of"]
