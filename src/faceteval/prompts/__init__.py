"""Prompt templates (package data, one per method stage, kept beside its family's code) and rendering.

`Templates` of your own replace built-in ones by name, within `using_templates` (see
`faceteval.prompts._templates`).
"""

from faceteval.prompts._fence import fence, fence_inline
from faceteval.prompts._render import Prompts, Template, add_templates, load_template, render, template_names
from faceteval.prompts._templates import Templates, prefix_cache_order, slots, using_templates

__all__ = [
    "Prompts",
    "Template",
    "Templates",
    "add_templates",
    "fence",
    "fence_inline",
    "load_template",
    "prefix_cache_order",
    "render",
    "slots",
    "template_names",
    "using_templates",
]
