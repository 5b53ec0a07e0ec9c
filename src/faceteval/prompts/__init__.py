"""Prompt templates (package data, one per method stage) and their rendering."""

from faceteval.prompts._render import Template, fence, load_template, render

__all__ = ["Template", "fence", "load_template", "render"]
