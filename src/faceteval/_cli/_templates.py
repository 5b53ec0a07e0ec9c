"""``faceteval templates``: the built-in prompt templates, to read and to copy into a ``--templates`` DIR."""

from __future__ import annotations

import sys

import click

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, escape
from faceteval._cli._options import TemplatesDir
from faceteval._util.text import did_you_mean
from faceteval.errors import ConfigError
from faceteval.methods import method_names
from faceteval.prompts import Templates, slots
from faceteval.prompts.internal import BUILT_IN, builtin_template, overridable_names

console = Console(highlight=False, soft_wrap=True, emoji=False)


@click.group()
def templates() -> None:
    """The prompt templates every method renders: list them, show one to copy into your --templates DIR."""


@templates.command("list")
@click.option(
    "--templates",
    "given",
    type=TemplatesDir(),
    help="A directory of templates of your own: each is checked, and shown where it replaces a built-in one.",
)
@handle_errors
def list_command(given: Templates | None) -> None:
    """Every template's name, hash and origin, and the slots it is given (those it must use marked *).

    \b
    Examples:
      faceteval templates list
      faceteval templates show dna/score > my-templates/dna/score.j2
      faceteval templates list --templates my-templates
    """
    method_names()  # every family's (and plugin's) templates registered
    chosen = given or Templates()
    width = max(len(name) for name in overridable_names())
    for name in overridable_names():
        template = chosen.get(name)
        used, needed = slots(builtin_template(name).source)
        shown = ", ".join(f"{slot}*" if slot in needed else slot for slot in sorted(used))
        origin = "built-in" if template.origin == BUILT_IN else template.origin
        console.print(f"{escape(name):<{width}}  {template.sha256[:12]}  {escape(origin)}\n  slots: {shown}")
    console.print(
        "A file DIR/<template>.j2 replaces the built-in template of that name (--templates DIR, or "
        'templates = "DIR" in faceteval.toml).'
    )


@templates.command("show")
@click.argument("name")
@handle_errors
def show_command(name: str) -> None:
    """Print the built-in template NAME as it is, to copy and edit.

    \b
    Examples:
      faceteval templates show hdeval/evaluate/summarization
      mkdir -p mine/dna && faceteval templates show dna/score > mine/dna/score.j2
    """
    method_names()
    known = overridable_names()
    if name not in known:
        hint = did_you_mean(name, known)
        raise ConfigError(
            f"no built-in template is named {name!r}{hint}; the templates are {', '.join(known)}"
        )
    sys.stdout.write(builtin_template(name).source)


__all__ = ["templates"]
