"""``faceteval criteria show``: a criteria tree, read from its file or an evaluator directory.

A module of its own, so that showing a tree file imports none of what the ``hdeval`` commands run
(the engine, meta-evaluation, scikit-learn): a directory's evaluator is loaded when one is shown.
"""

from __future__ import annotations

from pathlib import Path

import click

from faceteval._cli.kit import handle_errors
from faceteval.methods.hdeval import load_tree, render_tree
from faceteval.workflows.hdeval._cli._shared import console

__all__ = ["show"]


@click.command("show")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@handle_errors
def show(path: Path) -> None:
    """Show a criteria tree file, or an evaluator directory's tree with each criterion's importance."""
    if path.is_dir():
        from faceteval.workflows.hdeval._evaluator import load_evaluator, read_summary

        evaluator = load_evaluator(path)
        summary = read_summary(path)
        nodes = summary.get("tree", [])
        console.print(
            render_tree(
                evaluator.tree,
                importance={n["id"]: n["importance"] for n in nodes},
                expanded={n["id"] for n in nodes if n.get("expanded")},
            )
        )
        return
    console.print(render_tree(load_tree(path)))
