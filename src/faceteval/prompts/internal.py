"""The plumbing of `faceteval.prompts` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.prompts._render import BUILT_IN, builtin_template, current_prompts
from faceteval.prompts._templates import overridable_names, prefix_cache_on, prompts_of, recorded_prompts

__all__ = [
    "BUILT_IN",
    "builtin_template",
    "current_prompts",
    "overridable_names",
    "prefix_cache_on",
    "prompts_of",
    "recorded_prompts",
]
