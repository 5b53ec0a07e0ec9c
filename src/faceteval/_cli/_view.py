"""``faceteval view``: a local web viewer of any run."""

from __future__ import annotations

import os
from pathlib import Path

import click

from faceteval._cli._app import handle_errors
from faceteval._cli._console import Console, escape
from faceteval._cli._serving import listen_on, serve_on
from faceteval._web import url_of
from faceteval.errors import ConfigError, FacetevalError

console = Console(highlight=False, soft_wrap=True, emoji=False)

DEFAULT_PORT = 8090


def default_index_folder() -> Path:
    """``$XDG_CACHE_HOME/faceteval/view``, else under ``~/.cache``: where the indexes of runs are kept."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "faceteval" / "view"


@click.command()
@click.argument("runs", nargs=-1, type=click.Path(path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="A loopback address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True)
@click.option(
    "--index-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the indexes of the runs' lines are kept [default: $XDG_CACHE_HOME/faceteval/view].",
)
@handle_errors
def view(runs: tuple[Path, ...], host: str, port: int, index_dir: Path | None) -> None:
    """Browse runs on http://HOST:PORT: each run's result, its items to filter, each item whole.

    RUN is a judge output (out.jsonl or out.run.json), a meta-eval directory, an HD-Eval evaluator
    directory, a correct or bridge output, or a directory holding runs (searched a few levels deep).
    Without RUN, the runs in the working directory.
    """
    from faceteval.viewer.internal import create_app, find_runs

    paths = runs or (Path("."),)
    found, problems = find_runs(paths)
    if not found and not runs:
        raise FacetevalError(
            "the working directory holds no run: give faceteval view a judge output (out.jsonl or "
            "out.run.json), a meta-eval directory, an HD-Eval evaluator directory, or a correct or bridge "
            "output (or a directory holding them)"
        )
    if not found and len(problems) == 1:  # one cause, said once
        raise FacetevalError(problems[0])
    for problem in problems:
        console.print(f"[yellow]{escape(problem)}[/]")
    if not found:
        raise FacetevalError(f"none of the {len(problems)} paths given is or holds a run (each said above)")
    try:
        app = create_app(paths, index_folder=index_dir or default_index_folder(), host=host)
    except ConfigError as exc:  # not a loopback address
        raise click.UsageError(str(exc)) from None
    listening = listen_on(host, port)  # bound first, so that the address printed is the one served
    console.print(f"{len(found)} run(s) at {escape(url_of(host, listening))} (Ctrl-C stops)")
    serve_on(app, listening)
