"""`faceteval judge` end to end, over HTTP, against a local OpenAI-compatible server."""

from __future__ import annotations

import gc
import json
import os
import re
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest
from click.testing import CliRunner, Result

from faceteval import _cli
from faceteval._cli import main
from faceteval._cli._app import cli
from faceteval._cli._console import err_console
from faceteval._util.heap import YOUNG_GENERATION
from tests.support.files import read_jsonl, table_rows
from tests.support.llm_server import Disconnect, LLMServer, Status
from tests.support.processes import partial_files, run_to_end, start, wait_for_lines, written_lines
from tests.support.rule_judge import RuleJudge


def write_pairs(path: Path, pairs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    return path


def pairs_file(tmp_path: Path) -> Path:
    return write_pairs(
        tmp_path / "pairs.jsonl",
        [
            {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1},
            {"id": "b", "query": "Explain rain.", "candidates": ["poor", "good"], "label": 2},
            {"id": "c", "query": "Name a prime.", "candidates": ["good", "fair"]},
        ],
    )


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def local(server: LLMServer) -> list[str]:
    """The flags that point `judge` at the local server."""
    return ["--model", "openai:judge", "--base-url", server.base_url]


@pytest.fixture
def rule() -> RuleJudge:
    return RuleJudge(quality={"good": 9, "fair": 6, "poor": 3})


@pytest.fixture
def server(rule: RuleJudge):  # type: ignore[no-untyped-def]
    with LLMServer(rule.for_server()) as running:
        yield running


def test_dna_judges_pairs_and_writes_judgments_and_a_run_record(tmp_path: Path, server: LLMServer) -> None:
    out = tmp_path / "out" / "judgments.jsonl"
    result = invoke(
        pairs_file(tmp_path),
        "--method",
        "dna",
        *local(server),
        "--out",
        out,
        "--cache",
        tmp_path / "c.sqlite",
    )
    assert result.exit_code == 0, result.output
    judgments = read_jsonl(out)
    assert [(j["id"], j["status"], j["verdict"]) for j in judgments] == [
        ("a", "ok", 1),
        ("b", "ok", 2),
        ("c", "ok", 1),
    ]
    first = judgments[0]
    assert len(first["facets"]) == 3 and sum(f["weight"] for f in first["facets"]) == pytest.approx(1)
    assert first["usage"]["calls"] == 5 and first["usage"]["cached_calls"] == 0
    assert {e["stage"] for e in first["trace"]} == {"dna.aspects", "dna.weights", "dna.score"}
    # two distinct queries: aspects and weights twice, three facet scores per pair
    assert len(server.requests) == 2 + 2 + 9
    assert {r.body["model"] for r in server.requests} == {"judge"}
    record = json.loads((tmp_path / "out" / "judgments.run.json").read_text())
    assert record["method"]["name"] == "dna" and record["llm"]["model"] == "openai:judge"
    assert record["inputs"]["input"]["absolute"] == os.path.abspath(tmp_path / "pairs.jsonl")  # schema 2
    assert record["spend"]["calls"] == 13 and record["summary"]["judgments"] == {"ok": 3}
    assert set(record["prompts"]) >= {"dna/aspects", "dna/weights", "dna/score"}
    assert "judged" in result.output and "13 made, 0 from cache" in result.output


def test_a_second_run_makes_zero_calls(tmp_path: Path, server: LLMServer) -> None:
    args = [
        pairs_file(tmp_path),
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
        "--cache",
        tmp_path / "c.sqlite",
        "--swap",
    ]
    first = invoke(*args, "--out", tmp_path / "1.jsonl")
    assert first.exit_code == 0, first.output
    made = len(server.requests)
    second = invoke(*args, "--out", tmp_path / "2.jsonl")
    assert second.exit_code == 0, second.output
    assert len(server.requests) == made
    assert "0 made" in second.output
    strip = lambda js: [(j["verdict"], j["scores"], j["consistent"]) for j in js]  # noqa: E731
    assert strip(read_jsonl(tmp_path / "1.jsonl")) == strip(read_jsonl(tmp_path / "2.jsonl"))
    assert all(e["cached"] for j in read_jsonl(tmp_path / "2.jsonl") for e in j["trace"])


def test_no_cache_calls_again(tmp_path: Path, server: LLMServer) -> None:
    args = [pairs_file(tmp_path), "--method", "direct", *local(server), "--no-cache"]
    assert invoke(*args, "--out", tmp_path / "o.jsonl").exit_code == 0
    assert invoke(*args, "--out", tmp_path / "other.jsonl").exit_code == 0  # not a re-run of o.jsonl
    assert len(server.requests) == 6


def test_dry_run_prints_the_plan_and_calls_nothing(tmp_path: Path, server: LLMServer) -> None:
    result = invoke(
        pairs_file(tmp_path),
        "--method",
        "dna",
        "--model",
        "openai:gpt-4o-mini",
        "--base-url",
        server.base_url,
        "--dry-run",
        "--no-cache",
        "--swap",
        "--out",
        tmp_path / "never.jsonl",
    )
    assert result.exit_code == 0, result.output
    assert server.requests == []
    assert not (tmp_path / "never.jsonl").exists()
    rows = table_rows(result.output)
    assert rows["dna.aspects"][0] == "2" and rows["dna.weights"][0] == "2"
    assert rows["dna.score"][0] == "18"  # 3 pairs x 3 aspects x 2 orders
    assert rows["total"][0] == "22"
    assert rows["total"][-1].startswith("$")
    assert "No LLM was called" in result.output


def test_a_dry_run_on_an_80_column_terminal_shows_whole_stage_names_and_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(err_console, "_width", 80)  # (restored to None: sized by the terminal again)
    pairs = write_pairs(
        tmp_path / "p.jsonl",
        [{"id": str(i), "query": f"Question {i}?", "candidates": ["good", "poor"]} for i in range(200)],
    )
    result = invoke(pairs, "--method", "fennec", "--model", "openai:gpt-4o", "--dry-run", "--no-cache")
    assert result.exit_code == 0, result.output
    rows = table_rows(result.output)
    assert [rows[stage][0] for stage in ("fennec.criteria", "fennec.guideline", "fennec.pairwise")] == [
        "200",
        "1,000",
        "1,000",
    ]
    assert all("…" not in cell for cells in rows.values() for cell in cells)
    assert re.fullmatch(r"\$\d+\.\d{4}", rows["total"][-1])
    assert max(len(line) for line in result.output.splitlines() if "│" in line) <= 80


def test_dry_run_needs_no_key_and_knows_unpriced_models(tmp_path: Path) -> None:
    result = invoke(
        pairs_file(tmp_path), "--method", "direct", "--model", "openai:gpt-4o", "--dry-run", "--no-cache"
    )
    assert result.exit_code == 0, result.output
    unpriced = invoke(
        pairs_file(tmp_path),
        "--method",
        "cot",
        "--model",
        "openai:my-model",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--dry-run",
        "--no-cache",
    )
    assert "unknown" in unpriced.output and "--prices" in unpriced.output


def test_bad_lines_are_reported_and_the_rest_runs(tmp_path: Path, server: LLMServer) -> None:
    path = write_pairs(tmp_path / "p.jsonl", [{"id": "a", "query": "Q", "candidates": ["good", "poor"]}])
    with path.open("a") as handle:
        handle.write(
            '{"id": "b", "query": "Q", "candidates": "good"}\n'
            '{"id": "c", "query": "Q", "candidates": ["poor", "good"]}\n'
        )
    out = tmp_path / "o.jsonl"
    result = invoke(path, "--method", "direct", *local(server), "--no-cache", "--out", out)
    assert result.exit_code == 6, result.output  # some judgments failed (exit 6), the rest written
    assert f"{path}:2: field 'candidates'" in result.output
    assert [(j["id"], j["status"]) for j in read_jsonl(out)] == [("a", "ok"), ("b", "error"), ("c", "ok")]
    assert len(server.requests) == 2
    only_bad = write_pairs(tmp_path / "bad.jsonl", [{"id": "b", "query": "Q", "candidates": "good"}])
    result = invoke(only_bad, "--method", "direct", *local(server), "--no-cache", "--out", out)
    assert result.exit_code == 1 and "no instance was judged" in result.output


def test_the_summary_says_how_many_failures_it_does_not_show(tmp_path: Path, server: LLMServer) -> None:
    bad = [{"id": f"x{i}", "query": "Q", "candidates": ["a"], "label": i} for i in range(2, 7)]
    path = write_pairs(
        tmp_path / "p.jsonl", [{"id": "a", "query": "Q", "candidates": ["good", "poor"]}, *bad]
    )
    result = invoke(path, "--method", "direct", *local(server), "--no-cache", "--out", tmp_path / "o.jsonl")
    failed = [line for line in result.output.splitlines() if line.startswith("failed:")]
    assert [line.split(":")[1].strip() for line in failed[:3]] == ["x2", "x3", "x4"], result.output
    assert failed[3:] == ["failed: 2 more, with other messages (each is in the output with its error)"]


def test_strict_stops_before_any_call(tmp_path: Path, server: LLMServer) -> None:
    path = write_pairs(
        tmp_path / "p.jsonl", [{"id": "a", "query": "Q", "candidates": ["x", "y"]}, {"id": "b", "query": "Q"}]
    )
    result = invoke(path, *local(server), "--no-cache", "--strict", "--out", tmp_path / "o.jsonl")
    assert result.exit_code == 1
    assert f"{path}:2: field 'candidates'" in result.output and "nothing was judged" in result.output
    assert server.requests == []


def test_strict_stops_before_any_call_for_an_instance_the_method_cannot_judge(
    tmp_path: Path, server: LLMServer
) -> None:
    rows = [
        {"id": "a", "query": "Q", "candidates": ["x"], "criteria": ["Accuracy"]},
        {"id": "b", "query": "Q", "candidates": ["y"]},  # coeval needs criteria
    ]
    path = write_pairs(tmp_path / "p.jsonl", rows)
    result = invoke(
        path, "--method", "coeval", *local(server), "--no-cache", "--strict", "--out", tmp_path / "o"
    )
    assert result.exit_code == 1
    printed = " ".join(result.output.split())
    assert f"cannot judge: {path}: instance 'b': coeval evaluates criteria" in printed
    assert "1 instance coeval cannot judge as it is; nothing was judged (--strict)" in printed
    assert server.requests == [] and not (tmp_path / "o").exists()


def test_a_dry_run_of_an_input_with_nothing_to_judge_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n{not json\n', encoding="utf-8")
    plan = invoke(bad, "--method", "direct", "--model", "openai:gpt-4o-mini", "--dry-run")
    assert plan.exit_code == 1, plan.output
    assert "2 invalid" in plan.output


def test_retries_and_failures_over_http_are_counted(tmp_path: Path, server: LLMServer) -> None:
    server.enqueue(Status(429, headers={"retry-after": "0"}), Status(500))
    out = tmp_path / "o.jsonl"
    result = invoke(
        pairs_file(tmp_path),
        "--method",
        "direct",
        *local(server),
        "--no-cache",
        "--concurrency",
        "1",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    assert [j["status"] for j in read_jsonl(out)] == ["ok", "ok", "ok"]
    assert "2 retries" in result.output
    assert len(server.requests) == 5


def test_unreadable_replies_become_parse_errors_with_the_raw_text(tmp_path: Path) -> None:
    with LLMServer(lambda body: "I cannot compare these responses.") as server:
        out = tmp_path / "o.jsonl"
        result = invoke(
            pairs_file(tmp_path), "--method", "direct", *local(server), "--no-cache", "--out", out
        )
        assert len(server.requests) == 6  # one re-ask each
    assert result.exit_code == 1  # nothing was judged: a script must be able to tell
    assert "no instance was judged" in result.output
    judgments = read_jsonl(out)
    assert {j["status"] for j in judgments} == {"parse_error"}
    assert all(j["verdict"] is None and j["scores"] is None for j in judgments)
    assert judgments[0]["trace"][1]["raw"] == "I cannot compare these responses."
    assert "3 parse errors" in result.output


def test_retry_unreadable_asks_again_what_an_earlier_run_could_not_read(
    tmp_path: Path, rule: RuleJudge
) -> None:
    out = tmp_path / "o.jsonl"
    with LLMServer(lambda body: "I cannot compare these responses.") as server:
        args = [pairs_file(tmp_path), "--method", "direct", *local(server), "--cache", tmp_path / "c.sqlite"]
        assert invoke(*args, "--out", out).exit_code == 1
        assert len(server.requests) == 6  # each asked, and re-asked once

        server.responder = rule.for_server()  # the model would answer now, but the cache answers first
        assert invoke(*args, "--out", out).exit_code == 1
        assert len(server.requests) == 6
        assert {j["status"] for j in read_jsonl(out)} == {"parse_error"}

        result = invoke(*args, "--retry-unreadable", "--out", out)
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 9  # one call each: the new replies read, so no re-ask
        assert "3 made, 0 from cache" in result.output
        judgments = read_jsonl(out)
        assert [j["verdict"] for j in judgments] == [1, 2, 1]
        assert [len(j["trace"]) for j in judgments] == [1, 1, 1]

        again = invoke(*args, "--retry-unreadable", "--out", tmp_path / "again.jsonl")
        assert again.exit_code == 0 and len(server.requests) == 9  # readable now: all from the cache
    assert [j["verdict"] for j in read_jsonl(tmp_path / "again.jsonl")] == [1, 2, 1]


def test_criteria_file_and_mean_aggregate(tmp_path: Path, server: LLMServer, rule: RuleJudge) -> None:
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text("criteria:\n  - name: accuracy\n    description: the facts are right\n  - clarity\n")
    out = tmp_path / "o.jsonl"
    result = invoke(
        pairs_file(tmp_path),
        "--criteria",
        criteria,
        "--aggregate",
        "mean",
        *local(server),
        "--no-cache",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    assert [f["name"] for f in read_jsonl(out)[0]["facets"]] == ["accuracy", "clarity"]
    assert set(rule.calls) == {"dna.score"}


def test_anthropic_model_over_http(tmp_path: Path, server: LLMServer) -> None:
    out = tmp_path / "o.jsonl"
    result = invoke(
        pairs_file(tmp_path),
        "--method",
        "direct",
        "--model",
        "anthropic:claude-test",
        "--base-url",
        server.root_url,
        "--no-cache",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    assert [j["verdict"] for j in read_jsonl(out)] == [1, 2, 1]
    assert {r.path for r in server.requests} == {"/v1/messages"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "dna"], "--model is required"),
        (
            ["--method", "direct", "--model", "openai:x", "--aspects", "4"],
            "--aspects only applies to --method dna",
        ),
        (["--model", "gpt-4o"], "not of the form <provider>:<model>"),
        (["--model", "openai:x", "--temperature", "-3"], "-3.0 is not in the range x>=0.0"),
        (
            ["--model", "openai:x", "--criteria", "c.yaml", "--aspects", "5"],
            "--aspects sets how many criteria to generate, but --criteria gives every instance its own",
        ),
        (["--model", "openai:x", "--base-url", "127.0.0.1:8123/v1"], "is not a whole http(s) URL"),
        (["--model", "openai:gpt-4o"], "OPENAI_API_KEY"),
        (["--model", "openai:x", "--retry-unreadable"], "--no-cache keeps none"),
    ],
)
def test_usage_and_config_errors_are_clear(tmp_path: Path, args: list[str], message: str) -> None:
    result = invoke(pairs_file(tmp_path), "--no-cache", *args)
    assert result.exit_code in (1, 2)
    assert message in result.output


def test_an_output_that_would_overwrite_the_input_is_refused(tmp_path: Path) -> None:
    pairs = pairs_file(tmp_path)
    before = pairs.read_text()
    for out in (pairs, tmp_path / "." / "pairs.jsonl"):
        result = invoke(pairs, "--method", "direct", "--model", "openai:judge", "--base-url", "http://x/v1",
                        "--out", out)  # fmt: skip
        assert result.exit_code == 1 and "would overwrite the input" in result.output
    record_named_like_input = tmp_path / "j.run.json"
    record_named_like_input.write_text(before)
    result = invoke(record_named_like_input, "--method", "direct", "--model", "openai:judge", "--out",
                    tmp_path / "j.jsonl")  # fmt: skip
    assert result.exit_code == 1 and "would overwrite the input" in result.output
    assert pairs.read_text() == record_named_like_input.read_text() == before


def test_an_output_that_would_overwrite_the_response_cache_is_refused(
    tmp_path: Path, server: LLMServer
) -> None:
    cache = tmp_path / "c.sqlite"
    args = [pairs_file(tmp_path), "--method", "direct", *local(server)]
    assert invoke(*args, "--cache", cache, "--out", tmp_path / "j.jsonl").exit_code == 0
    paid = cache.read_bytes()
    fresh = tmp_path / "new.sqlite"  # not made yet: the cache would be made, then written over
    for given, out in ((cache, cache), (cache, tmp_path / "." / "c.sqlite"), (fresh, fresh)):
        result = invoke(*args, "--cache", given, "--out", out)
        assert result.exit_code == 1, result.output
        assert f"would overwrite the response cache {given}" in result.output
    assert cache.read_bytes() == paid and not fresh.exists()
    assert len(server.requests) == 3  # the first run's only


def test_an_unreadable_input_leaves_an_earlier_output_as_it_was(tmp_path: Path, server: LLMServer) -> None:
    out = tmp_path / "j.jsonl"
    assert (
        invoke(
            pairs_file(tmp_path), "--method", "direct", *local(server), "--no-cache", "--out", out
        ).exit_code
        == 0
    )
    kept, record = out.read_text(), (tmp_path / "j.run.json").read_text()
    array = tmp_path / "dataset.jsonl"  # a .json file may hold an array: it is read
    array.write_text(json.dumps([{"query": "Q", "candidates": ["a", "b"]}], indent=2))
    for dry in ([], ["--dry-run"]):
        result = invoke(tmp_path / "typo.jsonl", "--method", "direct", *local(server), "--out", out, *dry)
        assert result.exit_code == 1
        assert "typo.jsonl: cannot open" in result.output and "judged" not in result.output
        result = invoke(array, "--method", "direct", *local(server), "--out", out, *dry)
        assert result.exit_code == 1
        assert "dataset.jsonl:1: the file is a JSON array, not JSON Lines" in result.output
    assert (out.read_text(), (tmp_path / "j.run.json").read_text()) == (kept, record)


def test_the_response_cache_is_where_the_help_says(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    help_text = " ".join(invoke("--help").output.split())
    assert "Default: $FACETEVAL_CACHE, else $XDG_CACHE_HOME/faceteval/responses.sqlite" in help_text
    monkeypatch.delenv("FACETEVAL_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert invoke(pairs_file(tmp_path), "--method", "direct", *local(server), "-q").exit_code == 0
    assert (tmp_path / "xdg" / "faceteval" / "responses.sqlite").is_file()
    monkeypatch.setenv("FACETEVAL_CACHE", str(tmp_path / "chosen.sqlite"))
    assert invoke(pairs_file(tmp_path), "--method", "cot", *local(server), "-q").exit_code == 0
    assert (tmp_path / "chosen.sqlite").is_file()


def test_config_file_supplies_defaults(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faceteval.toml").write_text(
        f'[judge]\nmodel = "openai:judge"\nbase-url = "{server.base_url}"\n'
        'method = "direct"\ncache = "my-cache.sqlite"\nno-trace = true\nmax_tokens = 64\n'
        "temperature = 0.5\n"
    )
    result = invoke(pairs_file(tmp_path), "--out", "o.jsonl")
    assert result.exit_code == 0, result.output
    judgments = read_jsonl(tmp_path / "o.jsonl")
    assert {j["method"] for j in judgments} == {"direct"}
    assert all(j["trace"] == [] for j in judgments)  # no-trace = true
    assert {(r.body["max_tokens"], r.body["temperature"]) for r in server.requests} == {(64, 0.5)}
    with sqlite3.connect(tmp_path / "my-cache.sqlite") as db:  # cache = "..." (the --cache option)
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone() == (3,)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[judge]\nconcurency = 3\n", "[judge] has no option 'concurency' (did you mean 'concurrency'?)"),
        ("[judgee]\nmodel = 'x'\n", "[judgee] is not a command's table"),
        ("[hdeval.train]\nbogus = 1\n", "[hdeval.train] has no option 'bogus'"),
        # A value of the wrong kind is named, not a traceback nor a setting click reads otherwise.
        ("[judge]\nswap = 3\n", "faceteval.toml: [judge] swap = 3: expected true or false"),
        ('[judge]\nno-trace = "yes"\n', 'faceteval.toml: [judge] no-trace = "yes": expected true or false'),
        ("[judge]\nconcurrency = 3.5\n", "[judge] concurrency = 3.5: '3.5' is not a valid integer range"),
        ("[judge]\nconcurrency = -3\n", "faceteval.toml: [judge] concurrency = -3: -3 is not in the range"),
        ("[judge]\nconcurrency = true\n", "[judge] concurrency = true: expected a text or a number"),
        ("[judge]\nseed = 1979-05-27\n", "[judge] seed = 1979-05-27: expected a text or a number"),
        ("[meta-eval]\ncategory = ['a', [1]]\n", '[meta-eval] category = ["a", [1]]: expected texts'),
        ("prices = 3\n", "faceteval.toml: prices must be a table"),
        ('[prices]\n"openai:x" = 3\n', "faceteval.toml [prices]: openai:x: expected {input: <USD"),
        ('[prices]\n"openai:x" = {input = -1, output = 1}\n', "faceteval.toml [prices]: openai:x"),
    ],
)
def test_config_file_mistakes_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faceteval.toml").write_text(toml)
    result = CliRunner().invoke(cli, ["judge", str(pairs_file(tmp_path)), "--dry-run", "--model", "openai:x"])
    assert result.exit_code == 2 and message in result.output, result.output  # a usage error
    assert result.output.splitlines()[-1].startswith("error: faceteval.toml"), result.output


def test_usage_errors_end_in_a_lowercase_error_line_as_every_error_does(tmp_path: Path) -> None:
    for args in (["judge", "--bogus"], ["judge", "x.jsonl", "--concurrency", "a"], ["nosuch"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert result.output.splitlines()[-1].startswith("error: ") and "Error:" not in result.output


@pytest.mark.parametrize(
    "stop", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["ctrl-c", "terminate", "crash"]
)
def test_interrupted_run_resumes_from_cache(tmp_path: Path, stop: signal.Signals) -> None:
    rule = RuleJudge(quality={"good": 9, "poor": 3}, record=False)
    pairs = [{"id": str(i), "query": f"Question {i}?", "candidates": ["good", "poor"]} for i in range(30)]
    path = write_pairs(tmp_path / "p.jsonl", pairs)
    cache, out = tmp_path / "c.sqlite", tmp_path / "o.jsonl"
    with LLMServer(rule.for_server(), latency=0.15) as server:
        command = [
            sys.executable,
            "-m",
            "faceteval",
            "judge",
            str(path),
            "--method",
            "direct",
            *local(server),
            "--cache",
            str(cache),
            "--concurrency",
            "2",
            "--out",
            str(out),
            "--quiet",
        ]
        process = start(command)
        wait_for_lines(out, 4)
        assert not psutil.Process(process.pid).children()  # the calls are made in the command's process
        process.send_signal(stop)
        _, stderr = process.communicate(timeout=30)
        with sqlite3.connect(cache) as db:
            (kept,) = db.execute("SELECT COUNT(*) FROM responses").fetchone()
        assert 4 <= kept < 30
        if stop == signal.SIGKILL:  # nothing put in place: the finished lines are in the partial file
            assert process.returncode == -signal.SIGKILL
            assert not out.exists() and not (tmp_path / "o.run.json").exists()
            assert written_lines(out) >= 4 and len(partial_files(out)) == 1
        else:  # a clean stop: the summary and the run record count every call sent
            assert process.returncode == 130, stderr
            assert "Interrupted" in stderr
            record = json.loads((tmp_path / "o.run.json").read_text())
            assert record["interrupted"] is True
            # Every reply received, and the calls still under way (sent, so likely billed): at most
            # --concurrency more, and at least every request the server saw.
            received = len(server.requests)
            assert kept <= received <= record["spend"]["calls"] <= kept + 2
            assert record["summary"]["judgments"]["ok"] == len(read_jsonl(out)) <= kept
        before = len(server.requests)
        resumed = run_to_end(command)
        assert resumed.returncode == 0, resumed.stderr
        assert len(server.requests) - before == 30 - kept  # only what the first run did not finish
    judgments = read_jsonl(out)
    assert [j["id"] for j in judgments] == [str(i) for i in range(30)]
    assert {j["status"] for j in judgments} == {"ok"}
    assert sum(j["usage"]["cached_calls"] for j in judgments) == kept


def test_a_run_that_keeps_failing_stops_with_a_summary(tmp_path: Path) -> None:
    pairs = [{"id": str(i), "query": f"Q{i}", "candidates": ["a", "b"]} for i in range(25)]
    out = tmp_path / "o.jsonl"
    with LLMServer(lambda body: Disconnect()) as server:  # every connection closed before a reply
        result = invoke(
            write_pairs(tmp_path / "p.jsonl", pairs),
            "--method",
            "direct",
            *local(server),
            "--timeout",
            "30",
            "--retries",
            "1",
            "--no-cache",
            "--out",
            out,
        )
    assert result.exit_code == 1
    assert "stopped after 10 instances in a row failed" in result.output
    # Every call that was made is counted, those of instances the stop left unwritten too: a call
    # that failed both attempts has one retry; one stopped while it waited to retry has none.
    made = re.search(r"LLM calls\s+(\d+) made, 0 from cache, (\d+) retries", result.output)
    assert made is not None and 10 <= int(made[2]) <= int(made[1]) <= 25, result.output
    record = json.loads((tmp_path / "o.run.json").read_text())
    assert (record["spend"]["calls"], record["spend"]["retries"]) == (int(made[1]), int(made[2]))
    assert "(and 9 more): ProviderConnectionError" in result.output
    judgments = read_jsonl(out)
    assert [j["status"] for j in judgments] == ["error"] * 10
    # named as what it is: not "did not answer in time", which a dropped connection once read as
    assert judgments[0]["trace"][0]["error"].startswith(
        f"ProviderConnectionError: the connection to openai at {server.base_url} (model 'judge') "
        "was closed before the reply was complete"
    )
    assert "in time" not in result.output
    assert judgments[0]["trace"][0]["attempts"] == 2
    assert json.loads((tmp_path / "o.run.json").read_text())["stopped_by"].startswith("stopped after 10")


def test_the_run_record_counts_the_calls_and_tells_start_up_apart(tmp_path: Path, server: LLMServer) -> None:
    out, before = tmp_path / "dna.jsonl", len(server.requests)
    flags = ["--method", "dna", "--swap", "--no-cache", "--quiet"]
    result = invoke(pairs_file(tmp_path), *local(server), *flags, "--out", out)
    assert result.exit_code == 0, result.output
    calls = len(server.requests) - before
    record = json.loads((tmp_path / "dna.run.json").read_text())
    summary = record["summary"]
    assert record["spend"]["calls"] == calls  # schema 2: LLM use is the record's spend
    # the record tells start-up (opening the model) apart from the whole run
    assert 0 <= summary["start_seconds"] < record["spend"]["seconds"]
    assert calls == 2 + 2 + 3 * 3 * 2  # aspects and weights per query, facets x pairs x orders


def test_only_the_commands_own_process_tunes_its_garbage_collector_before_a_run(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs, cache, threshold = pairs_file(tmp_path), tmp_path / "cache.sqlite", gc.get_threshold()
    monkeypatch.setattr(_cli, "OWNS_PROCESS", False)  # restored at teardown, whatever main() sets
    assert invoke(pairs, "--method", "direct", "--cache", cache, *local(server)).exit_code == 0
    assert (gc.get_freeze_count(), gc.get_threshold()) == (0, threshold)  # this test runner's process

    monkeypatch.setattr(sys, "argv", ["faceteval", "--version"])
    with pytest.raises(SystemExit):
        main()
    assert _cli.OWNS_PROCESS
    try:
        assert invoke(pairs, "--method", "direct", "--cache", cache, *local(server)).exit_code == 0
        assert gc.get_freeze_count() > 10_000
        assert gc.get_threshold()[0] == YOUNG_GENERATION
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_text_from_the_user_is_printed_as_it_is_never_as_markup(tmp_path: Path) -> None:
    bad = write_pairs(tmp_path / "bad.jsonl", [{"id": "[/b] [bold]x", "query": "q", "candidates": "[/red]"}])
    strict = invoke(bad, "--method", "direct", "--model", "openai:x:y", "--strict", "--no-cache")
    assert strict.exit_code == 1 and "MarkupError" not in strict.output
    assert "field 'candidates'" in strict.output
    good = write_pairs(tmp_path / "good.jsonl", [{"id": "a", "query": "q", "candidates": ["x", "y"]}])
    dry = invoke(good, "--method", "direct", "--model", "openai:x:y", "--dry-run", "--no-cache")
    assert "No price is known for openai:x:y: add one" in " ".join(dry.output.split())


def test_a_dry_run_names_the_instances_the_method_cannot_judge(tmp_path: Path) -> None:
    rows = [{"id": "a", "query": "q", "candidates": ["x"]}, {"id": "b", "query": "q", "candidates": ["y"]}]
    plan = invoke(
        write_pairs(tmp_path / "p.jsonl", rows),
        "--method",
        "coeval",
        "--model",
        "openai:gpt-4o-mini",
        "--dry-run",
    )
    assert plan.exit_code == 1
    printed = " ".join(plan.output.split())
    assert "2 instances cannot be judged as they are:" in printed
    assert (
        "failed: a (and 1 more): InstanceError: coeval evaluates criteria, but this instance has none"
        in printed
    )


def test_an_input_with_no_instance_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    result = invoke(empty, "--method", "direct", "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1")
    assert result.exit_code == 1 and f"{empty} holds no instance to judge" in " ".join(result.output.split())


def test_standard_input_and_pipes_are_refused_with_the_reason(tmp_path: Path) -> None:
    pipe = tmp_path / "pairs.fifo"
    os.mkfifo(pipe)  # never opened: opening a pipe nobody writes to would wait for ever
    for given in ("-", str(pipe)):
        result = CliRunner().invoke(
            cli,
            ["judge", given, "--method", "direct", "--model", "openai:gpt-4o-mini", "--dry-run"],
            input="{}\n",
        )
        assert result.exit_code == 1
        assert "not a file (standard input or a pipe?)" in " ".join(result.output.split()), given
