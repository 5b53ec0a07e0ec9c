"""``faceteval batch import`` in a child process: the replies of a ``vllm run-batch`` output go into the
cache a ``--batch files`` run uses; bad lines are named by file and line and skipped (exit 1); importing
again is harmless."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from faceteval.batch import FileRounds, run_in_passes
from faceteval.batch._files import output_path
from faceteval.errors import BatchPending
from faceteval.llm import Collector
from faceteval.store import SQLiteCache
from tests.support.batch_judging import MODEL, judging, llm, pairs, responder
from tests.support.llm_server import LLMServer
from tests.support.processes import run_to_end
from tests.support.run_batch import run_batch

PAIRS = pairs(4)


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(responder()) as server:
        yield server


def _first_round(server: LLMServer, path: Path) -> tuple[Path, int]:
    """A first round written as a request file and answered as ``vllm run-batch`` does: the output file,
    and how many requests it answers."""

    async def run() -> None:
        collector = Collector()
        judge = llm(server, cache, collector)
        rounds = FileRounds(cache, path.parent / "rounds", identity=judge.identity, model=MODEL)
        with pytest.raises(BatchPending):
            await judge.closing_after(lambda: run_in_passes(judging(PAIRS, judge), collector, rounds))

    with SQLiteCache(path) as cache:
        anyio.run(run)
        (row,) = cache.batches.all()
    run_batch(server, Path(row.input_file_id), output_path(row))
    return output_path(row), row.requests


def _import(*args: str | Path) -> tuple[int, str, str]:
    done = run_to_end([sys.executable, "-m", "faceteval", "batch", "import", *map(str, args)])
    return done.returncode, done.stdout, done.stderr


def test_the_replies_go_into_the_cache_and_importing_again_is_harmless(
    server: LLMServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.db"
    out, requests = _first_round(server, cache)
    status, stdout, stderr = _import(out, "--cache", cache)
    assert (status, stderr) == (0, "")
    assert f"imported {requests:,} replies into {cache}" in stdout and "unpriced" in stdout
    assert "Every request file is imported: run the command again to go on." in stdout
    with SQLiteCache(cache) as opened:
        assert len(opened) == requests and [r.status for r in opened.batches.all()] == ["imported"]
    status, stdout, stderr = _import(out, "--cache", cache)
    assert (status, stderr) == (0, "")
    assert "imported 0 replies" in stdout and f"{requests:,} replies were already in the cache" in stdout


def test_bad_lines_are_named_and_skipped(server: LLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.db"
    out, requests = _first_round(server, cache)
    lines = out.read_text().splitlines()
    stranger = json.dumps(json.loads(lines[0]) | {"custom_id": "nobody"})
    out.write_text("\n".join([lines[0], "[1, 2]", stranger, *lines[1:]]) + "\n")
    status, stdout, stderr = _import(out, "--cache", cache)
    assert status == 1
    assert f"imported {requests:,} replies" in stdout
    assert f"{out}:2: no custom_id" in stderr.replace("\n", "")
    assert f"{out}:3: custom_id 'nobody' is no request of a file waiting in {cache}" in stderr.replace(
        "\n", ""
    )


def test_a_partial_output_leaves_its_file_waiting(server: LLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.db"
    out, requests = _first_round(server, cache)
    out.write_text(out.read_text().splitlines()[0] + "\n")
    status, stdout, _ = _import(out, "--cache", cache)
    assert status == 0
    assert f"({requests - 1:,} of {requests:,} without a reply)" in stdout
    assert "Every request file is imported" not in stdout


def test_a_cache_that_is_not_there_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "out.jsonl").write_text("")
    status, _, stderr = _import(tmp_path / "out.jsonl", "--cache", tmp_path / "none.db")
    assert status == 2 and "is no response cache" in stderr
