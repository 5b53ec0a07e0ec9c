"""A folder whose ``review.sqlite`` is not a review project this faceteval can open is refused, untouched.

Each review command that opens a project (``serve`` as a real process, the others through the command
line) is pointed at a folder holding another file of that name: empty, an SQLite database without
tables, faceteval's response cache, another program's database (rollback journal and WAL), a text file,
and a review project of a newer schema. Each is refused with an error naming the file and what it is,
and afterwards the file is byte for byte what it was and no file was added beside it (no ``-wal``,
``-shm`` or ``session.key``).
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval.review.internal import DATABASE
from faceteval.store import SQLiteCache
from tests.support.processes import SRC
from tests.support.review_project import build_project


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _no_tables(path: Path) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA user_version = 3")  # a header and nothing else


def _response_cache(path: Path) -> None:
    SQLiteCache(path).close()  # WAL journal, meta with a schema_version, as a review project has


def _other_program(path: Path) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.executescript("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann');")


def _other_program_in_wal(path: Path) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript("CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE notes (body TEXT);")
        db.execute("INSERT INTO meta VALUES ('schema_version', '2')")


def _text(path: Path) -> None:
    path.write_text("name,score\nann,3\n" * 20, encoding="utf-8")


def _newer_project(path: Path) -> None:
    """A project as a later faceteval may write it: a table of its own, one of this version's gone."""
    build_project(path.parent)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        db.execute("DROP TABLE finished")
        db.execute("CREATE TABLE progress (annotator TEXT, item_id TEXT)")


FOREIGN: dict[str, tuple[Callable[[Path], None], str]] = {
    "empty": (_empty, r"review\.sqlite is an empty file, not a review project"),
    "no tables": (_no_tables, r"review\.sqlite is an SQLite database but not a review project \(no tables\)"),
    "response cache": (
        _response_cache,
        r"review\.sqlite is an SQLite database but not a review project "
        r"\(tables: batch_refusals, batches, meta, responses\)",
    ),
    "other program": (
        _other_program,
        r"review\.sqlite is an SQLite database but not a review project \(tables: users\)",
    ),
    "other program in WAL": (
        _other_program_in_wal,
        r"review\.sqlite is an SQLite database but not a review project \(tables: meta, notes\)",
    ),
    "text": (_text, r"review\.sqlite is not an SQLite database, so not a review project"),
    "newer project": (_newer_project, r"review\.sqlite: written by a newer faceteval \(schema 99\)"),
}


def _foreign(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A folder holding a ``review.sqlite`` of ``kind``, and the pattern its refusal matches."""
    make, message = FOREIGN[kind]
    folder = tmp_path / "review"
    folder.mkdir()
    make(folder / DATABASE)
    (folder / "session.key").unlink(missing_ok=True)  # a newer project's own, made by build_project
    return folder, message


def _state(folder: Path) -> tuple[list[str], str]:
    """The names in ``folder`` and the SHA-256 of its ``review.sqlite``."""
    digest = hashlib.sha256((folder / DATABASE).read_bytes()).hexdigest()
    return sorted(p.name for p in folder.iterdir()), digest


def _commands(folder: Path, tmp_path: Path) -> dict[str, list[str]]:
    judgments = tmp_path / "judgments.jsonl"
    judgments.write_text('{"id": "1"}\n', encoding="utf-8")
    project = str(folder)
    return {
        "invite": ["review", "invite", project, "alice"],
        "revoke": ["review", "invite", project, "alice", "--revoke"],
        "import": ["review", "import", project, str(judgments)],
        "export": ["review", "export", project, "--out", str(tmp_path / "out" / "final.jsonl")],
        "stats": ["review", "stats", project],
        "import-coeval": ["review", "import-coeval", project, "--data-dir", str(tmp_path)],
    }


@pytest.mark.parametrize("kind", FOREIGN)
def test_every_review_command_refuses_a_file_that_is_not_a_review_project_and_leaves_it_untouched(
    tmp_path: Path, kind: str
) -> None:
    folder, message = _foreign(tmp_path, kind)
    before = _state(folder)
    for name, arguments in _commands(folder, tmp_path).items():
        result = CliRunner().invoke(cli, arguments)
        assert result.exit_code == 1, (name, result.output)
        assert re.search(message, result.output), (name, result.output)
        assert str(folder / DATABASE) in result.output, (name, result.output)  # (errors are not wrapped)
        assert _state(folder) == before, name
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", ["response cache", "other program", "newer project"])
def test_review_serve_refuses_a_file_that_is_not_a_review_project_and_leaves_it_untouched(
    tmp_path: Path, kind: str
) -> None:
    folder, message = _foreign(tmp_path, kind)
    before = _state(folder)
    served = subprocess.run(
        [sys.executable, "-m", "faceteval", "review", "serve", str(folder), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=False,
    )
    assert served.returncode == 1, served.stdout + served.stderr
    assert re.search(message, served.stderr), served.stderr
    assert _state(folder) == before
