"""``faceteval review``: the human review of LLM criteria and evaluations (CoEval)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table as RichTable

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, escape
from faceteval._cli._inputs import input_options, input_reading
from faceteval._cli._numbers import FiniteFloat
from faceteval._cli._options import force_flag
from faceteval._cli._projects import PROJECT, made_for
from faceteval._cli._serving import listen_on, serve_on
from faceteval._util.text import plural
from faceteval._web import url_of
from faceteval.report import Table as ReportTable
from faceteval.review.internal import ORDERS
from faceteval.store import OutputKind
from faceteval.store.internal import (
    HUMAN_LABELS,
    REVIEW_ACTIONS,
    REVIEW_SCORES,
    REVIEW_STATS,
    REVIEW_TABLES,
    check_distinct,
    check_outputs,
    write_atomic,
)

console = Console(highlight=False, soft_wrap=True, emoji=False)


SHARE = FiniteFloat(0, 1, min_open=True, max_open=True)


@click.group()
def review() -> None:
    """Review LLM-drafted criteria and evaluations in the browser, several annotators at once."""


@review.command("serve")
@PROJECT
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    help="Another name annotators reach the server by (repeatable); it answers to loopback's and --host's.",
)
@handle_errors
def serve(project: Path, host: str, port: int, allow_hosts: tuple[str, ...]) -> None:
    """Serve the review web app of PROJECT (created when missing) on http://HOST:PORT."""
    from faceteval.review import ReviewStore
    from faceteval.review.internal import create_app, is_loopback

    ReviewStore.open(project)
    app = create_app(project, host=host, allow_hosts=allow_hosts)
    listening = listen_on(host, port)  # bound first, so that the address printed is the one served
    if not is_loopback(host):
        console.print(
            f"[yellow]Serving on {escape(host)}: annotators sign in with their invite links "
            f"(faceteval review invite {escape(str(project))} NAME --base-url URL).[/]"
        )
    url = escape(url_of(host, listening))
    console.print(f"Review of {escape(str(project))} at {url} (Ctrl-C stops)")
    serve_on(app, listening)


@review.command("invite")
@PROJECT
@click.argument("name")
@click.option("--base-url", help="The app's address as annotators open it (default: http://HOST:PORT).")
@click.option("--host", default="127.0.0.1", show_default=True, help="The link's host, without --base-url.")
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True)
@click.option("--revoke", is_flag=True, help="Revoke NAME's invite links, and the sessions they opened.")
@handle_errors
def invite(project: Path, name: str, base_url: str | None, host: str, port: int, revoke: bool) -> None:
    """Print a link that signs NAME in to PROJECT's review app (the only way in beyond loopback)."""
    from faceteval.review import ReviewStore
    from faceteval.review.internal import base_address, invite_url, is_wildcard, new_invite

    store = ReviewStore.open(project, create=False)
    if revoke:
        if name not in store.annotators():
            raise click.UsageError(f"{project} has no annotator {name!r}")
        revoked = store.revoke_invites(name)
        console.print(
            f"Revoked {plural(revoked, 'invite link')} of {escape(name)} and the sessions they opened."
        )
        return
    if base_url is None:
        if is_wildcard(host):
            raise click.UsageError(f"{host} is every address: give --base-url, as annotators open the app")
        base_url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    base = base_address(base_url)  # checked before an invite is stored
    url = invite_url(base, new_invite(store, name))
    console.print(f"Invite link of {escape(name)} (whoever opens it reviews as {escape(name)}):")
    console.print(escape(url))


@review.command("import")
@PROJECT
@click.argument("judgments", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--input",
    "input_path",
    type=click.Path(exists=True, path_type=Path),
    help="The instances judged (default: the input named in the run record next to JUDGMENTS, read as "
    "the run read it).",
)
@click.option("--task", help="Task name (default: each instance's task, else the input file's name).")
@click.option(
    "--order",
    type=click.Choice(ORDERS),
    default="input",
    show_default=True,
    help="The order annotators meet the new items in: as the run lists them, the judge's least confident "
    "first, its most disagreeing orders or panel members first, or shuffled (ties at random).",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="The seed of --order's shuffle and ties."
)
@click.option(
    "--blind/--no-blind",
    default=None,
    help="Hide the judge's verdict, scores and explanations of an item until the annotator gives their "
    "preference or overall score (kept in the project; default: as it is, not blind in a new one).",
)
@click.option(
    "--target-width",
    type=SHARE,
    help="The width of the prediction-powered interval the labels aim for (kept; default 0.1: ±0.05).",
)
@click.option(
    "--target-agreement",
    type=SHARE,
    help="The agreement with humans calibration is to show (kept; default 0.9).",
)
@click.option(
    "--delta",
    type=SHARE,
    help="Calibration's risk of being wrong (kept; default 0.1).",
)
@input_options(what="the input")
@handle_errors
def import_command(
    project: Path,
    judgments: Path,
    input_path: Path | None,
    task: str | None,
    order: str,
    seed: int,
    blind: bool | None,
    target_width: float | None,
    target_agreement: float | None,
    delta: float | None,
    **flags: Any,
) -> None:
    """Import a `judge` run's LLM evaluations into PROJECT as drafts to review, queued in --order."""
    from faceteval.review import ReviewStore, import_run

    if input_path is not None and flags["hf_dataset"]:
        raise click.UsageError("give --input or --hf-dataset, not both")
    source = Path(flags["hf_dataset"]) if flags["hf_dataset"] else input_path
    reading = input_reading(flags)
    given = reading if not reading.plain or source is not None else None
    with made_for(project):
        store = ReviewStore.open(project)
        summary = import_run(
            store,
            judgments,
            input_path=source,
            task=task,
            reading=given,
            order=order,  # type: ignore[arg-type]  # one of ORDERS: click.Choice checked it
            seed=seed,
        )
        settings = store.update_settings(
            blind=blind, target_width=target_width, target_agreement=target_agreement, delta=delta
        )
    console.print(
        f"Imported {plural(summary.items, 'output')} ({summary.new:,} new) with "
        f"{plural(summary.drafts, 'criterion evaluation')} into {escape(str(project))}; "
        f"tasks: {escape(', '.join(summary.tasks))}."
        + (f" {plural(summary.skipped, 'failed judgment')} left out." if summary.skipped else "")
    )
    if summary.comparisons:
        console.print(f"Comparisons (every response side by side): {summary.comparisons:,}.")
    console.print(
        f"New items queued in {order} order (seed {seed})"
        + ("; blind: the judge's drafts show after an annotator's own label." if settings.blind else ".")
    )


@review.command("export")
@PROJECT
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Scores JSONL.")
@click.option(
    "--actions",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Action log JSONL (default: OUT with .actions.jsonl; none without --out).",
)
@click.option(
    "--labels",
    "labels_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Human labels JSONL: one line per labelled item (its label or scores, annotators, votes, "
    "sampling), as `judge --human-labels`, `calibrate` and `meta-eval --labels` read it.",
)
@force_flag("--out, --actions and --labels")
@handle_errors
def export(
    project: Path, out: Path | None, actions: Path | None, labels_path: Path | None, force: bool
) -> None:
    """Export every annotator's final scores and explanations, the log of every action, the human labels."""
    from faceteval.datasets import labels_jsonl
    from faceteval.review import ReviewStore
    from faceteval.review.internal import export_actions, export_scores, human_labels

    if out is None and actions is None and labels_path is None:
        raise click.UsageError("give --out (scores and actions), --actions or --labels: what to export")
    actions = actions or (out.with_name(f"{out.stem}.actions.jsonl") if out is not None else None)
    _check(
        project,
        force,
        ("--out", out, REVIEW_SCORES),
        ("--actions", actions, REVIEW_ACTIONS),
        ("--labels", labels_path, HUMAN_LABELS),
    )
    store = ReviewStore.open(project, create=False)
    labels = human_labels(store) if labels_path is not None else []
    if labels_path is not None and not labels:
        raise click.ClickException(
            f"{project} has no labels yet (no preference or overall score): nothing to write to {labels_path}"
        )
    if out is not None:
        rows = export_scores(store)
        _write(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        console.print(f"{plural(len(rows), 'reviewed output')} -> {escape(str(out))}")
    if actions is not None:
        log = export_actions(store)
        _write(actions, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in log))
        console.print(f"{plural(len(log), 'action')} -> {escape(str(actions))}")
    if labels_path is not None:
        _write(labels_path, labels_jsonl(labels))
        console.print(f"{plural(len(labels), 'labelled item')} -> {escape(str(labels_path))}")


def _check(project: Path, force: bool, *outputs: tuple[str, Path | None, OutputKind]) -> None:
    """Refuse outputs that would overwrite the project's database, each other, or files not ours."""
    from faceteval.review.internal import DATABASE

    check_distinct(*((option, path) for option, path, _ in outputs))
    database = project / DATABASE
    inputs = [database, *(database.with_name(f"{DATABASE}{end}") for end in ("-journal", "-wal", "-shm"))]
    for option, path, kind in outputs:
        if path is not None:
            check_outputs([(path, kind)], given=path, option=option, inputs=inputs, force=force)


def _write(path: Path, text: str) -> None:
    """Write an output file whole, its folder made as `judge --out` does; an error naming it if that fails.

    It holds the project's outputs and annotators' words, so a file (and folder) it makes is readable
    by its owner alone, 0600 (0700) whatever the umask, as every output is; a file it replaces keeps
    its mode.
    """
    write_atomic(path, text)


@review.command("stats")
@PROJECT
@click.option("--task", "tasks", multiple=True, help="Only this task (repeatable; default: every task).")
@click.option(
    "--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the numbers."
)
@click.option(
    "--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the tables."
)
@click.option(
    "--resamples",
    type=click.IntRange(0),
    default=1000,
    show_default=True,
    help="Bootstrap resamples for the correlations' 95% CIs (0: none).",
)
@force_flag("--json and --markdown")
@handle_errors
def stats(
    project: Path,
    tasks: tuple[str, ...],
    json_path: Path | None,
    markdown_path: Path | None,
    resamples: int,
    force: bool,
) -> None:
    """Action rates, score changes, agreement and LLM-human correlations of PROJECT (as in CoEval), the
    judge against the humans' labels, and how many more labels the project's targets need."""
    from faceteval.review import ReviewStore
    from faceteval.review.internal import render_stats_markdown, review_stats, stats_tables

    _check(project, force, ("--json", json_path, REVIEW_STATS), ("--markdown", markdown_path, REVIEW_TABLES))
    store = ReviewStore.open(project, create=False)
    numbers = review_stats(store, tasks=tasks or None, n_resamples=resamples)
    for table in stats_tables(numbers):
        console.print(_rich_table(table))
    if json_path is not None:
        _write(json_path, json.dumps(numbers, indent=2, ensure_ascii=False) + "\n")
        console.print(f"Numbers -> {escape(str(json_path))}")
    if markdown_path is not None:
        _write(markdown_path, render_stats_markdown(numbers))
        console.print(f"Tables -> {escape(str(markdown_path))}")


def _rich_table(table: ReportTable) -> RichTable:
    out = RichTable(
        title=escape(table.title or ""),
        title_justify="left",
        caption=escape(table.note or ""),
        caption_justify="left",
    )
    for index, column in enumerate(table.columns):
        out.add_column(escape(column), justify="right" if table.is_numeric(index) else "left")
    for row in table.rows:
        out.add_row(*(escape(cell) for cell in row))
    return out
