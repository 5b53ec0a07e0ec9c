"""Prompt templates (package data, one per method stage, kept beside its family's code) and rendering."""

from faceteval.prompts._fence import fence, fence_inline
from faceteval.prompts._render import Template, add_templates, load_template, render, template_names

__all__ = ["Template", "add_templates", "fence", "fence_inline", "load_template", "render", "template_names"]
