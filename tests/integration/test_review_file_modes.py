"""What faceteval makes of a review project, and the files the review commands write, are readable by
their owner alone, whatever the umask: folders 0700, files 0600 (they hold the prompts and candidates).

The umask is the usual 022, under which a file is made 0644 and a folder 0755 unless asked otherwise.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval.review import OVERALL, ReviewStore
from faceteval.review.internal import DATABASE
from tests.support.review_project import build_project, serve


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_project_review_serve_makes_is_its_owners_alone_with_its_wal_files(tmp_path: Path) -> None:
    project = tmp_path / "lab" / "spring" / "review"
    with serve(project) as base:  # made by the server, with the folders above it
        with httpx2.Client(base_url=base, headers={"Origin": base}) as http:
            assert http.post("/signin", data={"annotator": "alice"}).status_code == 303
        written = {name: mode(project / name) for name in (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm")}
        assert written == dict.fromkeys(written, 0o600)
        assert mode(project / "session.key") == 0o600
    for folder in (tmp_path / "lab", tmp_path / "lab" / "spring", project):
        assert mode(folder) == 0o700, folder
    assert [p.name for p in project.iterdir() if p.name.startswith(".")] == []  # nothing left of making it


def test_a_folder_given_keeps_its_mode_and_the_database_made_in_it_is_the_owners(tmp_path: Path) -> None:
    project = tmp_path / "review"
    project.mkdir(mode=0o750)
    ReviewStore.open(project)
    assert (mode(project), mode(project / DATABASE)) == (0o750, 0o600)


def test_the_files_review_export_and_stats_write_are_their_owners_alone(tmp_path: Path) -> None:
    store = build_project(tmp_path / "review")
    store.add_annotator("alice")
    store.set_score("q1", "Clarity", "alice", 2)
    store.set_score("q1", OVERALL, "alice", 3)
    out = tmp_path / "exports" / "spring"
    for arguments in (
        ["export", "--out", str(out / "final.jsonl")],
        ["stats", "--json", str(out / "stats.json"), "--markdown", str(out / "stats.md"), "--resamples", "0"],
    ):
        result = CliRunner().invoke(cli, ["review", arguments[0], str(tmp_path / "review"), *arguments[1:]])
        assert result.exit_code == 0, result.output
    written = {path.name: mode(path) for path in out.iterdir()}
    assert written == dict.fromkeys(["final.jsonl", "final.actions.jsonl", "stats.json", "stats.md"], 0o600)
    assert (mode(tmp_path / "exports"), mode(out)) == (0o700, 0o700)
    assert "alice" in (out / "final.jsonl").read_text(encoding="utf-8")
