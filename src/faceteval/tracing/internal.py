"""The plumbing of `faceteval.tracing` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.tracing._errors import record_error
from faceteval.tracing._state import labelled, paused, tracer

__all__ = [
    "labelled",
    "paused",
    "record_error",
    "tracer",
]
