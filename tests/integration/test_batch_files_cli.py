"""``faceteval judge --batch files --batch-dir DIR``: each run writes a round's request files and exits 4
saying what to run; ``vllm run-batch`` (played by the local server) answers them, ``faceteval batch
import`` brings the replies in, and the run that finds them all writes the synchronous judgments."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.batch_judging import judge_command, judgments_in, pairs_file, responder
from tests.support.llm_server import LLMServer
from tests.support.processes import run_to_end
from tests.support.run_batch import run_batch

WAIT = 300.0
PAIRS = 12
RUN_BATCH = re.compile(r"vllm run-batch -i (\S+) -o (\S+) --model judge")


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(responder()) as server:
        yield server


def test_rounds_of_files_answered_by_run_batch_give_the_synchronous_judgments(
    server: LLMServer, tmp_path: Path
) -> None:
    source = pairs_file(tmp_path, PAIRS)
    sync = run_to_end(judge_command(source, server, tmp_path / "sync.jsonl", tmp_path / "sync.db"), WAIT)
    assert sync.returncode == 0, sync.stderr
    calls = len(server.requests)
    server.reset()
    cache, rounds = tmp_path / "batch.db", tmp_path / "rounds"
    command = judge_command(
        source, server, tmp_path / "batch.jsonl", cache, "--batch", "files", "--batch-dir", str(rounds)
    )
    stops = 0
    while (done := run_to_end(command, WAIT)).returncode == 4:
        stops += 1
        assert not (tmp_path / "batch.jsonl").exists()  # nothing is written until the last round is in
        files = RUN_BATCH.findall(done.stderr)
        assert files and f"round {stops}:" in done.stderr, done.stderr
        for shard, out in files:
            run_batch(server, Path(shard), Path(out))
        (imported,) = re.findall(r"faceteval batch import (.+) --cache (\S+)", done.stderr)
        assert imported[1] == str(cache)
        again = run_to_end(
            [
                sys.executable,
                "-m",
                "faceteval",
                "batch",
                "import",
                *imported[0].split(),
                "--cache",
                str(cache),
            ]
        )
        assert again.returncode == 0 and "Every request file is imported" in again.stdout, again.stderr
        assert stops < 5, done.stderr
    assert done.returncode == 0, done.stderr
    assert stops == 3  # DnA's depth: aspects, scores, Q7's re-asks
    assert judgments_in(tmp_path / "batch.jsonl") == judgments_in(tmp_path / "sync.jsonl")
    assert len(server.requests) == calls  # every call once, all through the files
    record = json.loads((tmp_path / "batch.run.json").read_text(encoding="utf-8"))
    assert record["spend"]["calls"] == 0


def test_files_without_a_directory_or_with_endpoints_is_a_usage_error(
    server: LLMServer, tmp_path: Path
) -> None:
    command = judge_command(
        pairs_file(tmp_path, PAIRS), server, tmp_path / "out.jsonl", tmp_path / "c.db", "--batch", "files"
    )
    done = run_to_end(command, WAIT)
    assert done.returncode == 2 and "--batch-dir" in done.stderr
    elsewhere = [*command, "--batch-dir", str(tmp_path), "--batch-endpoint", server.base_url]
    done = run_to_end(elsewhere, WAIT)
    assert done.returncode == 2 and "--batch-endpoint is used with --batch ray" in done.stderr
