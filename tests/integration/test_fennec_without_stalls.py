"""``correct`` and ``bridge`` with one slow item: the items after it go on while it is held (their results
wait in the spill), and the output is the uninterrupted run's, in input order; a ``correct`` run killed
while it spills resumes from the cache to the same output."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from faceteval import LLM, Instance, judge
from faceteval.llm import ModelSpec, ScriptedProvider
from faceteval.methods.fennec import Fennec
from faceteval.prompts import fence
from faceteval.workflows.fennec._bridge import BridgeRecord, bridge_each
from faceteval.workflows.fennec._bridge_sources import BridgeSource, load_sources
from faceteval.workflows.fennec._correct import Correction, CorrectOptions, correct_each
from faceteval.workflows.fennec._correctable import Correctable, load_correctable
from tests.support.bridge_judge import BridgeJudge
from tests.support.fennec_judge import FennecJudge
from tests.support.llm_server import Hold, LLMServer
from tests.support.processes import released_when, run_to_end, start, wait_until

N = 12
WINDOW = 2
WAIT = 120.0
Responder = Callable[[dict[str, Any]], Any]


class SlowFirst:
    """Holds the first request whose prompt holds ``marker`` until `gate` is set; the rest by ``rule``."""

    def __init__(self, rule: Responder, marker: str) -> None:
        self.gate = threading.Event()
        self.rule = rule
        self.marker = marker
        self.holding = True
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Any:
        prompt = "\n".join(str(m.get("content")) for m in body["messages"])
        with self._lock:
            hold = self.holding and self.marker in prompt
            self.holding = self.holding and not hold
        return Hold(self.gate, timeout=WAIT) if hold else self.rule(body)


def released_when_the_rest_is_done(server: LLMServer, calls: int, gate: threading.Event) -> list[bool]:
    """Set ``gate`` once ``calls`` requests came and only the held one is in flight (every other item
    done), or, failing, after `WAIT`; the list says whether that happened."""
    done = lambda: server.request_count >= calls and server.in_flight == 1  # noqa: E731
    return released_when(done, gate, "the other items to finish while the first is held", timeout=WAIT)


def served_llm(server: LLMServer) -> LLM:
    return LLM.from_spec("openai:judge", base_url=server.base_url, concurrency=WINDOW)


def correct_with(server: LLMServer, items: list[Correctable]) -> list[Correction]:
    llm, out = served_llm(server), []

    async def go() -> None:
        try:
            await correct_each(items, llm, options=CorrectOptions(window=WINDOW), sink=out.append)
        finally:
            await llm.aclose()

    anyio.run(go)
    return out


def bridge_with(server: LLMServer, sources: Sequence[BridgeSource]) -> list[BridgeRecord]:
    llm, out = served_llm(server), []

    async def go() -> None:
        try:
            await bridge_each(sources, llm, sink=out.append, window=WINDOW)
        finally:
            await llm.aclose()

    anyio.run(go)
    return out


def judged_files(tmp_path: Path, n: int) -> tuple[Path, Path]:
    """Fennec judgments of ``n`` pairs whose responses all score 2 (below the threshold: each is
    rewritten), and the pairs."""
    instances = [Instance(id=str(i), query=f"Question {i}?", candidates=(f"a{i}", f"b{i}")) for i in range(n)]
    scripted = LLM(ScriptedProvider(FennecJudge(scorer=lambda _t, _c: 2).for_provider()), ModelSpec("s", "j"))
    judgments = judge(instances, Fennec(), scripted)
    assert all(j.status == "ok" for j in judgments)
    (tmp_path / "j.jsonl").write_text("".join(j.model_dump_json() + "\n" for j in judgments), "utf-8")
    (tmp_path / "i.jsonl").write_text("".join(i.model_dump_json() + "\n" for i in instances), "utf-8")
    return tmp_path / "j.jsonl", tmp_path / "i.jsonl"


@pytest.fixture
def correctable(tmp_path: Path) -> list[Correctable]:
    return load_correctable(*judged_files(tmp_path, N))


def test_correct_goes_on_past_a_slow_item_and_writes_in_input_order(correctable: list[Correctable]) -> None:
    with LLMServer(FennecJudge().for_server()) as plain:
        expected = correct_with(plain, correctable)
        calls = plain.request_count
    assert calls == 2 * N and all(c.status == "corrected" for c in expected)
    responder = SlowFirst(FennecJudge().for_server(), "Question 0?")
    with LLMServer(responder) as server:
        held = released_when_the_rest_is_done(server, calls, responder.gate)
        written = correct_with(server, correctable)
    assert held == [True], "the other items waited for the slow one"
    assert [_same(c) for c in written] == [_same(c) for c in expected]


def test_bridge_goes_on_past_a_slow_source_and_writes_in_input_order() -> None:
    data = os.environ.get("FACETEVAL_DATA_DIR")
    assert data, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    sources = load_sources("prometheus-mtbench", Path(data), limit=N)
    assert len(sources) == N
    with LLMServer(BridgeJudge().for_server()) as plain:
        expected = bridge_with(plain, sources)
        calls = plain.request_count
    assert calls == 3 * N and all(r.status == "ok" for r in expected)
    responder = SlowFirst(BridgeJudge().for_server(), fence(sources[0].responses[0]))  # quoted as shown
    with LLMServer(responder) as server:
        # the first source's first call is held: its two later calls come after the release
        held = released_when_the_rest_is_done(server, calls - 2, responder.gate)
        written = bridge_with(server, sources)
    assert held == [True], "the other sources waited for the slow one"
    assert [_same(r) for r in written] == [_same(r) for r in expected]


def _same(result: Correction | BridgeRecord) -> str:
    """A result without what differs between two runs of it (timings in its trace and usage)."""
    return result.model_dump_json(exclude={"trace", "usage"})


def test_a_correct_run_killed_while_it_spills_resumes_to_the_uninterrupted_output(tmp_path: Path) -> None:
    n = 40  # more than the command's window (32 at concurrency 2): the spill's file is used
    judgments, instances = judged_files(tmp_path, n)
    responder = SlowFirst(FennecJudge().for_server(), "Question 0?")
    with LLMServer(responder) as server:
        base = [sys.executable, "-m", "faceteval", "correct", str(judgments), "--input", str(instances)]
        base += ["--model", "openai:judge", "--base-url", server.base_url, "--concurrency", str(WINDOW)]
        base += ["--quiet"]
        responder.holding = False
        reference = run_to_end([*base, "--no-cache", "--out", str(tmp_path / "ref.jsonl")], WAIT)
        assert reference.returncode == 0, reference.stderr
        calls = server.request_count
        responder.holding = True
        cached = [*base, "--cache", str(tmp_path / "cache.sqlite"), "--out", str(tmp_path / "out.jsonl")]
        child = start(cached)
        try:
            done = lambda: server.request_count >= 2 * calls and server.in_flight == 1  # noqa: E731
            wait_until(done, "every call but the held one answered", timeout=WAIT)
        finally:
            child.send_signal(signal.SIGKILL)
            child.communicate(timeout=WAIT)
            responder.gate.set()
        answered = server.request_count
        resumed = run_to_end(cached, WAIT)
        assert resumed.returncode == 0, resumed.stderr
        assert server.request_count - answered == 1  # the held call alone: every other reply was cached
    assert _lines(tmp_path / "out.jsonl") == _lines(tmp_path / "ref.jsonl")


def _lines(path: Path) -> list[str]:
    return [_same(Correction.model_validate_json(line)) for line in path.read_text("utf-8").splitlines()]
