"""`faceteval correct` end to end over a local OpenAI-compatible server: judge, correct, re-run."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.core import Judgment
from tests.support.fennec_judge import FennecJudge
from tests.support.files import read_jsonl, sqlite_database
from tests.support.llm_server import LLMServer
from tests.support.processes import run_to_end, start, wait_for_lines
from tests.support.small_disk import run_on_small_disk

PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "weak"]},
    {"id": "b", "query": "Name a prime.", "candidates": ["poor", "fine"]},
    {"id": "c", "query": "Explain snow.", "candidates": ["fine", "good"]},
]
QUALITY = {"good": 5, "fine": 4, "weak": 2, "poor": 1, "weak (corrected)": 4, "poor (corrected)": 5}


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def table_rows(output: str) -> list[list[str]]:
    """The cells of every row of a rich table in ``output``."""
    rows = []
    for line in output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃|]", line) if c.strip()]
        if len(cells) > 1:
            rows.append(cells)
    return rows


@pytest.fixture
def fennec() -> FennecJudge:
    return FennecJudge(quality=QUALITY)


@pytest.fixture
def server(fennec: FennecJudge):  # type: ignore[no-untyped-def]
    with LLMServer(fennec.for_server()) as running:
        yield running


@pytest.fixture
def judged(tmp_path: Path, server: LLMServer) -> Path:
    """Judgments of PAIRS by `faceteval judge --method fennec` (its run record names the input)."""
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    out = tmp_path / "j.jsonl"
    result = invoke("judge", pairs, "--method", "fennec", *local(server), "--quiet", "--out", out)
    assert result.exit_code == 0, result.output
    return out


def local(server: LLMServer) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url]


def test_rejudge_with_nothing_to_correct_says_so_instead_of_a_table_of_gaps(
    tmp_path: Path, server: LLMServer, judged: Path
) -> None:
    result = invoke(
        "correct", judged, "--threshold", "1", *local(server), "--out", tmp_path / "c.jsonl", "--rejudge"
    )
    assert "No correction was re-judged, so there is no gain to show." in result.output
    assert "Correction gain" not in result.output


def test_correct_rejudge_then_rerun_from_the_cache(
    tmp_path: Path, server: LLMServer, fennec: FennecJudge, judged: Path
) -> None:
    out = tmp_path / "corrected.jsonl"
    before = server.request_count
    fennec.calls.clear()
    args = ["correct", judged, "--threshold", "3", *local(server), "--out", out, "--rejudge"]

    first = invoke(*args)

    assert first.exit_code == 0, first.output
    made = server.request_count - before
    assert made == 2 * (1 + 5 * 2)  # two responses below 3: a rewrite, then 5 criteria in both orders
    assert sorted(set(fennec.calls)) == ["fennec.correction", "fennec.pairwise"]
    lines = read_jsonl(out)
    assert [(c["id"], c["candidate"], c["status"], c["score"]) for c in lines] == [
        ("a", 1, "kept", 5.0),
        ("a", 2, "corrected", 2.0),
        ("b", 1, "corrected", 1.0),
        ("b", 2, "kept", 4.0),
        ("c", 1, "kept", 4.0),
        ("c", 2, "kept", 5.0),
    ]
    weak = lines[1]
    assert (weak["original"], weak["correction"], weak["query"]) == (
        "weak",
        "weak (corrected)",
        "Explain rain.",
    )
    assert weak["rejudge"] == {
        "status": "ok",
        "original": 2.0,
        "corrected": 4.0,
        "gain": 2.0,
        "verdict": 2,
        "consistent": True,
        "error": None,
        "raw": None,
    }
    assert lines[2]["rejudge"]["gain"] == 4.0
    assert [j["criterion"] for j in weak["judgments"]] == [
        "Accuracy",
        "Comprehensiveness",
        "Coherence",
        "Contextuality",
        "Conciseness",
    ]
    assert weak["usage"]["calls"] == 11 and weak["usage"]["cached_calls"] == 0
    stages = [e["stage"] for e in weak["trace"]]
    assert stages == ["fennec.correction", *["fennec.pairwise"] * 10]
    assert lines[0]["rejudge"] is None and lines[0]["correction"] is None and lines[0]["trace"] == []

    record = json.loads((tmp_path / "corrected.run.json").read_text(encoding="utf-8"))
    # schema 2: the model is the LLM's, the threshold an option, the files read are inputs
    assert (record["llm"]["model"], record["options"]["threshold"], record["inputs"]["input"]["path"]) == (
        "openai:judge",
        3.0,
        str(tmp_path / "pairs.jsonl"),
    )
    assert record["inputs"]["judgments"]["path"] == str(judged) and record["interrupted"] is False
    summary = record["summary"]
    assert (summary["responses"], summary["below_threshold"], summary["corrected"], summary["kept"]) == (
        6,
        2,
        2,
        4,
    )
    assert (summary["parse_errors"], summary["errors"], summary["skipped_judgments"]) == (0, 0, 0)
    assert (record["spend"]["calls"], record["spend"]["cached"]) == (22, 0)
    gain = summary["improvement"]
    assert (gain["responses"], gain["before"], gain["after"], gain["gain"]) == (2, 1.5, 4.5, 3.0)
    assert (gain["wins"], gain["ties"], gain["losses"]) == (2, 0, 0)
    assert gain["ci"][0] < 3.0 < gain["ci"][1]
    assert set(record["prompts"]) >= {"fennec/correction", "fennec/pairwise"}

    assert "6 of 6 done, from 3 of 3 judgments; 0 failed judgments skipped" in first.output
    assert "2: 2 corrected, 0 parse errors, 0 errors" in first.output
    assert "22 made, 0 from cache" in first.output
    rows = table_rows(first.output)
    header = next(k for k, row in enumerate(rows) if row[0] == "corrected")
    shown = dict(zip(rows[header], rows[header + 1], strict=True))
    low, high = gain["ci"]
    assert shown == {
        "corrected": "2",
        "re-judged": "2",
        "before": "1.50",
        "after": "4.50",
        "Impr": "+3.00",
        "95% CI": f"[{low:.2f}, {high:.2f}]",
        "W/T/L": "2/0/0",
    }

    again = invoke(*args)

    assert again.exit_code == 0, again.output
    assert server.request_count - before == made  # every reply from the response cache
    assert "0 made, 22 from cache" in again.output
    rerun = read_jsonl(out)
    assert [(c["status"], c["correction"], c["rejudge"]) for c in rerun] == [
        (c["status"], c["correction"], c["rejudge"]) for c in lines
    ]
    assert rerun[1]["usage"]["cached_calls"] == 11
    assert json.loads((tmp_path / "corrected.run.json").read_text())["spend"]["cached"] == 22


def test_judgments_of_another_method_fail_with_the_file_and_line(
    tmp_path: Path, server: LLMServer, judged: Path
) -> None:
    other = Judgment(id="a", method="dna", status="ok", verdict=1, scores=[7, 3])
    with judged.open("a", encoding="utf-8") as handle:
        handle.write(other.model_dump_json() + "\n")
    before = server.request_count

    result = invoke("correct", judged, *local(server), "--out", tmp_path / "c.jsonl")

    assert result.exit_code == 1
    assert f"{judged}:4: field 'method'" in result.output and "'dna'" in result.output
    assert server.request_count == before
    assert not (tmp_path / "c.jsonl").exists()


def test_an_output_that_would_overwrite_the_response_cache_is_refused(
    tmp_path: Path, server: LLMServer, judged: Path
) -> None:
    cache, before = tmp_path / "replies.sqlite", server.request_count
    result = invoke("correct", judged, *local(server), "--cache", cache, "--out", cache)
    assert result.exit_code == 1
    assert f"would overwrite the response cache {cache}" in result.output
    assert server.request_count == before and not cache.exists()


def test_the_input_can_be_named_and_failed_judgments_are_skipped(
    tmp_path: Path, server: LLMServer, judged: Path
) -> None:
    moved = tmp_path / "elsewhere.jsonl"
    (tmp_path / "pairs.jsonl").rename(moved)
    failed = Judgment(id="c", method="fennec", status="error", error="ProviderServerError: 500")
    lines = judged.read_text(encoding="utf-8").splitlines()
    judged.write_text("\n".join([*lines[:2], failed.model_dump_json()]) + "\n", encoding="utf-8")
    out = tmp_path / "c.jsonl"

    missing = invoke("correct", judged, *local(server), "--out", out)
    assert missing.exit_code == 1 and "name it with --input" in missing.output

    result = invoke("correct", judged, "--input", moved, *local(server), "--out", out, "--threshold", "1.5")
    assert result.exit_code == 0, result.output
    assert [(c["id"], c["status"]) for c in read_jsonl(out)] == [
        ("a", "kept"),
        ("a", "kept"),
        ("b", "corrected"),
        ("b", "kept"),
    ]
    assert "1 failed judgment skipped" in result.output
    record = json.loads((tmp_path / "c.run.json").read_text())
    assert record["summary"]["improvement"] is None and record["summary"]["skipped_judgments"] == 1

    judged.write_text(failed.model_dump_json() + "\n", encoding="utf-8")
    nothing = invoke("correct", judged, "--input", moved, *local(server), "--out", out)
    assert nothing.exit_code == 1, nothing.output
    assert "there was nothing to correct" in " ".join(nothing.output.split())


def test_a_malformed_input_line_does_not_stop_the_rest(
    tmp_path: Path, server: LLMServer, judged: Path
) -> None:
    source = tmp_path / "pairs.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    source.write_text("\n".join([*lines, '{"id": "bad", "query": "q", "candidates": "not a list"}']) + "\n")
    failed = Judgment(id="bad", method="fennec", status="error", error="invalid input")
    with judged.open("a", encoding="utf-8") as handle:
        handle.write(failed.model_dump_json() + "\n")
    out = tmp_path / "c.jsonl"
    result = invoke("correct", judged, *local(server), "--out", out, "--threshold", "1.5")
    assert result.exit_code == 0, result.output
    assert "1 failed judgment skipped" in result.output and len(read_jsonl(out)) == 6
    exported = invoke("export", "sft", judged, "--out", tmp_path / "sft")
    assert exported.exit_code == 0, exported.output


def test_an_interrupted_run_finishes_from_the_cache(tmp_path: Path) -> None:
    pairs = [{"id": str(i), "query": f"Question {i}?", "candidates": ["weak", "fine"]} for i in range(20)]
    inputs = tmp_path / "many.jsonl"
    inputs.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    cache, out = tmp_path / "correct.sqlite", tmp_path / "c.jsonl"
    with LLMServer(FennecJudge(quality=QUALITY).for_server()) as fast:
        judgments = tmp_path / "many-j.jsonl"
        result = invoke("judge", inputs, "--method", "fennec", *local(fast), "--quiet", "--out", judgments)
        assert result.exit_code == 0, result.output
    with LLMServer(FennecJudge(quality=QUALITY).for_server(), latency=0.15) as slow:
        command = [sys.executable, "-m", "faceteval", "correct", str(judgments), *local(slow)]
        command += ["--cache", str(cache), "--concurrency", "2", "--quiet", "--out", str(out)]
        process = start(command)
        wait_for_lines(out, 6)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
        assert process.returncode == 130, stderr
        assert "Interrupted" in stdout
        assert json.loads((tmp_path / "c.run.json").read_text())["interrupted"] is True
        with sqlite3.connect(cache) as db:
            (kept,) = db.execute("SELECT COUNT(*) FROM responses").fetchone()
        assert 3 <= kept < 20
        before = len(slow.requests)
        resumed = run_to_end(command)
        assert resumed.returncode == 0, resumed.stderr
        assert len(slow.requests) - before == 20 - kept  # only the rewrites the first run did not finish
    lines = read_jsonl(out)
    assert [(c["id"], c["status"]) for c in lines[:2]] == [("0", "corrected"), ("0", "kept")]
    assert [c["status"] for c in lines] == ["corrected", "kept"] * 20
    assert sum(c["usage"]["cached_calls"] for c in lines) == kept


def test_an_output_that_is_not_ours_is_refused_unless_forced(
    tmp_path: Path, server: LLMServer, judged: Path
) -> None:
    database, calls = sqlite_database(tmp_path / "review.sqlite"), server.request_count
    before = database.read_bytes()
    result = invoke("correct", judged, *local(server), "--out", database, "--threshold", "1.5")
    assert result.exit_code == 1, result.output
    assert f"would overwrite {database}, an SQLite database" in " ".join(result.output.split())
    assert database.read_bytes() == before and server.request_count == calls
    forced = invoke("correct", judged, *local(server), "--out", database, "--threshold", "1.5", "--force")
    assert forced.exit_code == 0, forced.output
    assert len(read_jsonl(database)) == 6


def test_a_full_disk_stops_the_run_with_one_line_and_keeps_whole_lines_and_a_record(
    tmp_path: Path, server: LLMServer
) -> None:
    pairs = [{"id": str(i), "query": f"Question {i}?", "candidates": ["weak", "fine"]} for i in range(40)]
    inputs = tmp_path / "many.jsonl"
    inputs.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    judgments = tmp_path / "many-j.jsonl"
    judged = invoke("judge", inputs, "--method", "fennec", *local(server), "--quiet", "--out", judgments)
    assert judged.exit_code == 0, judged.output
    out = tmp_path / "disk" / "c.jsonl"
    command = [sys.executable, "-m", "faceteval", "correct", str(judgments), *local(server), "--quiet"]
    command += ["--cache", str(tmp_path / "c.sqlite"), "--out", str(out)]
    (run,) = run_on_small_disk(tmp_path / "disk", [command], size="100k")
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stderr.splitlines() == [f"error: no space left writing {out}"]
    kept = tmp_path / "disk-kept"
    lines = read_jsonl(kept / "c.jsonl")  # every line whole
    record = json.loads((kept / "c.run.json").read_text())
    assert 0 < len(lines) < 80 and record["written"]["c.jsonl"]["lines"] == len(lines)
    summary = record["summary"]
    assert summary["kept"] + summary["corrected"] == len(lines) and record["stopped_by"].startswith(
        "no space"
    )
