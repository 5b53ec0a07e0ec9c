"""``faceteval judge --batch``: through the local OpenAI files + batches server (and Anthropic's Message
Batches), a batch run writes the synchronous run's judgments at half its cost; a run killed in any phase
resubmits nothing when run again; failed and expired requests are asked again in a later round."""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.anthropic_batches import AnthropicBatches
from tests.support.batch_judging import judgments_in
from tests.support.batch_server import Fate, OpenAIBatches
from tests.support.llm_server import LLMServer, Status
from tests.support.processes import run_to_end, start, wait_until
from tests.support.rule_judge import RuleJudge

WAIT = 300.0
UNREADABLE = "I would rather not score this."
REASKED = 7
"""Every REASKED-th instance's first score replies are unreadable: the method re-asks (one more level)."""


def _responder() -> Any:
    rule = RuleJudge(scorer=lambda text, _aspect: 8 if text.startswith("strong") else 4, record=False)

    def respond(body: dict[str, Any]) -> str:
        messages = body["messages"]
        first_ask = all(m["role"] != "assistant" for m in messages)
        prompt = str(messages[-1]["content"])
        reasked = any(f"Q{n}\n" in prompt for n in range(0, 10_000, REASKED))
        if first_ask and reasked and "on one aspect only:" in str(messages):
            return UNREADABLE
        return rule.respond(messages)

    return respond


@pytest.fixture
def served() -> Iterator[tuple[LLMServer, OpenAIBatches]]:
    server = LLMServer(_responder(), record=False)
    batches = OpenAIBatches(server, polls_in_progress=1)
    with server:
        yield server, batches


def _pairs(tmp_path: Path, n: int) -> Path:
    source = tmp_path / "pairs.jsonl"
    pairs = ({"id": str(k), "query": f"Q{k}", "candidates": [f"weak {k}", f"strong {k}"]} for k in range(n))
    lines = (json.dumps(pair) for pair in pairs)
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return source


def _judge(
    source: Path, server: LLMServer, tmp_path: Path, name: str, *more: str, anthropic: bool = False
) -> list[str]:
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai:judge: {input: 2, output: 8}\nanthropic:judge: {input: 2, output: 8}\n")
    return [
        sys.executable, "-m", "faceteval", "judge", str(source), "--method", "dna", "--swap",
        "--model", "anthropic:judge" if anthropic else "openai:judge",
        "--base-url", server.root_url if anthropic else server.base_url, "--prices", str(prices),
        "--out", str(tmp_path / f"{name}.jsonl"), "--quiet", *more,
    ]  # fmt: skip


def _batch(cache: Path) -> list[str]:
    return ["--cache", str(cache), "--batch", "openai", "--batch-poll", "0"]


def _record(tmp_path: Path, name: str) -> dict[str, Any]:
    return json.loads((tmp_path / f"{name}.run.json").read_text(encoding="utf-8"))


def _sent(batches: OpenAIBatches) -> list[str]:
    return [line["custom_id"] for b in batches.created for line in batches.input_lines(b["id"])]


def _synchronous(source: Path, server: LLMServer, tmp_path: Path) -> int:
    """The synchronous run (``sync.jsonl``); its calls."""
    before = server.request_count
    done = run_to_end(_judge(source, server, tmp_path, "sync", "--cache", str(tmp_path / "sync.db")), WAIT)
    assert done.returncode == 0, done.stderr
    return server.request_count - before


def test_a_batch_run_gives_the_synchronous_judgments_at_half_the_cost(
    served: tuple[LLMServer, OpenAIBatches], tmp_path: Path
) -> None:
    """The issue's acceptance test: 1,000 pairs, both orders, forced re-asks."""
    server, batches = served
    source = _pairs(tmp_path, 1_000)
    started = time.perf_counter()
    calls = _synchronous(source, server, tmp_path)
    synchronous = time.perf_counter() - started
    before = server.request_count
    done = run_to_end(_judge(source, server, tmp_path, "batch", *_batch(tmp_path / "batch.db")), WAIT)
    batched = time.perf_counter() - started - synchronous
    print(f"1,000 pairs: synchronous {synchronous:.1f} s, batch {batched:.1f} s, {calls:,} calls")
    assert done.returncode == 0, done.stderr
    assert judgments_in(tmp_path / "batch.jsonl") == judgments_in(tmp_path / "sync.jsonl")
    sent = _sent(batches)
    assert len(sent) == len(set(sent)) == calls == server.request_count - before  # each once, by batch
    record, plain = _record(tmp_path, "batch"), _record(tmp_path, "sync")
    assert record["batch"] == {
        "provider": "openai",
        "rounds": 3,
        "batches": 3,
        "requests": calls,
        "unanswered": 0,
    }
    assert record["spend"]["calls"] == 0 and record["spend"]["cached"] == plain["spend"]["calls"]
    assert record["spend"]["input_tokens"] == plain["spend"]["input_tokens"]
    assert record["spend"]["cost_usd"] == pytest.approx(plain["spend"]["cost_usd"] / 2)
    assert "round 3: " in done.stderr and "batches" in done.stdout + done.stderr


KILLED = 12
"""Pairs of the kill tests: three rounds of a few dozen requests."""


@pytest.mark.parametrize(
    ("phase", "round"),
    [
        ("upload", 1),  # collected, uploading: nothing recorded yet
        ("create", 1),  # the batch made, its id not yet recorded: found again by its file
        ("create", 2),  # the same, once round 1 is imported
        ("retrieve", 1),  # polling a recorded batch
        ("content", 1),  # importing a finished batch's output
    ],
)
def test_a_run_killed_in_any_phase_resubmits_nothing_and_gives_the_synchronous_judgments(
    served: tuple[LLMServer, OpenAIBatches], tmp_path: Path, phase: str, round: int
) -> None:
    server, batches = served
    source = _pairs(tmp_path, KILLED)
    calls = _synchronous(source, server, tmp_path)
    command = _judge(source, server, tmp_path, "batch", *_batch(tmp_path / "batch.db"))
    pause = None if round > 1 else batches.pause(phase)
    child = start(command)
    try:
        if pause is None:  # round 1's one batch made: the next create call is round 2's
            wait_until(lambda: len(batches.created) >= 1, "round 1's batch", timeout=WAIT)
            pause = batches.pause(phase)
        wait_until(pause.reached.is_set, f"the {phase} of round {round}", timeout=WAIT)
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=WAIT)
        if pause is not None:
            pause.gate.set()
    assert not (tmp_path / "batch.jsonl").exists()  # nothing written while collecting
    done = run_to_end(command, WAIT)
    assert done.returncode == 0, done.stderr
    assert judgments_in(tmp_path / "batch.jsonl") == judgments_in(tmp_path / "sync.jsonl")
    sent = _sent(batches)
    assert len(sent) == len(set(sent)) == calls  # no request in two batches: none resubmitted


def test_failed_and_expired_requests_are_asked_again_in_a_later_round(
    served: tuple[LLMServer, OpenAIBatches], tmp_path: Path
) -> None:
    server, batches = served
    source = _pairs(tmp_path, KILLED)
    calls = _synchronous(source, server, tmp_path)
    server.enqueue(Status(500))  # round 1's first request fails (a line of the error file)
    batches.script(Fate(), Fate("expired", answered=5))  # round 2 expires after 5 answers
    done = run_to_end(_judge(source, server, tmp_path, "batch", *_batch(tmp_path / "batch.db")), WAIT)
    assert done.returncode == 0, done.stderr
    assert judgments_in(tmp_path / "batch.jsonl") == judgments_in(tmp_path / "sync.jsonl")
    sent = _sent(batches)
    assert len(set(sent)) == calls < len(sent)  # each asked, the failed and expired ones twice
    record = _record(tmp_path, "batch")["batch"]
    assert record["rounds"] > 3 and record["requests"] == calls


def test_ctrl_c_while_polling_leaves_the_batches_running_and_the_same_command_picks_them_up(
    served: tuple[LLMServer, OpenAIBatches], tmp_path: Path
) -> None:
    server, batches = served
    source = _pairs(tmp_path, KILLED)
    calls = _synchronous(source, server, tmp_path)
    command = _judge(source, server, tmp_path, "batch", *_batch(tmp_path / "batch.db"))
    pause = batches.pause("retrieve")
    child = start(command)
    try:
        wait_until(pause.reached.is_set, "round 1's poll", timeout=WAIT)
        child.send_signal(signal.SIGINT)
        pause.gate.set()
        _, stderr = child.communicate(timeout=WAIT)
    finally:
        child.kill()
    assert child.returncode == 130, stderr
    assert "run the same command again" in " ".join(stderr.split())
    assert [b["status"] for b in batches.created] == ["in_progress"]  # left running, not cancelled
    done = run_to_end(command, WAIT)
    assert done.returncode == 0, done.stderr
    assert judgments_in(tmp_path / "batch.jsonl") == judgments_in(tmp_path / "sync.jsonl")
    sent = _sent(batches)
    assert len(sent) == len(set(sent)) == calls


def test_anthropic_message_batches_through_the_command(tmp_path: Path) -> None:
    rule = RuleJudge(scorer=lambda text, _aspect: 8 if text.startswith("strong") else 4, record=False)
    server = LLMServer(lambda body: rule.respond(body["messages"]), record=False)
    batches = AnthropicBatches(server, polls_in_progress=1)
    source = _pairs(tmp_path, KILLED)
    with server:
        plain = _judge(source, server, tmp_path, "sync", "--cache", str(tmp_path / "sync.db"), anthropic=True)
        assert (done := run_to_end(plain, WAIT)).returncode == 0, done.stderr
        calls = server.request_count
        batch = ["--cache", str(tmp_path / "batch.db"), "--batch", "anthropic", "--batch-poll", "0"]
        batches.expire(3)  # round 1 expires after 3 answers: its other requests go to round 2
        done = run_to_end(_judge(source, server, tmp_path, "batch", *batch, anthropic=True), WAIT)
        assert done.returncode == 0, done.stderr
    assert judgments_in(tmp_path / "batch.jsonl") == judgments_in(tmp_path / "sync.jsonl")
    sent = [r["custom_id"] for b in batches.created for r in batches.requests[b["id"]]]
    assert len(set(sent)) == calls
    record, synchronous = _record(tmp_path, "batch"), _record(tmp_path, "sync")
    assert record["batch"]["provider"] == "anthropic" and record["batch"]["requests"] == calls
    assert record["spend"]["cost_usd"] == pytest.approx(synchronous["spend"]["cost_usd"] / 2)


def test_batch_refuses_no_cache_before_any_call(
    served: tuple[LLMServer, OpenAIBatches], tmp_path: Path
) -> None:
    server, batches = served
    source = _pairs(tmp_path, 2)
    done = run_to_end(_judge(source, server, tmp_path, "batch", "--no-cache", "--batch", "openai"), WAIT)
    assert done.returncode == 2 and "--batch needs the response cache" in " ".join(done.stderr.split())
    assert server.request_count == 0 and not batches.created
    wrong = _judge(source, server, tmp_path, "b", "--cache", str(tmp_path / "c.db"), "--batch", "anthropic")
    done = run_to_end(wrong, WAIT)
    assert done.returncode == 1 and "--batch anthropic" in done.stderr and server.request_count == 0
