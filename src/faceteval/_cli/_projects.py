"""A review project on the command line: its argument, and a project an import creates removed again if
the import fails (the CLI's ``review`` commands and the families' review importers share them)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import click

PROJECT = click.argument("project", type=click.Path(file_okay=False, path_type=Path))


@contextmanager
def made_for(project: Path) -> Iterator[None]:
    """A project this import creates is removed again if the import fails: a re-run starts clean."""
    from faceteval.review.internal import DATABASE

    made_dir, made_database = not project.exists(), not (project / DATABASE).exists()
    try:
        yield
    except BaseException:
        if made_database:
            for suffix in ("", "-journal", "-wal", "-shm"):
                (project / f"{DATABASE}{suffix}").unlink(missing_ok=True)
        if made_dir:
            with suppress(OSError):  # only if empty: nothing but what this import made is removed
                project.rmdir()
        raise
