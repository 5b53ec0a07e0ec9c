"""``--batch ray`` at the library level, on a local CPU Ray: DnA-Eval with swapped orders judged in rounds
that run as Ray Data jobs (``ray.data.llm``'s HTTP processor) against two local OpenAI-compatible servers
gives the synchronous judgments; a refused request is asked again; a driver killed (kill -9) during a
round's job is given up when run again, which asks only what is not in the cache.

Ray starts once for the module (3.5-9 s on this loaded 2-core machine; each round's job then takes 2-8 s,
and the module about 70 s); the commands' tests join it through ``RAY_ADDRESS`` rather than start one."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from faceteval.batch import RayRounds, run_in_passes
from faceteval.errors import MissingDependencyError
from faceteval.llm import Collector
from faceteval.store import SQLiteCache
from tests.support.batch_judging import (
    MODEL,
    REFUSAL,
    Refusing,
    judge_command,
    judging,
    judgments_in,
    llm,
    pairs,
    pairs_file,
    responder,
    seen,
    synchronous,
)
from tests.support.llm_server import Hold, LLMServer, Status
from tests.support.processes import run_to_end, start, wait_until

pytestmark = [
    pytest.mark.anyio,
    # Ray's own deprecations (its pydantic models' class-based config, its DataContext's settings), which
    # Python hides outside __main__: nothing faceteval or its user can act on
    pytest.mark.filterwarnings("ignore::DeprecationWarning:(ray|pydantic)(\\..*)?"),
]

PAIRS = pairs(12)  # instance 7 included: its re-asks are the third level


@pytest.fixture(scope="module")
def ray_local() -> Iterator[float]:
    """A local Ray of two CPUs and a small object store, for the module; how long it took to start."""
    import ray

    started = time.monotonic()
    ray.init(num_cpus=2, object_store_memory=100 * 1024 * 1024, include_dashboard=False, log_to_driver=False)
    yield time.monotonic() - started
    ray.shutdown()


@pytest.fixture
def servers() -> Iterator[tuple[LLMServer, LLMServer]]:
    with LLMServer(responder()) as first, LLMServer(responder()) as second:
        yield first, second


async def _judge_on_ray(servers: tuple[LLMServer, LLMServer], cache: SQLiteCache) -> Any:
    collector = Collector()
    judge = llm(servers[0], cache, collector)
    rounds = RayRounds(
        cache,
        identity=judge.identity,
        model=MODEL,
        urls=[s.base_url for s in servers],
        api_key="test",
        concurrency=1,
        batch_size=16,
    )
    return await judge.closing_after(lambda: run_in_passes(judging(PAIRS, judge), collector, rounds))


async def test_dna_with_swap_on_ray_gives_the_synchronous_judgments(
    ray_local: float, servers: tuple[LLMServer, LLMServer], tmp_path: Any
) -> None:
    with SQLiteCache(tmp_path / "sync.db") as sync_cache:
        expected = await synchronous(servers[0], sync_cache, PAIRS)
    sync_bodies = sorted(str(r.body) for r in servers[0].requests)
    for server in servers:
        server.reset()
    with SQLiteCache(tmp_path / "ray.db") as cache:
        outcome = await _judge_on_ray(servers, cache)
        rows = cache.batches.all()
    assert seen(outcome.result) == seen(expected)
    assert outcome.rounds == len(rows) == 3  # DnA's depth: aspects, scores, Q7's re-asks
    assert all(r.provider == "ray" and r.status == "imported" for r in rows)
    sent = [*servers[0].requests, *servers[1].requests]
    assert all(s.requests for s in servers)  # each endpoint answered a part of a round
    assert sorted(str(r.body) for r in sent) == sync_bodies  # the synchronous bodies, each sent once
    assert outcome.imported.imported == len(sent) and outcome.imported.cost_usd is None  # self-hosted


async def test_a_refused_request_is_asked_again_and_a_killed_drivers_job_given_up(
    ray_local: float, servers: tuple[LLMServer, LLMServer], tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with SQLiteCache(tmp_path / "sync.db") as sync_cache:
        expected = await synchronous(servers[0], sync_cache, PAIRS)
    calls = len(servers[0].requests)
    servers[0].reset()
    with SQLiteCache(tmp_path / "ray.db") as cache:
        cache.batches.uploaded(  # a job whose driver was killed: its requests are not known any more
            provider="ray", identity="x", model=MODEL, round=1, input_file_id="sha256:0", requests=9
        )
        servers[1].enqueue(Status(500))
        outcome = await _judge_on_ray(servers, cache)
        rows = cache.batches.all()
    assert seen(outcome.result) == seen(expected)
    assert (outcome.rounds, outcome.imported.failed) == (3, 1)  # refused, then asked with the next level
    assert [r.round for r in rows] == [1, 2, 3, 4]  # the killed driver's job, then this run's
    assert len(servers[0].requests) + len(servers[1].requests) == calls + 1
    assert "was running when its driver stopped" in caplog.text


def test_judge_with_batch_ray_writes_the_synchronous_judgments(
    ray_local: float, servers: tuple[LLMServer, LLMServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command joins the module's Ray at ``RAY_ADDRESS`` (a cluster's address, as a user gives it) and
    shares each round between its two ``--batch-endpoint`` servers."""
    import ray

    server = servers[0]
    source = pairs_file(tmp_path, len(PAIRS))
    sync = run_to_end(judge_command(source, server, tmp_path / "sync.jsonl", tmp_path / "sync.db"), 300)
    assert sync.returncode == 0, sync.stderr
    calls = len(server.requests)
    server.reset()
    monkeypatch.setenv("RAY_ADDRESS", ray.get_runtime_context().gcs_address)
    endpoints = [arg for s in servers for arg in ("--batch-endpoint", s.base_url)]
    command = judge_command(source, server, tmp_path / "ray.jsonl", tmp_path / "ray.db", "--batch", "ray")
    done = run_to_end([*command, *endpoints], 300)
    assert done.returncode == 0, done.stderr
    assert judgments_in(tmp_path / "ray.jsonl") == judgments_in(tmp_path / "sync.jsonl")
    assert all(s.requests for s in servers)  # each endpoint answered a part of the rounds
    assert len(servers[0].requests) + len(servers[1].requests) == calls  # every call once, by the jobs
    record = json.loads((tmp_path / "ray.run.json").read_text(encoding="utf-8"))
    assert record["batch"]["provider"] == "ray" and record["batch"]["rounds"] == 3
    assert record["spend"]["calls"] == 0


SCORE = "on one aspect only:"
"""What DnA's score prompts (its second level of calls) say."""


def test_a_driver_killed_during_a_round_asks_again_only_what_is_not_in_the_cache(
    ray_local: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kill -9 of ``judge --batch ray`` while round 2's job waits on a reply: the re-run gives the killed
    job up, sends none of round 1's requests again (they were in the cache), and gives the synchronous
    judgments."""
    import ray

    gate, held = threading.Event(), threading.Event()
    answer = responder()

    def respond(body: dict[str, Any]) -> Any:
        if (
            not gate.is_set()
            and SCORE in str(body["messages"])
            and "Q3\n" in str(body["messages"][-1]["content"])
        ):
            held.set()
            return Hold(gate)  # round 2's job waits here until the driver is killed
        return answer(body)

    with LLMServer(respond) as server:
        source = pairs_file(tmp_path, len(PAIRS))
        gate.set()
        sync = run_to_end(judge_command(source, server, tmp_path / "sync.jsonl", tmp_path / "sync.db"), 300)
        assert sync.returncode == 0, sync.stderr
        expected = sorted(str(r.body) for r in server.requests)
        server.reset()
        gate.clear()
        monkeypatch.setenv("RAY_ADDRESS", ray.get_runtime_context().gcs_address)
        command = judge_command(source, server, tmp_path / "ray.jsonl", tmp_path / "ray.db", "--batch", "ray")
        driver = start(command)
        try:
            wait_until(held.is_set, "round 2's job asked the held request", timeout=120)
        finally:
            driver.kill()
            driver.communicate(timeout=60)
            gate.set()
        first = [str(r.body) for r in server.requests]
        done = run_to_end(command, 300)
        assert done.returncode == 0, done.stderr
        again = [str(r.body) for r in server.requests][len(first) :]
    assert judgments_in(tmp_path / "ray.jsonl") == judgments_in(tmp_path / "sync.jsonl")
    assert "was running when its driver stopped" in done.stderr
    level_one = {body for body in first if SCORE not in body}
    assert level_one and not level_one & set(again)  # round 1 was in the cache: not asked again
    assert len(again) == len(set(again)) and sorted(set(first) | set(again)) == expected


def test_a_request_no_job_answers_is_sent_three_times_then_written_as_an_error(
    ray_local: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Instance 3's first request refused by the endpoint in every job: rounds 1-3 (aspects, scores,
    Q7's re-asks) answer the rest, rounds 4-6 nothing; the run writes the synchronous judgments of the
    others, instance 3's as an error with the endpoint's reason, and exits 5."""
    import ray

    refusing = Refusing(responder())
    with LLMServer(refusing) as server:
        source = pairs_file(tmp_path, len(PAIRS))
        sync = run_to_end(judge_command(source, server, tmp_path / "sync.jsonl", tmp_path / "sync.db"), 300)
        assert sync.returncode == 0, sync.stderr
        refusing.queries = {"Q3"}
        monkeypatch.setenv("RAY_ADDRESS", ray.get_runtime_context().gcs_address)
        command = judge_command(source, server, tmp_path / "ray.jsonl", tmp_path / "ray.db", "--batch", "ray")
        done = run_to_end(command, 300)
    assert done.returncode == 5, done.stderr
    judged, expected = judgments_in(tmp_path / "ray.jsonl"), judgments_in(tmp_path / "sync.jsonl")
    assert [j for j in judged if j["id"] != "3"] == [j for j in expected if j["id"] != "3"]
    (three,) = [j for j in judged if j["id"] == "3"]
    assert three["status"] == "error" and "BatchUnanswered" in three["error"] and REFUSAL in three["error"]
    with SQLiteCache(tmp_path / "ray.db") as cache:
        rows = [(row.round, row.requests) for row in cache.batches.all()]
    assert [r for r, _ in rows] == [1, 2, 3, 4, 5, 6] and [n for _, n in rows][3:] == [1, 1, 1]
    record = json.loads((tmp_path / "ray.run.json").read_text(encoding="utf-8"))["batch"]
    assert (record["rounds"], record["unanswered"]) == (6, 1)


def test_without_ray_it_says_which_extra_before_any_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    with (
        SQLiteCache(tmp_path / "c.db") as cache,
        pytest.raises(MissingDependencyError, match=r"faceteval\[ray\]"),
    ):
        RayRounds(cache, identity="x", model=MODEL, urls=["http://127.0.0.1:9/v1"])
