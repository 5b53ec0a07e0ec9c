"""A ``--batch`` run some of whose requests no batch answers (a request the API refuses every time): the
round that answers nothing is sent twice more, then the run writes its outputs, the ok judgments those of
a synchronous run and the unanswered ones ``error`` judgments with the batch's reason, and exits 5. A
later run asks them again (bounded again) and keeps the ok judgments; through OpenAI's and Anthropic's
batch APIs, request files for a cluster (``--batch files``), and ``meta-eval --method``. (``--batch ray``:
tests/unit/batch/test_ray_rounds.py.)"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from faceteval.store import SQLiteCache
from tests.support.anthropic_batches import AnthropicBatches
from tests.support.batch_judging import (
    REFUSAL,
    Refusing,
    judge_command,
    judgments_in,
    pairs_file,
    responder,
)
from tests.support.batch_server import OpenAIBatches
from tests.support.llm_server import LLMServer
from tests.support.processes import run_to_end
from tests.support.run_batch import run_batch

WAIT = 300.0
PAIRS = 12
REFUSED = "Q3"
"""Instance 3's requests are refused: its first (DnA's aspects) is never answered."""
INCOMPLETE = 5
"""The exit status of a batch run that wrote its outputs with requests no batch answered."""


@pytest.fixture
def refusing() -> Refusing:
    return Refusing(responder())


@pytest.fixture
def served(refusing: Refusing) -> Iterator[tuple[LLMServer, OpenAIBatches]]:
    server = LLMServer(refusing, record=False)
    batches = OpenAIBatches(server, polls_in_progress=1)
    with server:
        yield server, batches


def _rounds(cache: Path, provider: str) -> list[tuple[int, int]]:
    """The ledger's batches of ``provider``: (round, requests), in order."""
    with SQLiteCache(cache) as opened:
        return [(row.round, row.requests) for row in opened.batches.all() if row.provider == provider]


def _record(out: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(out.with_name(f"{out.stem}.run.json").read_text(encoding="utf-8"))
    return record


def _split(path: Path) -> tuple[list[Any], dict[str, Any]]:
    """The judgments of an output, those of instance 3 apart."""
    judgments = judgments_in(path)
    return [j for j in judgments if j["id"] != "3"], next(j for j in judgments if j["id"] == "3")


def _synchronous(source: Path, server: LLMServer, refusing: Refusing, tmp_path: Path, *more: str) -> Path:
    """The synchronous run's output, with nothing refused."""
    out = tmp_path / "sync.jsonl"
    queries, refusing.queries = refusing.queries, set()
    done = run_to_end([*judge_command(source, server, out, tmp_path / "sync.db"), *more], WAIT)
    refusing.queries = queries
    assert done.returncode == 0, done.stderr
    return out


def _given_up(judgment: dict[str, Any]) -> None:
    assert judgment["status"] == "error" and judgment["verdict"] is None and judgment["scores"] is None
    assert "BatchUnanswered" in judgment["error"] and REFUSAL in judgment["error"], judgment["error"]
    assert "3 rounds in a row" in judgment["error"]


def test_openai_a_request_no_batch_answers_is_sent_three_times_then_written_as_an_error(
    served: tuple[LLMServer, OpenAIBatches], refusing: Refusing, tmp_path: Path
) -> None:
    server, batches = served
    source = pairs_file(tmp_path, PAIRS)
    sync = _synchronous(source, server, refusing, tmp_path)
    refusing.queries = {REFUSED}
    out, cache = tmp_path / "batch.jsonl", tmp_path / "batch.db"
    command = [*judge_command(source, server, out, cache), "--batch", "openai", "--batch-poll", "0"]
    done = run_to_end(command, WAIT)
    assert done.returncode == INCOMPLETE, done.stderr
    others, three = _split(out)
    assert others == _split(sync)[0]  # the synchronous run's judgments, written
    _given_up(three)
    # rounds 1-3 (aspects, scores, Q7's re-asks) each hold instance 3's aspects, which is all of 4-6
    assert [r for r, n in _rounds(cache, "openai")] == [1, 2, 3, 4, 5, 6]
    assert [n for r, n in _rounds(cache, "openai")][3:] == [1, 1, 1]
    last = [[line["custom_id"] for line in batches.input_lines(b["id"])] for b in batches.created[3:]]
    assert last[0] == last[1] == last[2] and len(last[0]) == 1  # the same request, retried twice
    record = _record(out)["batch"]
    assert (record["rounds"], record["batches"], record["unanswered"]) == (6, 6, 1)
    lines = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(lines) == 1 and "1 request" in lines[0] and "run the same command again" in done.stderr

    again = run_to_end(command, WAIT)  # a new chance: asked again, three rounds at most, ok ones kept
    assert again.returncode == INCOMPLETE, again.stderr
    assert [r for r, n in _rounds(cache, "openai")] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert _split(out)[0] == others
    _given_up(_split(out)[1])

    refusing.queries = set()  # answered at last: the rest of instance 3's calls, and the whole output
    last = run_to_end(command, WAIT)
    assert last.returncode == 0, last.stderr
    assert judgments_in(out) == judgments_in(sync)
    assert _record(out)["batch"]["unanswered"] == 0


def test_a_run_whose_every_request_fails_writes_every_judgment_as_an_error(
    served: tuple[LLMServer, OpenAIBatches], tmp_path: Path
) -> None:
    server, batches = served
    batches.max_requests = 3  # the account's limit is lower than a round: every batch fails
    source = pairs_file(tmp_path, PAIRS)
    out, cache = tmp_path / "batch.jsonl", tmp_path / "batch.db"
    command = [*judge_command(source, server, out, cache), "--batch", "openai", "--batch-poll", "0"]
    done = run_to_end(command, WAIT)
    assert done.returncode == INCOMPLETE, done.stderr
    assert [b["status"] for b in batches.created] == ["failed"] * 3
    judgments = judgments_in(out)
    assert len(judgments) == PAIRS and {j["status"] for j in judgments} == {"error"}
    assert all("more than 3 requests" in j["error"] for j in judgments)  # the failed batch's reason
    assert _record(out)["batch"]["unanswered"] == PAIRS  # each pair's aspects


def test_anthropic_a_request_no_batch_answers_is_written_as_an_error(
    refusing: Refusing, tmp_path: Path
) -> None:
    server = LLMServer(refusing, record=False)
    AnthropicBatches(server, polls_in_progress=1)
    source = pairs_file(tmp_path, PAIRS)
    with server:
        sync = _synchronous(source, server, refusing, tmp_path)
        refusing.queries = {REFUSED}
        out, cache = tmp_path / "batch.jsonl", tmp_path / "batch.db"
        command = judge_command(source, server, out, cache, "--batch", "anthropic", "--batch-poll", "0")
        command[command.index("openai:judge")] = "anthropic:judge"
        command[command.index(server.base_url)] = server.root_url
        done = run_to_end(command, WAIT)
    assert done.returncode == INCOMPLETE, done.stderr
    others, three = _split(out)
    assert others == _split(sync)[0]
    _given_up(three)
    assert [n for r, n in _rounds(cache, "anthropic")][3:] == [1, 1, 1]
    assert _record(out)["batch"]["rounds"] == 6 and _record(out)["batch"]["unanswered"] == 1


RUN_BATCH = re.compile(r"vllm run-batch -i (\S+) -o (\S+) --model judge")


def _answer_and_import(server: LLMServer, stderr: str, cache: Path) -> None:
    """Do what a stopped ``--batch files`` run says: ``vllm run-batch`` on each file, then the import."""
    outs = []
    for shard, out in RUN_BATCH.findall(stderr):
        run_batch(server, Path(shard), Path(out))
        outs.append(out)
    assert outs, stderr
    imported = [sys.executable, "-m", "faceteval", "batch", "import", *outs, "--cache", str(cache)]
    assert (done := run_to_end(imported, WAIT)).returncode == 0, done.stderr


def test_files_rounds_the_cluster_answers_nothing_of_are_given_up_after_three(
    served: tuple[LLMServer, OpenAIBatches], refusing: Refusing, tmp_path: Path
) -> None:
    server, _ = served
    source = pairs_file(tmp_path, PAIRS)
    sync = _synchronous(source, server, refusing, tmp_path)
    refusing.queries = {REFUSED}
    out, cache = tmp_path / "batch.jsonl", tmp_path / "batch.db"
    command = judge_command(
        source, server, out, cache, "--batch", "files", "--batch-dir", str(tmp_path / "r")
    )
    stops = 0
    while (done := run_to_end(command, WAIT)).returncode == 4:
        stops += 1
        assert stops <= 6, done.stderr
        _answer_and_import(server, done.stderr, cache)
    assert done.returncode == INCOMPLETE, done.stderr
    assert stops == 6  # aspects, scores, re-asks; then instance 3's aspects three times in a row
    assert [n for r, n in _rounds(cache, "files")][3:] == [1, 1, 1]
    others, three = _split(out)
    assert others == _split(sync)[0]
    _given_up(three)

    done = run_to_end(command, WAIT)  # a new chance: the request is written again
    assert done.returncode == 4 and "round 7:" in done.stderr, done.stderr
    refusing.queries = set()
    while done.returncode == 4:
        _answer_and_import(server, done.stderr, cache)
        done = run_to_end(command, WAIT)
    assert done.returncode == 0, done.stderr
    assert judgments_in(out) == judgments_in(sync)


def test_meta_eval_writes_its_summary_with_the_unanswered_judgments(
    served: tuple[LLMServer, OpenAIBatches], refusing: Refusing, tmp_path: Path
) -> None:
    server, _ = served
    refusing.queries = {REFUSED}
    labels = tmp_path / "labels.jsonl"
    rows = [
        {
            "qid": f"p{k}",
            "instruction": f"Q{k}",
            "output_1": f"weak {k}",
            "output_2": f"strong {k}",
            "winner": "B",
        }
        for k in range(PAIRS)
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "meta"
    command = [
        sys.executable, "-m", "faceteval", "meta-eval", str(labels), "--method", "dna", "--swap",
        "--field", "id=qid", "--out", str(out), "--model", "openai:judge", "--base-url", server.base_url,
        "--cache", str(tmp_path / "m.db"), "--batch", "openai", "--batch-poll", "0", "-q",
    ]  # fmt: skip
    done = run_to_end(command, WAIT)
    assert done.returncode == INCOMPLETE, done.stderr
    assert "Traceback" not in done.stderr
    judgments = {j["id"]: j for j in judgments_in(out / "judgments.jsonl")}
    _given_up(judgments["p3"])
    assert sum(j["status"] == "ok" for j in judgments.values()) == PAIRS - 1
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["batch"]["unanswered"] == 1
