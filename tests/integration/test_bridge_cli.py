"""``faceteval bridge`` over a local OpenAI-compatible server: recorded judgments, files, a cached re-run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rich.progress import Progress

from faceteval._cli._app import cli
from faceteval._cli._console import err_console
from faceteval._cli._run import progress_bar
from faceteval._runner import JudgeJob
from faceteval.workflows.fennec._bridge_sources import load_sources
from tests.support.bridge_judge import REFUSAL, BridgeJudge
from tests.support.llm_server import Hang, LLMServer, Status
from tests.support.processes import partial_files, run_to_end, start, wait_for_lines


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    return Path(value)


def invoke(server: LLMServer, tmp_path: Path, data_dir: Path, *args: str) -> Result:
    common = [
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
        "--cache",
        str(tmp_path / "cache.sqlite"),
        "--retries",
        "0",
        "--data-dir",
        str(data_dir),
        "--out",
        str(tmp_path / "bridged"),
    ]
    return CliRunner().invoke(cli, ["bridge", *args, *common], catch_exceptions=False)


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_autoj_pairs_are_bridged_filtered_written_and_rerun_from_the_cache(
    tmp_path: Path, data_dir: Path
) -> None:
    sources = load_sources("autoj-pairwise", data_dir, limit=3)
    judge = BridgeJudge(
        mislead=[sources[2].responses[0]],  # both orders of autoj-pairwise:2
        refuse={"bridge.guideline": [sources[4].responses[0]]},  # both orders of autoj-pairwise:3
    )
    with LLMServer(judge.for_server()) as server:
        first = invoke(server, tmp_path, data_dir, "autoj-pairwise", "--limit", "3")
        assert first.exit_code == 0, first.output
        calls = len(server.requests)
        assert calls == 2 * 3 + 2 * 3 + 2 * (1 + 2)  # kept, inconsistent, re-asked guideline then stopped
        assert {r.body["model"] for r in server.requests} == {"judge"}
        assert all(r.body["temperature"] == 0 for r in server.requests)

        again = invoke(server, tmp_path, data_dir, "autoj-pairwise", "--limit", "3")
        assert again.exit_code == 0, again.output
        assert len(server.requests) == calls  # every reply, the refusals too, from the cache

    out = tmp_path / "bridged"
    assert (
        "Bridged 6 records of autoj-pairwise (recorded:auto-j-13b): 2 kept, 2 inconsistent, 2 parse errors"
        in (first.output)
    )
    assert f"LLM calls: {calls} (0 from cache)" in first.output
    assert f"LLM calls: {calls} ({calls} from cache)" in again.output
    assert "tokens of the calls made: 0 in, 0 out" in " ".join(again.output.split())
    assert "autoj-pairwise:3#1: parse_error:" in first.output
    records = jsonl(out / "autoj-pairwise.jsonl")
    assert [(r["id"], r["status"], r["consistent"]) for r in records] == [
        ("autoj-pairwise:1#1", "ok", True),
        ("autoj-pairwise:1#2", "ok", True),
        ("autoj-pairwise:2#1", "ok", False),
        ("autoj-pairwise:2#2", "ok", False),
        ("autoj-pairwise:3#1", "parse_error", None),
        ("autoj-pairwise:3#2", "parse_error", None),
    ]
    assert records[4]["raw"] == REFUSAL and records[4]["stage"] == "bridge.guideline"
    assert records[1]["order"] == [2, 1] and records[1]["responses"] == list(sources[1].responses)
    chats = jsonl(out / "autoj-pairwise.sft.jsonl")
    assert [[m["role"] for m in c["messages"]] for c in chats] == [["system", "user", "assistant"]] * 2
    assert [c["messages"][2]["content"] for c in chats] == [r["judgment"] for r in records[:2]]
    run = json.loads((out / "autoj-pairwise.run.json").read_text(encoding="utf-8"))
    options = run["options"]  # schema 2: what was bridged is among the options
    assert (options["benchmark"], options["judge"], options["limit"]) == (
        "autoj-pairwise",
        "recorded:auto-j-13b",
        3,
    )
    assert run["llm"]["model"] == "openai:judge"
    summary = run["summary"]
    assert (summary["records"], summary["kept"], summary["inconsistent"], summary["parse_errors"]) == (
        6,
        2,
        2,
        2,
    )
    assert summary["usage"]["calls"] == summary["usage"]["cached_calls"] == calls  # the re-run's


def test_pandalm_with_its_recorded_reasons_and_its_repeats_written_once(
    tmp_path: Path, data_dir: Path
) -> None:
    judge = BridgeJudge()
    with LLMServer(judge.for_server()) as server:
        result = invoke(server, tmp_path, data_dir, "pandalm", "--judge", "gpt-3.5-turbo", "--limit", "3")
        # Two of the three records show the judge the same pair: their three identical calls are
        # made once, whatever the timing (one waits for the other's reply, as from the cache).
        assert len(server.requests) == 6
    assert result.exit_code == 0, result.output
    assert "LLM calls: 9 (3 from cache)" in result.output
    assert "Bridged 3 records of pandalm (recorded:gpt-3.5-turbo): 3 kept, 0 inconsistent" in result.output
    out = tmp_path / "bridged"
    records = jsonl(out / "pandalm.jsonl")
    assert all(r["judge"] == "gpt-3.5-turbo" and r["judgment"].startswith("Response ") for r in records)
    # PandaLM records the same judgment of the same pair under pandalm:0 and pandalm:2: both records
    # are kept and written, their one chat once, and the repeat counted.
    assert [r["id"] for r in records] == ["pandalm:0", "pandalm:1", "pandalm:2"]
    assert records[0]["judgment"] == records[2]["judgment"]
    assert all(r["status"] == "ok" and r["consistent"] for r in records)
    lines = (out / "pandalm.sft.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(set(lines)) == 2
    assert [json.loads(line)["messages"][2]["content"] for line in lines] == [
        r["judgment"] for r in records[:2]
    ]
    assert "2 training chats in" in result.output and "(1 repeated chat left out)" in result.output
    summary = json.loads((out / "pandalm.run.json").read_text(encoding="utf-8"))["summary"]
    assert (summary["records"], summary["kept"], summary["duplicates"]) == (3, 3, 1)
    first_prompt = server.requests[0].body["messages"][1]["content"]
    assert "So, the final decision is" in first_prompt and "[The Start of Judge Result]" in first_prompt


def test_prometheus_single_eval_with_the_gpt4_feedback(tmp_path: Path, data_dir: Path) -> None:
    sources = load_sources("prometheus-mtbench", data_dir, limit=2)
    judge = BridgeJudge(mislead=[sources[0].responses[0]])
    with LLMServer(judge.for_server()) as server:
        result = invoke(server, tmp_path, data_dir, "prometheus-mtbench", "--limit", "2")
    assert result.exit_code == 0, result.output
    assert "1 kept, 1 inconsistent, 0 parse errors" in result.output
    records = jsonl(tmp_path / "bridged" / "prometheus-mtbench.jsonl")
    assert [(r["kind"], r["judge"], r["consistent"]) for r in records] == [
        ("single", "gpt-4-run1", False),
        ("single", "gpt-4-run1", True),
    ]
    assert records[0]["regenerated_score"] != records[0]["score"]
    (chat,) = jsonl(tmp_path / "bridged" / "prometheus-mtbench.sft.jsonl")
    assert chat["messages"][2]["content"] == records[1]["judgment"]
    assert records[1]["judgment"].startswith(f"Response Score: {records[1]['score']:g}\nExplanation: ")
    assert "Single-Score Evaluations" in chat["messages"][0]["content"]


def test_a_benchmark_without_recorded_judgments_is_refused(tmp_path: Path, data_dir: Path) -> None:
    result = CliRunner().invoke(
        cli, ["bridge", "summeval", "--model", "openai:judge", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2 and "'summeval' is not one of" in result.output


@pytest.mark.parametrize("quiet", [False, True], ids=["progress", "quiet"])
def test_a_progress_bar_counts_the_records_unless_quiet(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, quiet: bool
) -> None:
    bars: list[tuple[JudgeJob, Progress]] = []

    def spy(request: JudgeJob) -> Progress:
        bar = progress_bar(request)
        bars.append((request, bar))
        return bar

    monkeypatch.setattr("faceteval.workflows.fennec._cli._bridge.progress_bar", spy)
    monkeypatch.setattr(err_console, "_force_terminal", True)  # a bar is shown on a terminal only
    with LLMServer(BridgeJudge().for_server()) as server:
        flags = ["--quiet"] if quiet else []
        result = invoke(server, tmp_path, data_dir, "prometheus-mtbench", "--limit", "3", *flags)
    assert result.exit_code == 0, result.output
    ((request, bar),) = bars
    assert request.outputs.progress is not quiet
    assert bar.disable is quiet
    (task,) = bar.tasks
    assert (task.description, task.completed, task.total) == ("bridging", 3, 3)


@pytest.mark.parametrize(
    "failing",
    [
        {"refuse": {"bridge.criteria": [""]}},  # every prompt refused, the re-ask too
        {"mislead": [""]},  # every guideline states another verdict
    ],
    ids=["parse-errors", "inconsistent"],
)
def test_a_run_that_keeps_no_record_exits_1(tmp_path: Path, data_dir: Path, failing: dict[str, Any]) -> None:
    with LLMServer(BridgeJudge(**failing).for_server()) as server:
        result = invoke(server, tmp_path, data_dir, "autoj-pairwise", "--limit", "2")
    assert result.exit_code == 1, result.output
    assert "0 kept" in result.output and "no record was kept" in result.output
    out = tmp_path / "bridged"
    records = jsonl(out / "autoj-pairwise.jsonl")
    assert len(records) == 4 and not any(r["status"] == "ok" and r["consistent"] for r in records)
    assert (out / "autoj-pairwise.sft.jsonl").read_text(encoding="utf-8") == ""
    run = json.loads((out / "autoj-pairwise.run.json").read_text(encoding="utf-8"))
    assert run["interrupted"] is False and (run["summary"]["records"], run["summary"]["kept"]) == (4, 0)


class Hanging:
    """The bridging judge, but while ``on``, a prompt holding one of ``texts`` hangs."""

    def __init__(self, judge: BridgeJudge, texts: Collection[str]) -> None:
        self.judge = judge
        self.texts = texts
        self.on = True
        self.hung: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, body: Mapping[str, Any]) -> str | Hang:
        prompt = next(str(m["content"]) for m in body["messages"] if m["role"] == "user")
        with self._lock:
            if self.on and any(text in prompt for text in self.texts):
                self.hung.append(prompt)
                return Hang(60)
        return self.judge.respond(body["messages"])


@pytest.mark.parametrize(
    "stop", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["ctrl-c", "terminate", "crash"]
)
def test_an_interrupted_run_keeps_what_finished_and_a_rerun_finishes_from_the_cache(
    tmp_path: Path, data_dir: Path, stop: signal.Signals
) -> None:
    sources = load_sources("autoj-pairwise", data_dir, limit=3)
    ids = [source.id for source in sources]
    # The third pair's calls hang in the first run (which is stopped while they wait): the records
    # before it finish, its two do not.
    responder = Hanging(BridgeJudge(), [sources[4].responses[0]])
    out, cache = tmp_path / "bridged", tmp_path / "cache.sqlite"
    records_path, run_path = out / "autoj-pairwise.jsonl", out / "autoj-pairwise.run.json"
    with LLMServer(responder, latency=0.05) as server:
        command = [
            sys.executable,
            "-m",
            "faceteval",
            "bridge",
            "autoj-pairwise",
            "--limit",
            "3",
            "--model",
            "openai:judge",
            "--base-url",
            server.base_url,
            "--cache",
            str(cache),
            "--retries",
            "0",
            "--concurrency",
            "8",
            "--data-dir",
            str(data_dir),
            "--out",
            str(out),
        ]
        process = start(command)
        wait_for_lines(records_path, 4, also=lambda: len(responder.hung) == 2)
        process.send_signal(stop)
        stdout, stderr = process.communicate(timeout=30)
        with sqlite3.connect(cache) as db:
            (kept,) = db.execute("SELECT COUNT(*) FROM responses").fetchone()
        assert kept == 4 * 3  # the four finished records' replies; the hung calls never answered
        # Every finished record is written, in the recorded order, with the chats of the kept ones:
        # put in place when the run stops, or (killed) left in the partial files, no file in place.
        sft_path = out / "autoj-pairwise.sft.jsonl"
        if stop == signal.SIGKILL:
            assert not records_path.exists() and not sft_path.exists() and not run_path.exists()
            finished, chats = (jsonl(partial_files(path)[0]) for path in (records_path, sft_path))
        else:
            finished, chats = jsonl(records_path), jsonl(sft_path)
        assert [r["id"] for r in finished] == ids[:4]
        assert all(r["status"] == "ok" and r["consistent"] for r in finished)
        assert len(chats) == 4
        if stop == signal.SIGKILL:
            assert process.returncode == -signal.SIGKILL
        else:  # a clean stop: the summary and the run record, which counts every call sent
            assert process.returncode == 130, stdout + stderr
            assert "Interrupted." in stdout and "re-run the same command" in stdout
            assert "Bridged 4 of 6 records of autoj-pairwise" in stdout
            run = json.loads(run_path.read_text(encoding="utf-8"))
            assert run["interrupted"] is True and run["stopped_by"] is None
            assert (run["summary"]["sources"], run["summary"]["records"], run["summary"]["kept"]) == (6, 4, 4)
            assert run["summary"]["usage"]["calls"] == 12
            assert run["spend"]["calls"] == len(server.requests) == 12 + 2  # the two hung calls too
        responder.on = False
        before = len(server.requests)
        resumed = run_to_end(command)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert len(server.requests) - before == 2 * 3  # only the unfinished records' calls
    records = jsonl(records_path)
    assert [r["id"] for r in records] == ids
    assert [r["usage"]["cached_calls"] for r in records] == [3, 3, 3, 3, 0, 0]
    assert all(r["status"] == "ok" and r["consistent"] for r in records)
    assert len(jsonl(out / "autoj-pairwise.sft.jsonl")) == 6
    run = json.loads(run_path.read_text(encoding="utf-8"))
    assert run["interrupted"] is False and run["summary"]["records"] == 6
    assert "Bridged 6 records of autoj-pairwise" in resumed.stdout


def test_a_run_that_keeps_failing_stops_with_what_it_finished(tmp_path: Path, data_dir: Path) -> None:
    # Auto-J records come in pairs of orders: --limit 8 asks for 16 records, every call a 500.
    with LLMServer(lambda body: Status(500)) as server:
        result = invoke(server, tmp_path, data_dir, "autoj-pairwise", "--limit", "8", "--concurrency", "1")
        made = len(server.requests)
    assert result.exit_code == 1, result.output
    assert "stopped after 10 records in a row failed" in " ".join(result.output.split())
    records = jsonl(tmp_path / "bridged" / "autoj-pairwise.jsonl")
    assert 10 <= len(records) < 16 and all(r["status"] == "error" for r in records)
    assert made < 16  # the rest were never asked
    run = json.loads((tmp_path / "bridged" / "autoj-pairwise.run.json").read_text(encoding="utf-8"))
    assert "in a row failed" in run["stopped_by"]


def test_a_file_not_ours_in_out_is_refused_unless_forced(tmp_path: Path, data_dir: Path) -> None:
    out = tmp_path / "bridged"
    out.mkdir()
    (out / "autoj-pairwise.run.json").write_text("my notes\n")
    with LLMServer(BridgeJudge().for_server()) as server:
        result = invoke(server, tmp_path, data_dir, "autoj-pairwise", "--limit", "1")
        assert result.exit_code == 1, result.output
        message = " ".join(result.output.split())
        assert f"would overwrite {out / 'autoj-pairwise.run.json'}, a file of something else" in message
        assert server.request_count == 0 and [p.name for p in out.iterdir()] == ["autoj-pairwise.run.json"]
        forced = invoke(server, tmp_path, data_dir, "autoj-pairwise", "--limit", "1", "--force")
    assert forced.exit_code == 0, forced.output
    assert json.loads((out / "autoj-pairwise.run.json").read_text())["summary"]["records"] == 2
