"""Prompt templates (package data, one per method stage) and their rendering."""

from faceteval.prompts._fence import fence, fence_inline
from faceteval.prompts._render import Template, load_template, render

__all__ = ["Template", "fence", "fence_inline", "load_template", "render"]
