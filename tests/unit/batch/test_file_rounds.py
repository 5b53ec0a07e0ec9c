"""``--batch files`` at the library level: DnA-Eval with swapped orders judged in rounds of request files,
each answered as ``vllm run-batch`` answers it and imported, gives the synchronous judgments; the import
reports bad lines by file and line, skips them, and is harmless when repeated."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from faceteval.batch import FileRounds, import_outputs, rounds_for, run_in_passes
from faceteval.batch._files import output_path
from faceteval.errors import BatchPending, ConfigError
from faceteval.llm import LLM, Collector, ModelSpec
from faceteval.llm._openai import OpenAIProvider
from faceteval.store import BatchRow, SQLiteCache
from tests.support.batch_judging import MODEL, judging, llm, pairs, responder, seen, synchronous
from tests.support.llm_server import LLMServer, Status
from tests.support.run_batch import run_batch

pytestmark = pytest.mark.anyio

PAIRS = pairs(30)


@pytest.fixture
def server() -> Iterator[LLMServer]:
    with LLMServer(responder()) as server:
        yield server


async def _run(server: LLMServer, cache: SQLiteCache, batch_dir: Path) -> object:
    """One run of the command: the judgments, or the `BatchPending` it stopped with."""
    collector = Collector()
    judge = llm(server, cache, collector)
    rounds = FileRounds(cache, batch_dir, identity=judge.identity, model=MODEL)
    try:
        return (
            await judge.closing_after(lambda: run_in_passes(judging(PAIRS, judge), collector, rounds))
        ).result
    except BatchPending as pending:
        return pending


def _requests(rows: list[BatchRow]) -> list[dict[str, Any]]:
    """The request lines of the files ``rows``, in order."""
    return [json.loads(line) for r in rows for line in Path(r.input_file_id).read_text().splitlines()]


def _waiting(cache: SQLiteCache) -> list[BatchRow]:
    return [row for row in cache.batches.pending("files")]


def _answer(server: LLMServer, cache: SQLiteCache) -> list[Path]:
    """The cluster's part: ``vllm run-batch`` on every waiting request file."""
    outs = []
    for row in _waiting(cache):
        outs.append(output_path(row))
        run_batch(server, Path(row.input_file_id), outs[-1])
    return outs


async def test_dna_with_swap_in_file_rounds_gives_the_synchronous_judgments(
    server: LLMServer, tmp_path: Path
) -> None:
    with SQLiteCache(tmp_path / "sync.db") as sync_cache:
        expected = await synchronous(server, sync_cache, PAIRS)
    calls = len(server.requests)
    server.reset()
    stops = []
    with SQLiteCache(tmp_path / "batch.db") as cache:
        while isinstance(outcome := await _run(server, cache, tmp_path / "rounds"), BatchPending):
            stops.append(str(outcome))
            assert len(server.requests) == sum(
                r.requests for r in cache.batches.all() if r.status == "imported"
            )
            report = import_outputs(cache, _answer(server, cache))
            assert (
                not report.problems
                and not report.waiting
                and report.tally.imported == report.completed[0].requests
            )
        rows = cache.batches.all()
    assert seen(outcome) == seen(expected)  # type: ignore[arg-type]
    assert len(stops) == len({r.round for r in rows}) == 3  # DnA's depth: aspects, scores, Q7's re-asks
    sent = [line["custom_id"] for line in _requests(rows)]
    assert len(sent) == len(set(sent)) == calls == len(server.requests)  # every call once, all from the files
    first = stops[0]
    (row,) = (r for r in rows if r.round == 1)
    assert f"vllm run-batch -i {row.input_file_id} -o {output_path(row)} --model {MODEL}" in first
    assert f"faceteval batch import {output_path(row)} --cache {tmp_path / 'batch.db'}" in first
    assert "Ray Data LLM" in first and "docs/batch-clusters.md" in first


async def test_a_round_is_written_in_prefix_order_within_the_limits(
    server: LLMServer, tmp_path: Path
) -> None:
    with SQLiteCache(tmp_path / "batch.db") as cache:
        collector = Collector()
        judge = llm(server, cache, collector)
        rounds = FileRounds(cache, tmp_path / "rounds", identity=judge.identity, model=MODEL)
        rounds.limits = type(rounds.limits)(requests=7, bytes=10**6)
        with pytest.raises(BatchPending) as stopped:
            await judge.closing_after(lambda: run_in_passes(judging(PAIRS, judge), collector, rounds))
        rows = cache.batches.all()
    bodies = [line["body"] for line in _requests(rows)]
    assert [r.requests for r in rows] == [7] * (len(bodies) // 7) + (
        [len(bodies) % 7] if len(bodies) % 7 else []
    )
    keys = [[(m["role"], m["content"]) for m in body["messages"]] for body in bodies]
    assert keys == sorted(keys)  # requests sharing a prefix are neighbours, across files too
    assert str(stopped.value).count("vllm run-batch -i ") == len(rows)
    assert all(row.provider == "files" and row.batch_id is None and row.model == MODEL for row in rows)


async def test_the_import_names_bad_lines_skips_them_and_is_harmless_twice(
    server: LLMServer, tmp_path: Path
) -> None:
    with SQLiteCache(tmp_path / "batch.db") as cache:
        assert isinstance(await _run(server, cache, tmp_path / "rounds"), BatchPending)
        server.enqueue(Status(500))  # the cluster refuses the first request: asked again in the next round
        (out,) = _answer(server, cache)
        lines = out.read_text().splitlines()
        stranger = json.loads(lines[1]) | {"custom_id": "not-asked"}
        out.write_text("\n".join([*lines, "{not json", json.dumps(stranger)]) + "\n")
        report = import_outputs(cache, [out])
        assert report.problems == [
            f"{out}:{len(lines) + 1}: not JSON (Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1))",
            f"{out}:{len(lines) + 2}: custom_id 'not-asked' is no request of a file waiting in {cache.path}",
        ]
        assert (report.tally.imported, report.tally.failed, report.tally.cost_usd) == (
            len(lines) - 1,
            1,
            None,
        )
        assert [r.status for r in cache.batches.all()] == ["imported"]
        again = import_outputs(cache, [out])
        assert (again.tally.imported, again.already, len(again.problems)) == (0, len(lines), 2)
        assert isinstance(stopped := await _run(server, cache, tmp_path / "rounds"), BatchPending)
        rows = cache.batches.all()
    assert "round 2:" in str(stopped)
    (refused,) = [
        json.loads(line)["custom_id"] for line in lines if json.loads(line)["response"]["status_code"] != 200
    ]
    assert refused in {
        line["custom_id"] for line in _requests(rows[1:])
    }  # asked again, with the second level's requests


async def test_a_file_answered_in_part_waits_and_a_lost_file_is_written_again(
    server: LLMServer, tmp_path: Path
) -> None:
    with SQLiteCache(tmp_path / "batch.db") as cache:
        assert isinstance(await _run(server, cache, tmp_path / "rounds"), BatchPending)
        (out,) = _answer(server, cache)
        lines = out.read_text().splitlines()
        out.write_text("\n".join(lines[:5]) + "\n")
        report = import_outputs(cache, [out])
        ((row, missing),) = report.waiting
        assert (report.tally.imported, missing) == (5, len(lines) - 5)
        assert isinstance(await _run(server, cache, tmp_path / "rounds"), BatchPending)  # still round 1
        assert [r.round for r in cache.batches.all()] == [1]
        os.unlink(row.input_file_id)
        stopped = await _run(server, cache, tmp_path / "rounds")  # the rest of round 1, written again
        rows = cache.batches.all()
    assert "round 2:" in str(stopped)
    second = {line["custom_id"] for line in _requests(rows[1:])}
    assert {json.loads(line)["custom_id"] for line in lines[5:]} <= second  # with answered ones next calls


def test_rounds_for_files_needs_a_directory_and_an_openai_compatible_model(tmp_path: Path) -> None:
    with SQLiteCache(tmp_path / "c.db") as cache:
        provider = OpenAIProvider(api_key="k", base_url="http://127.0.0.1:9/v1")
        judge = LLM(provider, ModelSpec.parse("openai:m"))
        rounds = rounds_for("files", judge, cache, directory=tmp_path / "rounds")
        assert isinstance(rounds, FileRounds) and rounds.model == "m" and rounds.identity == judge.identity
        with pytest.raises(ConfigError, match="--batch-dir"):
            rounds_for("files", judge, cache)
        with pytest.raises(ConfigError, match="--batch-endpoint is for --batch ray"):
            rounds_for("files", judge, cache, directory=tmp_path, endpoints=["http://127.0.0.1:9/v1"])
        claude = LLM(provider, ModelSpec.parse("anthropic:claude"))
        with pytest.raises(ConfigError, match="--batch anthropic"):
            rounds_for("files", claude, cache, directory=tmp_path)
