"""``faceteval toy`` and ``faceteval toy-tally``: the toy family's own commands, registered from its spec."""

from __future__ import annotations

import json
from pathlib import Path

import click

from faceteval.prompts import render
from faceteval.store import record_path_for

from ._records import TallyRecord, TallySummary


@click.command("toy")
@click.option("--strictness", type=click.IntRange(1, 5), default=1, show_default=True)
def toy(strictness: int) -> None:
    """Show the system message the toy judge is sent."""
    (system, _) = render("toy/score", query="", candidates=[""], labels=["Response"], strictness=strictness)
    click.echo(system.content)


@click.command("toy-tally")
@click.argument("judgments", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
def tally(judgments: Path, out: Path) -> None:
    """Tally who won each judgment, with a run record of the toy's own kind."""
    lines = [json.loads(line) for line in judgments.read_text(encoding="utf-8").splitlines() if line]
    winners = [{"id": line["id"], "toy_winner": line.get("verdict")} for line in lines]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(winner) + "\n" for winner in winners), encoding="utf-8")
    summary = TallySummary(tallied=len(winners), first=sum(w["toy_winner"] == 1 for w in winners))
    record = TallyRecord(output=out.name, summary=summary).finished()
    record_path_for(out).write_text(record.to_json(), encoding="utf-8")


@click.command("import-toy")
@click.argument("project", type=click.Path(file_okay=False, path_type=Path))
@click.argument("judgments", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("instances", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_toy(project: Path, judgments: Path, instances: Path) -> None:
    """Import a toy run into PROJECT, one task for the toy (the family's review importer)."""
    from faceteval.review import ReviewStore, import_run

    store = ReviewStore.open(project)
    store.add_task("toy strictness", "How the toy judge scored each response.", scale=(1.0, 10.0))
    summary = import_run(store, judgments, input_path=instances, task="toy strictness")
    click.echo(f"imported {summary.items} toy items")
