"""What faceteval makes that holds prompts, candidates or replies is its owner's alone, whatever the
umask: outputs, run records, meta-evaluation runs and their reports, the response cache (with its
-wal and -shm), the batch ledger's request files, the run viewer's index: files 0600, the folders made
for them 0700. A folder that was there, and a file replaced, keep their modes."""

from __future__ import annotations

import os
import re
import stat
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli
from tests.support.files import write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge
from tests.support.view_runs import view

PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1},
    {"id": "b", "query": "Name a prime.", "candidates": ["poor", "good"], "label": 2},
]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The umask most systems start with (022: files 0644, folders 0755 by default)."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(RuleJudge(quality={"good": 9, "poor": 3}, record=False).for_server()) as running:
        yield running


def invoke(*args: str | Path) -> None:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def made_under(root: Path) -> dict[str, int]:
    """The mode of every file and folder under ``root``, by its path from there."""
    return {str(p.relative_to(root)): mode(p) for p in sorted(root.rglob("*"))}


def test_outputs_records_runs_and_the_cache_are_the_owner_s_alone(
    tmp_path: Path, server: LLMServer, open_umask: None
) -> None:
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    made = tmp_path / "made"
    made.mkdir(mode=0o755)  # the user's folder
    local = ["--model", "openai:judge", "--base-url", server.base_url, "--cache", made / "cache" / "c.sqlite"]
    invoke(
        "judge", pairs, "--method", "direct", *local, "--quiet", "--out", made / "runs" / "new" / "j.jsonl"
    )
    invoke("meta-eval", pairs, "--method", "direct", *local, "--resamples", "0", "--out", made / "me")
    modes = made_under(made)
    assert {"runs/new/j.jsonl", "runs/new/j.run.json", "cache/c.sqlite", "me/summary.json"} <= set(modes)
    assert {"me/report.html", "me/judgments.jsonl", "me/instances.jsonl"} <= set(modes)
    folders = {name for name in modes if (made / name).is_dir()}
    assert {"runs", "runs/new", "cache", "me"} <= folders
    assert {name: m for name, m in modes.items() if m != (0o700 if name in folders else 0o600)} == {}
    assert mode(made) == 0o755  # made by the test, not by faceteval: as it was


def test_a_file_replaced_keeps_its_mode_and_a_folder_there_is_left_as_it_is(
    tmp_path: Path, server: LLMServer, open_umask: None
) -> None:
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    local = ["--model", "openai:judge", "--base-url", server.base_url, "--no-cache", "--quiet"]
    invoke("judge", pairs, "--method", "direct", *local, "--out", shared / "j.jsonl")
    assert (mode(shared), mode(shared / "j.jsonl"), mode(shared / "j.run.json")) == (0o755, 0o600, 0o600)
    (shared / "j.jsonl").chmod(0o640)  # the owner let the group read it
    invoke("judge", pairs, "--method", "direct", *local, "--swap", "--out", shared / "j.jsonl")
    assert mode(shared / "j.jsonl") == 0o640 and mode(shared / "j.run.json") == 0o600


def test_the_view_index_is_the_owner_s_alone(tmp_path: Path, server: LLMServer, open_umask: None) -> None:
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    out = tmp_path / "j.jsonl"
    local = ["--model", "openai:judge", "--base-url", server.base_url, "--no-cache", "--quiet"]
    invoke("judge", pairs, "--method", "direct", *local, "--out", out)
    index = tmp_path / "cache" / "faceteval" / "view"
    with view(out, index_dir=index) as base:
        with urllib.request.urlopen(f"{base}/") as page:
            run = re.findall(r'href="(/run/[0-9a-f]+)"', page.read().decode())[0]
        with urllib.request.urlopen(f"{base}{run}/item?line=1") as page:  # (the run's lines, indexed)
            assert "Explain rain." in page.read().decode()
        listed = [p for p in index.iterdir() if p.suffix == ".sqlite"]
        assert listed, "the viewer made no index"
    modes = made_under(tmp_path / "cache")
    assert {
        name: m
        for name, m in modes.items()
        if m != (0o700 if (tmp_path / "cache" / name).is_dir() else 0o600)
    } == {}
