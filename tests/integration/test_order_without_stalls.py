"""One slow instance holds back neither the other instances' work (input order, spilled) nor their output
(``--order finish``); the judgments are the ordered run's; a run killed while it spills resumes to the same
output."""

from __future__ import annotations

import json
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import pytest

from faceteval import LLM, DnA, Instance, JudgeOptions, Judgment
from faceteval._runner import judge_each
from tests.support.llm_server import Hold, LLMServer
from tests.support.processes import released_when, run_to_end, start, wait_until
from tests.support.rule_judge import RuleJudge

N = 16
WINDOW = 2
SLOW = "Q0"
"""The query of the slow instance (the first: the head of every window)."""
WAIT = 120.0


def pairs() -> list[dict[str, Any]]:
    return [
        {"id": f"i{k:02d}", "query": f"Q{k}", "candidates": ["good", "poor"] if k % 2 else ["poor", "good"]}
        for k in range(N)
    ]


class SlowFirst:
    """A responder holding the slow instance's first call until `release`; the rest answered by rule."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.holding = True
        self._judge = RuleJudge(quality={"good": 9, "poor": 3}).for_server()

    def __call__(self, body: dict[str, Any]) -> Any:
        prompt = "\n".join(str(m.get("content")) for m in body["messages"])
        if self.holding and SLOW in prompt:
            self.holding = False
            return Hold(self.gate, timeout=WAIT)
        return self._judge(body)


def others_done(server: LLMServer, calls_each: int) -> Callable[[], bool]:
    """Every call of the other instances answered (of the requests from now on), the slow one's first
    call held."""
    base = server.request_count
    return lambda: server.request_count - base >= (N - 1) * calls_each + 1 and server.in_flight == 1


def calls_per_instance() -> int:
    with LLMServer(RuleJudge(quality={"good": 9, "poor": 3}).for_server()) as server:
        reference(server)
        assert server.request_count % N == 0
        return server.request_count // N


def reference(server: LLMServer) -> list[Judgment]:
    """The ordered run without a slow instance (the window large enough to hold everything)."""
    return run(server, JudgeOptions(trace=False, window=N))


def run(server: LLMServer, options: JudgeOptions) -> list[Judgment]:
    llm = LLM.from_spec("openai:judge", base_url=server.base_url, concurrency=WINDOW)
    written: list[Judgment] = []
    instances = [Instance(**p) for p in pairs()]

    async def judged() -> None:
        try:
            await judge_each(instances, DnA(), llm, options=options, sink=written.append)
        finally:
            await llm.aclose()

    anyio.run(judged)
    return written


@pytest.mark.parametrize("order", ["input", "finish"])
def test_the_other_instances_finish_while_the_slow_one_is_in_flight(order: str) -> None:
    calls = calls_per_instance()
    with LLMServer(RuleJudge(quality={"good": 9, "poor": 3}).for_server()) as plain:
        expected = reference(plain)
    responder = SlowFirst()
    with LLMServer(responder) as server:
        held = released_when(
            others_done(server, calls), responder.gate, "the other instances to finish", timeout=WAIT
        )
        written = run(server, JudgeOptions(trace=False, window=WINDOW, order=order))  # type: ignore[arg-type]
    assert held == [True], "the other instances waited for the slow one"
    ids = [j.id for j in written]
    if order == "finish":
        assert ids[-1] == "i00" and sorted(ids) == [j.id for j in expected]
    else:
        assert ids == [j.id for j in expected]
    assert sorted(j.model_dump_json() for j in written) == sorted(j.model_dump_json() for j in expected)


def test_a_run_killed_while_it_spills_resumes_to_the_ordered_output(tmp_path: Path) -> None:
    calls = calls_per_instance()
    source = tmp_path / "pairs.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in pairs()), encoding="utf-8")
    responder = SlowFirst()
    with LLMServer(responder) as server:
        base = ["faceteval", "judge", str(source), "--model", "openai:judge", "--base-url", server.base_url]
        cache = ["--cache", str(tmp_path / "cache.sqlite"), "--concurrency", str(WINDOW), "--quiet"]
        responder.holding = False
        ordered = run_to_end(_python([*base, "--out", str(tmp_path / "ref.jsonl"), "--no-cache"]), WAIT)
        assert ordered.returncode == 0, ordered.stderr
        responder.holding = True
        done = others_done(server, calls)
        child = start(_python(base + cache + ["--out", str(tmp_path / "out.jsonl")]))
        try:
            wait_until(done, "the other instances to finish", timeout=WAIT)
            # Answered is not yet stored: the kill comes once their replies are in the cache.
            stored = (N - 1) * calls
            cache_file = tmp_path / "cache.sqlite"
            wait_until(lambda: _cached(cache_file) >= stored, "their replies cached", timeout=WAIT)
        finally:
            child.send_signal(signal.SIGKILL)
            child.communicate(timeout=WAIT)
            responder.gate.set()
        answered = server.request_count
        resumed = run_to_end(_python(base + cache + ["--out", str(tmp_path / "out.jsonl")]), WAIT)
        assert resumed.returncode == 0, resumed.stderr
        assert server.request_count - answered == calls  # only the slow instance's calls: the rest cached
    assert _lines(tmp_path / "out.jsonl") == _lines(tmp_path / "ref.jsonl")


def _cached(cache: Path) -> int:
    """How many replies the response cache ``cache`` holds (0 before it exists)."""
    if not cache.is_file():
        return 0
    with closing(sqlite3.connect(f"file:{cache}?mode=ro", uri=True, timeout=WAIT)) as db:
        try:
            return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
        except sqlite3.OperationalError:  # not created yet
            return 0


def _python(argv: list[str]) -> list[str]:
    return [sys.executable, "-m", *argv]


def _lines(path: Path) -> list[dict[str, Any]]:
    """The judgments of an output, without what says whether a reply came from the cache (the trace as a
    set: an instance's concurrent calls are listed as they finish)."""
    return [_timeless(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]


def _timeless(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {k: _timeless(v) for k, v in value.items() if k not in {"cached", "attempts", "cached_calls"}}
        if "trace" in kept:
            kept["trace"] = sorted(kept["trace"], key=json.dumps)
        return kept
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def test_an_output_written_as_judgments_finish_is_recorded_counted_and_reused(tmp_path: Path) -> None:
    source = tmp_path / "pairs.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in pairs()), encoding="utf-8")
    records: dict[str, dict[str, Any]] = {}
    with LLMServer(RuleJudge(quality={"good": 9, "poor": 3}).for_server()) as server:
        base = ["faceteval", "judge", str(source), "--model", "openai:judge", "--base-url", server.base_url]
        base += ["--no-cache", "--quiet"]
        for order in ("input", "finish"):
            out = tmp_path / f"{order}.jsonl"
            done = run_to_end(_python([*base, "--order", order, "--out", str(out)]), WAIT)
            assert done.returncode == 0, done.stderr
            records[order] = json.loads(out.with_suffix(".run.json").read_text(encoding="utf-8"))
        before = server.request_count
        again = run_to_end(_python([*base, "--out", str(tmp_path / "finish.jsonl")]), WAIT)  # input order now
        assert again.returncode == 0, again.stderr
        assert server.request_count == before  # every judgment of the finish-ordered output reused
    assert "order" not in records["input"]["options"] and records["finish"]["options"]["order"] == "finish"
    by_id = sorted(_lines(tmp_path / "input.jsonl"), key=lambda j: j["id"])
    assert sorted(_lines(tmp_path / "finish.jsonl"), key=lambda j: j["id"]) == by_id
    assert records["input"]["summary"]["result"] == records["finish"]["summary"]["result"]
