"""`judge` and `meta-eval --method` exit non-zero when judgments failed, unless `--max-failures`
tolerates them: over a local server whose judge cannot be read on some instances."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval._cli._failures import FAILURES_EXIT
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

UNREADABLE = "I cannot compare these responses."


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [*map(str, args)], catch_exceptions=False)


def pairs(path: Path, *, unreadable: int, total: int) -> Path:
    """``total`` labelled pairs, the first ``unreadable`` of them asking about a query the judge never
    answers readably."""
    rows = [
        {
            "id": f"p{i}",
            "query": "Riddle me this." if i < unreadable else f"Explain rain ({i}).",
            "candidates": ["good", "poor"] if i % 2 == 0 else ["poor", "good"],
            "label": 1 if i % 2 == 0 else 2,
        }
        for i in range(total)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    rule = RuleJudge(quality={"good": 8, "poor": 3}, record=False)

    def respond(body: dict[str, Any]) -> str:
        prompt = json.dumps(body["messages"])
        return UNREADABLE if "Riddle me this." in prompt else rule.for_server()(body)

    with LLMServer(respond, record=False) as running:
        yield running


def local(server: LLMServer) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url, "--api-key", "k", "--no-cache"]


def test_judge_exits_6_when_one_judgment_of_three_failed_and_says_why(tmp_path: Path, server: LLMServer):
    out = tmp_path / "j.jsonl"
    run = invoke(
        "judge",
        pairs(tmp_path / "p.jsonl", unreadable=1, total=3),
        "--method",
        "direct",
        *local(server),
        "--out",
        out,
    )
    assert run.exit_code == FAILURES_EXIT == 6, run.output
    assert "1 of 3 judgments failed (1 parse_error); --max-failures allows none" in " ".join(
        run.output.split()
    )
    assert [j["status"] for j in read_jsonl(out)] == ["parse_error", "ok", "ok"]  # written all the same


@pytest.mark.parametrize(("tolerance", "code"), [("1", 0), ("0", 6), ("34%", 0), ("33%", 6), ("100%", 0)])
def test_max_failures_tolerates_a_number_or_a_share_of_the_judgments(
    tmp_path: Path, server: LLMServer, tolerance: str, code: int
) -> None:
    run = invoke(
        "judge",
        pairs(tmp_path / "p.jsonl", unreadable=1, total=3),
        "--method",
        "direct",
        *local(server),
        "--max-failures",
        tolerance,
        "--out",
        tmp_path / "j.jsonl",
    )
    assert run.exit_code == code, run.output


def test_a_dry_run_plans_and_exits_0_as_its_judgments_are_planned_not_failed(tmp_path: Path) -> None:
    path = pairs(tmp_path / "p.jsonl", unreadable=1, total=3)
    plan = invoke("judge", path, "--method", "direct", "--model", "openai:gpt-4o", "--dry-run", "--no-cache")
    assert plan.exit_code == 0, plan.output


def test_a_run_with_every_judgment_ok_exits_0_and_a_bad_tolerance_is_a_usage_error(
    tmp_path: Path, server: LLMServer
) -> None:
    path = pairs(tmp_path / "p.jsonl", unreadable=0, total=2)
    assert invoke("judge", path, *local(server), "--out", tmp_path / "j.jsonl").exit_code == 0
    for bad in ("-1", "101%", "some", "nan%"):
        refused = invoke("judge", path, *local(server), "--max-failures", bad, "--out", tmp_path / "k")
        assert refused.exit_code == 2, (bad, refused.output)
        assert "--max-failures" in refused.output and not (tmp_path / "k").exists()


def test_failures_and_a_threshold_are_both_said_and_the_failures_decide_the_status(
    tmp_path: Path, server: LLMServer
) -> None:
    path = pairs(tmp_path / "p.jsonl", unreadable=1, total=3)
    flags = ["judge", path, "--method", "direct", *local(server), "--out", tmp_path / "j.jsonl"]
    both = invoke(*flags, "--fail-under", "ok_rate=0.9")
    assert both.exit_code == 6, both.output
    assert "below threshold: ok_rate=0.9" in both.output and "--max-failures allows none" in both.output
    below = invoke(*flags, "--fail-under", "ok_rate=0.9", "--max-failures", "1")
    assert below.exit_code == 3, below.output


def test_meta_eval_exits_6_after_writing_its_summary_and_never_for_recorded_judgments(
    tmp_path: Path, server: LLMServer
) -> None:
    labelled = pairs(tmp_path / "labels.jsonl", unreadable=1, total=4)
    out = tmp_path / "run"
    quick = ["--resamples", "0", "--no-report"]
    judging = ["meta-eval", labelled, "--method", "direct", *local(server), *quick, "--out", out]
    run = invoke(*judging)
    assert run.exit_code == 6, run.output
    assert (out / "summary.json").is_file()
    tolerated = invoke(*judging, "--max-failures", "25%", "--force")
    assert tolerated.exit_code == 0, tolerated.output
    recorded = ["meta-eval", labelled, "--judgments", out / "judgments.jsonl", *quick]
    measured = invoke(*recorded, "--out", tmp_path / "measured")
    assert measured.exit_code == 0, measured.output  # its parse error is data, not a failed run
    refused = invoke(*recorded, "--max-failures", "1", "--out", tmp_path / "measured2")
    assert refused.exit_code == 2 and "--max-failures judges with --method" in refused.output
