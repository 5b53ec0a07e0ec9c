"""Prompt templates (package data, one per method stage, kept beside its family's code) and rendering.

`Templates` of your own replace built-in ones by name, within `using_templates` (see
`faceteval.prompts._templates`).
"""

from faceteval.prompts._fence import fence, fence_inline
from faceteval.prompts._render import (
    BUILT_IN,
    Prompts,
    Template,
    add_templates,
    builtin_template,
    current_prompts,
    load_template,
    render,
    template_names,
)
from faceteval.prompts._templates import (
    Templates,
    overridable_names,
    prefix_cache_on,
    prefix_cache_order,
    prompts_of,
    recorded_prompts,
    slots,
    using_templates,
)

__all__ = [
    "BUILT_IN",
    "Prompts",
    "Template",
    "Templates",
    "add_templates",
    "builtin_template",
    "current_prompts",
    "fence",
    "fence_inline",
    "load_template",
    "overridable_names",
    "prefix_cache_on",
    "prefix_cache_order",
    "prompts_of",
    "recorded_prompts",
    "render",
    "slots",
    "template_names",
    "using_templates",
]
