"""The plumbing of `faceteval.parsing` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.parsing._choice import ChoiceReader, choice_source
from faceteval.parsing._expected import score_sources
from faceteval.parsing._json_replies import TEXT_MAX_CHARS, bounded_text, score_type

__all__ = [
    "TEXT_MAX_CHARS",
    "ChoiceReader",
    "bounded_text",
    "choice_source",
    "score_sources",
    "score_type",
]
