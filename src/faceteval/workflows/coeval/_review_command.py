"""``faceteval review import-coeval``: CoEval's released review as a review project, a ``review`` command
the family's spec adds (its review importer)."""

from __future__ import annotations

from pathlib import Path

import click

from faceteval._cli.kit import Console, data_dir_option, escape, handle_errors, made_for, review_project
from faceteval._util.text import plural

console = Console(highlight=False, soft_wrap=True, emoji=False)


@click.command("import-coeval")
@review_project
@click.option(
    "--task",
    "tasks",
    default="eli5,rocstories,selfinstruct",
    show_default=True,
    help="Comma-separated CoEval tasks to import.",
)
@data_dir_option
@handle_errors
def import_coeval_command(project: Path, tasks: str, data_dir: Path) -> None:
    """Import CoEval's released review (ChatGPT drafts, 5 annotators' actions and scores) into PROJECT."""
    from faceteval.review import ReviewStore
    from faceteval.workflows.coeval._review import import_coeval

    names = [name.strip() for name in tasks.split(",") if name.strip()]
    with made_for(project):
        summary = import_coeval(ReviewStore.open(project), data_dir, names)
    console.print(
        f"Imported {plural(summary.items, 'output')}, {plural(summary.drafts, 'ChatGPT evaluation')}, "
        f"{plural(summary.sentence_actions, 'sentence action')} and {plural(summary.scores, 'score')} of "
        f"{plural(len(summary.annotators), 'annotator')} into {escape(str(project))} "
        f"(tasks {escape(', '.join(summary.tasks))})."
    )
    if summary.unaligned:
        console.print(
            f"[yellow]{plural(len(summary.unaligned), 'action list')} "
            f"{'does' if len(summary.unaligned) == 1 else 'do'} not line up with their evaluation's "
            "sentences (kept whole; listed in each item's metadata):[/]"
        )
        for entry in summary.unaligned:
            console.print(
                f"  {escape(entry.item_id)} / {escape(entry.criterion)} / {escape(entry.annotator)}: "
                f"{plural(entry.actions, 'action')}, {plural(entry.sentences, 'sentence')}"
            )
