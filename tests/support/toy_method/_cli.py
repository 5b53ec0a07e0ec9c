"""``faceteval toy``: the toy family's own command, registered from its spec."""

from __future__ import annotations

import click

from faceteval.prompts import render


@click.command("toy")
@click.option("--strictness", type=click.IntRange(1, 5), default=1, show_default=True)
def toy(strictness: int) -> None:
    """Show the system message the toy judge is sent."""
    (system, _) = render("toy/score", query="", candidates=[""], labels=["Response"], strictness=strictness)
    click.echo(system.content)
