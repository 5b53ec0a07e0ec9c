"""`faceteval judge`'s output and run record: never lost, never over a file not ours, a full disk named.

The output is written beside its target and put in place when the run ends (however it ends but a
kill -9, which leaves the earlier output and record as they were); the record follows, with the
output's line count and SHA-256. A re-run without a cache reuses the earlier ok judgments.
"""

from __future__ import annotations

import hashlib
import json
import re
import signal
import sqlite3
import sys
import threading
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.store import SQLiteCache
from tests.support.files import read_jsonl, write_jsonl
from tests.support.llm_server import Hang, LLMServer, Status
from tests.support.processes import (
    partial_files,
    partial_lines,
    run_to_end,
    start,
    wait_until,
    written_lines,
)
from tests.support.rule_judge import RuleJudge
from tests.support.small_disk import run_on_small_disk

QUESTION = re.compile(r"Question (\d+)\?")


class Flaky:
    """The rule judge, but the questions numbered in ``failing`` fail (500) or, in ``mode`` "hang", hang."""

    def __init__(self, failing: Collection[int]) -> None:
        self.rule = RuleJudge(quality={"good": 9, "poor": 3}, record=False)
        self.failing = failing
        self.mode = "fail"
        self.hung: list[int] = []
        self._lock = threading.Lock()

    def __call__(self, body: Mapping[str, Any]) -> str | Status | Hang:
        prompt = "\n".join(str(m["content"]) for m in body["messages"])
        number = int(match[1]) if (match := QUESTION.search(prompt)) else -1
        if number in self.failing and self.mode != "ok":
            if self.mode == "fail":
                return Status(500)
            with self._lock:
                self.hung.append(number)
            return Hang(60)
        return self.rule.respond(body["messages"])


def pairs(tmp_path: Path, n: int, *, padding: int = 0) -> Path:
    extra = " " + "x" * padding if padding else ""
    rows = [
        {"id": str(i), "query": f"Question {i}?{extra}", "candidates": ["good", "poor"]} for i in range(n)
    ]
    return write_jsonl(tmp_path / "pairs.jsonl", rows)


def judge_command(path: Path, server: LLMServer, out: Path, *flags: str) -> list[str]:
    return [
        sys.executable, "-m", "faceteval", "judge", str(path), "--method", "direct", "--model",
        "openai:judge", "--base-url", server.base_url, "--retries", "0", "--concurrency", "2",
        "--quiet", "--out", str(out), *flags,
    ]  # fmt: skip


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def flat(text: str) -> str:
    return " ".join(text.split())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def describes(record: dict[str, Any], path: Path) -> bool:
    """Whether the run record was written with the output ``path`` as it is (its line count and hash)."""
    written = record.get("written", {}).get(path.name, {})
    lines = path.read_bytes().count(b"\n")
    return bool(written) and written == {"lines": lines, "sha256": sha256(path)}


def ok_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if json.loads(line)["status"] == "ok"]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["terminate", "crash"])
def test_a_rerun_stopped_midway_keeps_every_earlier_ok_judgment_and_a_matching_record(
    tmp_path: Path, stop: signal.Signals
) -> None:
    path, out, record_path = pairs(tmp_path, 30), tmp_path / "o.jsonl", tmp_path / "o.run.json"
    responder = Flaky(failing={5, 6, 7, 8, 9})
    with LLMServer(responder) as server:
        command = judge_command(path, server, out, "--no-cache")
        first = run_to_end(command)
        assert first.returncode == 6, first.stderr  # some judgments failed (exit 6), the rest written
        earlier, earlier_record = out.read_bytes(), record_path.read_bytes()
        assert len(ok_lines(out)) == 25
        # The re-run reuses the 25 ok judgments and asks again for the 5 that failed, which hang:
        # it has written the first five (reused) when it is stopped.
        responder.mode = "hang"
        process = start(command)
        wait_until(lambda: len(responder.hung) == 2 and written_lines(out) == 5, "the re-run under way")
        process.send_signal(stop)
        _, stderr = process.communicate(timeout=60)
    record = json.loads(record_path.read_text())
    if stop == signal.SIGKILL:  # the earlier output and record, as they were
        assert process.returncode == -signal.SIGKILL
        assert out.read_bytes() == earlier and record_path.read_bytes() == earlier_record
        assert partial_lines(out) == 5  # what the re-run had written, left beside them
    else:  # put in place with what it has: the reused judgments, and those it did not reach
        assert process.returncode == 130, stderr
        assert record["interrupted"] is True
        assert record["summary"]["judgments"] == {"ok": 25} and record["summary"]["reused"] == 25
        assert record["spend"]["calls"] == 2  # the two hung calls: nothing else was asked
        assert record["written"]["o.jsonl"] == {"lines": 25, "sha256": sha256(out)}
    assert describes(record, out)
    # Either way, no ok judgment is lost, and they are as they were, in input order.
    assert ok_lines(out) == [line for line in earlier.decode().splitlines() if '"status":"ok"' in line]
    # The next run to finish, at once, removes what a killed one left beside the output and its record.
    responder.mode = "ok"
    with LLMServer(responder) as server:
        finished = run_to_end(judge_command(path, server, out, "--no-cache"))
    assert finished.returncode == 0, finished.stderr
    assert not partial_files(out) and not partial_files(record_path)
    assert len(ok_lines(out)) == 30


def test_a_rerun_without_a_cache_reuses_the_earlier_ok_judgments(tmp_path: Path) -> None:
    path, out = pairs(tmp_path, 6), tmp_path / "o.jsonl"
    responder = Flaky(failing={1, 3})
    with LLMServer(responder) as server:
        args = [path, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url]
        args += ["--retries", "0", "--no-cache", "--out", out]
        first = invoke(*args)
        assert first.exit_code == 6, first.output  # some judgments failed (exit 6), the rest written
        earlier = out.read_text().splitlines()
        assert [json.loads(line)["status"] for line in earlier] == ["ok", "error", "ok", "error", "ok", "ok"]
        assert server.request_count == 6

        responder.mode = "ok"
        second = invoke(*args)
        assert second.exit_code == 0, second.output
        assert "6 ok, 0 parse errors, 0 errors (4 reused from an earlier output)" in flat(second.output)
        assert server.request_count == 6 + 2  # only the two that failed are asked again
        judgments = read_jsonl(out)
        assert [j["id"] for j in judgments] == [str(i) for i in range(6)]
        assert {j["status"] for j in judgments} == {"ok"}
        kept = out.read_text().splitlines()
        assert [kept[i] for i in (0, 2, 4, 5)] == [earlier[i] for i in (0, 2, 4, 5)]  # as they were
        record = json.loads((tmp_path / "o.run.json").read_text())
        assert (record["summary"]["reused"], record["spend"]["calls"]) == (4, 2)

        # Another job (both orders now) is judged again, as is an output changed since its record.
        swapped = invoke(*args, "--swap")
        assert swapped.exit_code == 0 and server.request_count == 8 + 12
        assert json.loads((tmp_path / "o.run.json").read_text())["summary"]["reused"] == 0
        assert invoke(*args).exit_code == 0 and server.request_count == 20 + 6  # (no --swap again)
        out.write_text(out.read_text().replace('"verdict":1', '"verdict":2'))
        assert invoke(*args).exit_code == 0 and server.request_count == 26 + 6


def test_a_run_stopped_before_any_ok_judgment_leaves_the_earlier_output_and_record_as_they_were(
    tmp_path: Path,
) -> None:
    path, out, record_path = pairs(tmp_path, 6), tmp_path / "o.jsonl", tmp_path / "o.run.json"
    with LLMServer(RuleJudge(quality={"good": 9, "poor": 3}, record=False).for_server()) as server:
        args = [path, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url]
        first = invoke(*args, "--cache", tmp_path / "c.sqlite", "--out", out)
        assert first.exit_code == 0, first.output
        unreachable = server.base_url.replace(f":{server.port}/", ":9/")  # nothing listens on port 9
    earlier, earlier_record = out.read_bytes(), record_path.read_bytes()

    again = invoke(*args[:-1], unreachable, "--cache", tmp_path / "c.sqlite", "--out", out)

    assert again.exit_code == 1
    assert out.read_bytes() == earlier and record_path.read_bytes() == earlier_record
    assert not partial_files(out) and not partial_files(record_path)
    hint, _, rest = flat(again.output).partition(" Nothing was judged")  # the cache's replies: another port
    assert hint.startswith("no cache hits for openai:judge") and "--endpoint-id NAME" in hint
    assert rest == (
        f"; {out} is left as it was. error: cannot connect to {unreachable}: "
        "connection refused; is the server running?"
    )


@pytest.fixture
def server() -> Any:
    with LLMServer(RuleJudge(quality={"good": 9, "poor": 3}, record=False).for_server()) as running:
        yield running


def sqlite_file(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE annotations (id TEXT, text TEXT)")
        db.execute("INSERT INTO annotations VALUES ('a', 'hours of work')")
    db.close()
    return path


@pytest.mark.parametrize(
    ("make", "out", "what"),
    [
        (lambda d: sqlite_file(d / "review.sqlite"), "review.sqlite", "an SQLite database"),
        (lambda d: SQLiteCache(d / "old-cache.sqlite").close(), "old-cache.sqlite", "an SQLite database"),
        (lambda d: (d / "table.csv").write_text("id,score\na,1\n"), "table.csv", "a file of something else"),
        (lambda d: (d / "o.jsonl").write_text('{"id": "a"}\n'), "o.jsonl", "not judgments JSONL"),
        (lambda d: (d / "o.run.json").write_text('{"a": 1}\n'), "o.jsonl", "o.run.json, a file of something"),
    ],
    ids=["review-project", "a-cache-not-in-use", "csv", "other-jsonl", "record-not-ours"],
)
def test_an_output_that_is_not_ours_is_refused_unless_forced(
    tmp_path: Path, server: LLMServer, make: Any, out: str, what: str
) -> None:
    make(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    args = [
        pairs(tmp_path, 2),
        "--method",
        "direct",
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
    ]
    result = invoke(*args, "--no-cache", "--out", tmp_path / out)
    assert result.exit_code == 1, result.output
    message = " ".join(result.output.split())
    assert f"--out {tmp_path / out} would overwrite" in message and what in message, message
    assert "pass --force to overwrite it" in message
    assert {p: p.read_bytes() for p in before} == before and server.request_count == 0

    forced = invoke(*args, "--no-cache", "--out", tmp_path / out, "--force")
    assert forced.exit_code == 0, forced.output
    assert [j["status"] for j in read_jsonl(tmp_path / out)] == ["ok", "ok"]


def test_the_input_the_cache_and_a_directory_are_refused_even_when_forced(
    tmp_path: Path, server: LLMServer
) -> None:
    path, cache = pairs(tmp_path, 2), tmp_path / "c.sqlite"
    args = [path, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url, "--force"]
    assert invoke(*args, "--cache", cache, "--out", tmp_path / "o.jsonl").exit_code == 0
    (tmp_path / "d.run.json").mkdir()
    paid, given = cache.read_bytes(), path.read_bytes()
    for out, flags, what in (
        (path, ["--cache", cache], f"would overwrite the input {path}"),
        (cache, ["--cache", cache], f"would overwrite the response cache {cache}"),
        (tmp_path / "d.jsonl", ["--no-cache"], f"would overwrite {tmp_path / 'd.run.json'}, a directory"),
    ):
        result = invoke(*args, *flags, "--out", out)
        assert result.exit_code == 1 and what in " ".join(result.output.split()), result.output
    assert cache.read_bytes() == paid and path.read_bytes() == given
    assert server.request_count == 2  # the first run's only


def small_disk_judge(
    tmp_path: Path, server: LLMServer, *, out: Path, cache: Path
) -> tuple[list[str], list[Any]]:
    """A judge run of 200 pairs with a small disk at ``tmp_path / "disk"``; then the cache opened."""
    path = pairs(tmp_path, 200, padding=300)
    command = judge_command(path, server, out, "--cache", str(cache))
    check = f"from faceteval.store import SQLiteCache; print(len(SQLiteCache({str(cache)!r})))"
    return command, run_on_small_disk(tmp_path / "disk", [command, [sys.executable, "-c", check]])


def test_a_full_disk_stops_the_run_with_one_line_and_keeps_whole_lines_and_a_record(
    tmp_path: Path, server: LLMServer
) -> None:
    out, cache = tmp_path / "disk" / "out.jsonl", tmp_path / "c.sqlite"  # the cache on a roomy disk
    command, (run, opened) = small_disk_judge(tmp_path, server, out=out, cache=cache)
    assert run.returncode == 1, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error")]
    assert errors == [f"error: no space left writing {out}"] and "Traceback" not in run.stderr
    kept = tmp_path / "disk-kept"
    lines = (kept / "out.jsonl").read_text().splitlines()
    judgments = [json.loads(line) for line in lines]  # every line whole
    assert 10 < len(judgments) < 200 and [j["id"] for j in judgments] == [str(i) for i in range(len(lines))]
    record = json.loads((kept / "out.run.json").read_text())
    assert record["stopped_by"] == f"no space left writing {out}"
    assert record["summary"]["judgments"] == {"ok": len(lines)}
    assert describes(record, kept / "out.jsonl") and record["written"]["out.jsonl"]["lines"] == len(lines)
    assert not partial_files(kept / "out.jsonl")
    # The cache is whole, and a re-run with room finishes from it.
    stored = int(opened.stdout)
    assert opened.returncode == 0 and len(lines) <= stored < 200
    before = server.request_count
    roomy = [*command[: command.index("--out")], "--out", str(tmp_path / "out.jsonl")]
    finished = run_to_end([*roomy, "--cache", str(cache)])
    assert finished.returncode == 0, finished.stderr
    assert server.request_count - before == 200 - stored
    assert [j["id"] for j in read_jsonl(tmp_path / "out.jsonl")] == [str(i) for i in range(200)]


def test_a_full_disk_under_the_cache_stops_the_run_with_one_line_and_the_cache_opens(
    tmp_path: Path, server: LLMServer
) -> None:
    out, cache = tmp_path / "out.jsonl", tmp_path / "disk" / "c.sqlite"
    _, (run, opened) = small_disk_judge(tmp_path, server, out=out, cache=cache)
    assert run.returncode == 1, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and "Traceback" not in run.stderr
    assert errors[0].startswith(f"error: no space left writing the response cache {cache}")
    assert opened.returncode == 0, opened.stderr  # the cache opens on the full disk
    stored = int(opened.stdout)
    judgments = read_jsonl(out)
    assert 0 < stored < 200 and 0 < len(judgments) <= stored
    record = json.loads((tmp_path / "out.run.json").read_text())
    assert record["stopped_by"] == errors[0].removeprefix("error: ") and describes(record, out)


def test_a_file_size_limit_is_named_as_no_space(tmp_path: Path, server: LLMServer) -> None:
    path, out = pairs(tmp_path, 200, padding=300), tmp_path / "out.jsonl"
    command = judge_command(path, server, out, "--no-cache")
    # At most 300 blocks of 512 bytes (dash's unit; bash's are 1024) a file: the output (~440 kB)
    # outgrows it, its run record does not.
    limited = run_to_end(["sh", "-c", 'ulimit -f 300 && exec "$@"', "sh", *command])
    assert limited.returncode == 1, limited.stderr
    assert limited.stderr.splitlines()[-1] == f"error: no space left writing {out} (file size limit reached)"
    record = json.loads((tmp_path / "out.run.json").read_text())
    assert describes(record, out) and 0 < record["written"]["out.jsonl"]["lines"] < 200
    assert all(json.loads(line) for line in out.read_text().splitlines())


def test_a_second_run_writing_the_same_output_is_refused_while_the_first_holds_it(tmp_path: Path) -> None:
    path, out = pairs(tmp_path, 4), tmp_path / "o.jsonl"
    responder = Flaky(failing={2})
    responder.mode = "hang"
    with LLMServer(responder) as server:
        command = judge_command(path, server, out, "--no-cache")
        first = start(command)
        # every instance asked: three answered, one hanging (it holds the run, and the output)
        wait_until(lambda: bool(responder.hung) and server.request_count == 4, "the first run under way")
        asked = server.request_count
        second = run_to_end(command)
        assert second.returncode == 1, second.stderr
        assert f"{out} is being written by another run (process {first.pid})" in flat(second.stderr)
        assert server.request_count == asked  # refused before asking anything
        assert not out.exists()
        first.kill()  # a kill -9 lets go of the output too
        first.communicate(timeout=60)
        responder.mode = "ok"
        third = run_to_end(command)
    assert third.returncode == 0, third.stderr
    assert len(ok_lines(out)) == 4
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no lock nor partial left
