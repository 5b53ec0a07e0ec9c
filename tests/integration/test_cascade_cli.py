"""`faceteval judge --cascade` (and `faceteval.cascade`) end to end, over HTTP: a cheap judge keeps what
it is sure of, and only what it abstains on goes to a stronger judge at another endpoint."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval import LLM, cascade, create_method, read_instances
from faceteval._cli._app import cli
from tests.support.batch_judging import judgments_in
from tests.support.batch_server import OpenAIBatches
from tests.support.files import read_jsonl
from tests.support.llm_server import Hold, LLMServer
from tests.support.rule_judge import RuleJudge

# the cheap judge is sure and right on clear pairs, unsure and wrong on close ones; the strong judge
# is sure and right on both
CHEAP = RuleJudge(quality={"good": 9, "poor": 2, "fine": 5, "fair": 6})
STRONG = RuleJudge(quality={"good": 9, "poor": 2, "fine": 9, "fair": 3})


def rows(clear: int, close: int, *, prefix: str = "") -> list[dict[str, Any]]:
    made = [
        {"id": f"{prefix}clear{k}", "query": f"q{k}", "candidates": ["good", "poor"], "label": 1}
        for k in range(clear)
    ]
    return made + [
        {"id": f"{prefix}close{k}", "query": f"r{k}", "candidates": ["fine", "fair"], "label": 1}
        for k in range(close)
    ]


def write(path: Path, found: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in found), encoding="utf-8")
    return path


@pytest.fixture
def servers():  # type: ignore[no-untyped-def]
    with LLMServer(CHEAP.for_server()) as cheap, LLMServer(STRONG.for_server()) as strong:
        yield cheap, strong


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def cascaded(tmp_path: Path, servers: tuple[LLMServer, LLMServer], *extra: str) -> Result:
    cheap, strong = servers
    return run(
        "judge", write(tmp_path / "new.jsonl", rows(3, 2, prefix="new-")), "--method", "direct",
        "--cascade", f"openai:cheap@{cheap.base_url},openai:strong@{strong.base_url}",
        "--calibration-set", write(tmp_path / "cal.jsonl", rows(40, 40)), "--target-agreement", "0.9",
        "--out", tmp_path / "out.jsonl", "--cache", tmp_path / "cache.sqlite", *extra,
    )  # fmt: skip


@pytest.mark.parametrize("swap", [False, True])
def test_only_what_the_cheap_judge_abstains_on_goes_to_the_strong_one(
    tmp_path: Path, servers: tuple[LLMServer, LLMServer], swap: bool
) -> None:
    cheap, strong = servers
    result = cascaded(tmp_path, servers, *(["--swap"] if swap else []))
    assert result.exit_code == 0, result.output
    judgments = {j["id"]: j for j in read_jsonl(tmp_path / "out.jsonl")}
    assert [j["id"] for j in read_jsonl(tmp_path / "out.jsonl")] == [
        r["id"] for r in rows(3, 2, prefix="new-")
    ]
    for k in range(3):
        assert (judgments[f"new-clear{k}"]["decided_by"], judgments[f"new-clear{k}"]["verdict"]) == (
            "openai:cheap",
            1,
        )
    for k in range(2):  # the cheap judge would have said 2 here, unsure: the strong one says 1
        assert (judgments[f"new-close{k}"]["decided_by"], judgments[f"new-close{k}"]["verdict"]) == (
            "openai:strong",
            1,
        )
    record = json.loads((tmp_path / "out.run.json").read_text())
    stages = record["options"]["cascade"]["stages"]
    assert [(s["judge"], s["judged"], s["decided"], s["abstained"]) for s in stages] == [
        ("openai:cheap", 5, 3, 2),
        ("openai:strong", 2, 2, 0),
    ]
    # the strong judge was calibrated on the 40 calibration pairs the cheap one did not decide
    assert [s["calibration_judged"] for s in stages] == [80, 40]
    orders = 2 if swap else 1  # the new pairs repeat calibration pairs' texts: answered from the cache
    assert (stages[1]["calls"], stages[1]["cached_calls"]) == ((40 + 2) * orders, 2 * orders)
    assert (stages[0]["calls"], stages[0]["cached_calls"]) == ((80 + 5) * orders, 5 * orders)
    assert (len(cheap.requests), len(strong.requests)) == (80 * orders, 40 * orders)
    assert (
        record["summary"]["judgments"] == {"ok": 5}
        and record["llm"]["model"] == "cascade: openai:cheap, openai:strong"
    )
    assert "5 of 5 decided, 0 abstained" in result.output and "Cascade" in result.output


def test_a_rerun_is_answered_from_the_cache(tmp_path: Path, servers: tuple[LLMServer, LLMServer]) -> None:
    cascaded(tmp_path, servers)
    served = [len(server.requests) for server in servers]
    again = cascaded(tmp_path, servers)
    assert again.exit_code == 0, again.output
    assert [len(server.requests) for server in servers] == served


def test_what_the_last_judge_abstains_on_stays_abstained(
    tmp_path: Path, servers: tuple[LLMServer, LLMServer]
) -> None:
    cheap, _ = servers
    result = run(
        "judge", write(tmp_path / "new.jsonl", rows(1, 1, prefix="new-")), "--method", "direct",
        "--cascade", f"openai:cheap@{cheap.base_url}",
        "--calibration-set", write(tmp_path / "cal.jsonl", rows(40, 40)),
        "--target-agreement", "0.9", "--out", tmp_path / "out.jsonl",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    statuses = [(j["status"], j["decided_by"]) for j in read_jsonl(tmp_path / "out.jsonl")]
    assert statuses == [("ok", "openai:cheap"), ("abstained", "openai:cheap")]
    assert "1 of 2 decided, 1 abstained" in result.output
    reported = run("report", tmp_path / "out.jsonl")
    assert reported.exit_code == 0, reported.output
    markdown = (tmp_path / "out.report.md").read_text()
    assert "## Selective judging" in markdown and "A cascade of openai:cheap" in markdown
    assert "1 of 2 verdicts are abstained" in markdown and "| openai:cheap |" in markdown
    assert "Agreement with humans on the verdicts kept" in (tmp_path / "out.report.html").read_text()


def test_the_same_cascade_from_python(tmp_path: Path, servers: tuple[LLMServer, LLMServer]) -> None:
    cheap, strong = servers
    judges = [
        LLM.from_spec("openai:cheap", base_url=cheap.base_url),
        LLM.from_spec("openai:strong", base_url=strong.base_url),
    ]
    done = cascade(
        list(read_instances(write(tmp_path / "new.jsonl", rows(1, 1, prefix="py-")))),
        list(read_instances(write(tmp_path / "cal.jsonl", rows(40, 40)))),
        create_method("direct"), judges, target_agreement=0.9, delta=0.1,
    )  # fmt: skip
    assert [(j.decided_by, j.verdict) for j in done.judgments] == [("openai:cheap", 1), ("openai:strong", 1)]
    assert [stage.decided for stage in done.stages] == [1, 1]
    assert done.stages[0].calibration.threshold is not None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--model", "openai:x"], "give no --model"),
        (["--calibration", "cal.json"], "--calibration does not go with --cascade"),
        (["--dry-run"], "--dry-run does not go with --cascade"),
    ],
)
def test_flags_that_do_not_go_with_a_cascade_are_refused(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    result = run(
        "judge", write(tmp_path / "new.jsonl", rows(1, 0)), "--cascade", "openai:a,openai:b",
        "--calibration-set", write(tmp_path / "cal.jsonl", rows(1, 0)), "--target-agreement", "0.9", *flags,
    )  # fmt: skip
    assert result.exit_code == 2 and message in result.output


def test_a_cascade_needs_its_calibration_set_and_target(tmp_path: Path) -> None:
    result = run("judge", write(tmp_path / "new.jsonl", rows(1, 0)), "--cascade", "openai:a")
    assert result.exit_code == 2 and "--calibration-set" in result.output
    result = run(
        "judge", write(tmp_path / "new.jsonl", rows(1, 0)), "--model", "openai:a", "--target-agreement", "0.9"
    )
    assert result.exit_code == 2 and "goes with --cascade" in result.output


def test_a_cascade_through_the_batch_api_gives_the_synchronous_cascade(tmp_path: Path) -> None:
    cheap, strong = LLMServer(CHEAP.for_server()), LLMServer(STRONG.for_server())
    batches = [
        OpenAIBatches(cheap, polls_in_progress=0),
        OpenAIBatches(strong, polls_in_progress=0, first_id=10**5),
    ]
    with cheap, strong:
        (tmp_path / "sync").mkdir()
        (tmp_path / "batch").mkdir()
        assert cascaded(tmp_path / "sync", (cheap, strong)).exit_code == 0
        synchronous = [len(cheap.requests), len(strong.requests)]
        done = cascaded(tmp_path / "batch", (cheap, strong), "--batch", "openai", "--batch-poll", "0")
        assert done.exit_code == 0, done.output
        answered = [len(cheap.requests), len(strong.requests)]
    sent = [sum(len(b.input_lines(batch)) for batch in b.batches) for b in batches]
    # each judge's calls went through its own batch API, as many as the synchronous cascade made, and
    # none was asked one by one (the server counts each batch line it answers as a request)
    assert sent == synchronous and answered == [2 * n for n in synchronous]
    assert judgments_in(tmp_path / "batch" / "out.jsonl") == judgments_in(tmp_path / "sync" / "out.jsonl")


@pytest.mark.parametrize("method", ["cot", "dna"])
def test_a_cascade_runs_other_methods(
    tmp_path: Path, servers: tuple[LLMServer, LLMServer], method: str
) -> None:
    cheap, strong = servers
    result = run(
        "judge", write(tmp_path / "new.jsonl", rows(2, 2, prefix="new-")), "--method", method,
        "--cascade", f"openai:cheap@{cheap.base_url},openai:strong@{strong.base_url}",
        "--calibration-set", write(tmp_path / "cal.jsonl", rows(30, 30)), "--target-agreement", "0.9",
        "--out", tmp_path / "out.jsonl", "--cache", tmp_path / "cache.sqlite",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    judgments = read_jsonl(tmp_path / "out.jsonl")
    assert len(judgments) == 4 and all(j["method"] == method and j["decided_by"] for j in judgments)
    stages = json.loads((tmp_path / "out.run.json").read_text())["options"]["cascade"]["stages"]
    assert stages[0]["judged"] == 4 and stages[0]["calibration_judged"] == 60
    assert sum(s["decided"] for s in stages) + stages[-1]["abstained"] == 4


def test_judgments_handed_on_as_they_finish_still_meet_their_instances(tmp_path: Path) -> None:
    """With --order finish, the first instance's reply is held until the second's is made: each stage
    still pairs every judgment with its own instance."""
    answered = threading.Event()
    respond = CHEAP.for_server()

    def held(body: dict[str, Any]) -> Any:
        prompt = json.dumps(body["messages"])
        if "late-query" in prompt and not answered.is_set():
            return Hold(answered, timeout=60)
        reply = respond(body)
        if "early-query" in prompt:
            answered.set()
        return reply

    late = {"id": "late", "query": "late-query", "candidates": ["fine", "fair"], "label": 1}
    early = {"id": "early", "query": "early-query", "candidates": ["good", "poor"], "label": 1}
    with LLMServer(held) as cheap, LLMServer(STRONG.for_server()) as strong:
        result = run(
            "judge", write(tmp_path / "new.jsonl", [late, early]), "--method", "direct", "--order", "finish",
            "--cascade", f"openai:cheap@{cheap.base_url},openai:strong@{strong.base_url}",
            "--calibration-set", write(tmp_path / "cal.jsonl", rows(40, 40)), "--target-agreement", "0.9",
            "--out", tmp_path / "out.jsonl",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    found = {j["id"]: (j["decided_by"], j["verdict"]) for j in read_jsonl(tmp_path / "out.jsonl")}
    assert found == {"late": ("openai:strong", 1), "early": ("openai:cheap", 1)}
