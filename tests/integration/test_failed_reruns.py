"""A re-run that has nothing to put in place of an earlier output leaves it, and its record, as they
were, and says so, however it ends: an empty or all-invalid input, a refused request, a refused key, an
unreachable server, every instance failing, every reply unreadable. For `judge`, `meta-eval` (its run
directory: instances, judgments, summary and reports), `correct`, `bridge` and `hdeval apply`."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.bridge_judge import BridgeJudge
from tests.support.fennec_judge import FennecJudge
from tests.support.files import write_jsonl
from tests.support.llm_server import LLMServer, Status
from tests.support.processes import partial_files
from tests.support.rule_judge import RuleJudge

PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "weak"], "label": 1},
    {"id": "b", "query": "Name a prime.", "candidates": ["poor", "fine"], "label": 2},
    {"id": "c", "query": "Explain snow.", "candidates": ["fine", "good"], "label": 2},
]
QUALITY = {"good": 5, "fine": 4, "weak": 2, "poor": 1, "weak (corrected)": 4, "poor (corrected)": 5}


class Switchable:
    """A well-behaved judge (the rule judge, or Fennec's stand-in) until told to answer otherwise."""

    def __init__(self, judge: Callable[[dict[str, Any]], Any]) -> None:
        self.judge = judge
        self.answer: Status | str | None = None

    def __call__(self, body: dict[str, Any]) -> Any:
        return self.judge(body) if self.answer is None else self.answer


@pytest.fixture
def judge() -> Iterator[tuple[LLMServer, Switchable]]:
    rule = RuleJudge(quality={"good": 9, "fine": 7, "weak": 4, "poor": 2}, record=False)
    switch = Switchable(lambda body: rule.respond(body["messages"]))
    with LLMServer(switch) as server:
        yield server, switch


@pytest.fixture
def fennec() -> Iterator[tuple[LLMServer, Switchable]]:
    switch = Switchable(FennecJudge(quality=QUALITY).for_server())
    with LLMServer(switch) as server:
        yield server, switch


def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    return Path(value)


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, env={"COLUMNS": "400"})


def snapshot(*paths: Path) -> dict[str, str]:
    """The SHA-256 of every file under ``paths``, hidden ones too (a partial file left would show)."""
    files = [f for p in paths for f in ([p] if p.is_file() else sorted(p.rglob("*"))) if f.is_file()]
    return {str(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in files if "sqlite" not in f.name}


def flat(text: str) -> str:
    """``text`` without its white space (a table may wrap a long path anywhere)."""
    return "".join(text.split())


FAILURES = {
    "every call answered 500": Status(500),
    "every request refused (400)": Status(400),
    "the key refused (401)": Status(401),
    "every reply unreadable": "I would rather not say.",
}


def judge_args(server: LLMServer, pairs: Path, out: Path, *extra: str | Path) -> list[str | Path]:
    local = ["--model", "openai:judge", "--base-url", server.base_url, "--retries", "0", "--quiet"]
    return ["judge", pairs, "--method", "direct", *local, "--out", out, *extra]


@pytest.mark.parametrize("cache", ["a new cache", "no cache, another job"])
@pytest.mark.parametrize(
    "change",
    ["empty input", "blank lines only", "all-invalid input", *FAILURES, "an unreachable server"],
)
def test_a_judge_rerun_with_no_ok_judgment_leaves_the_output_and_its_record(
    tmp_path: Path, judge: tuple[LLMServer, Switchable], change: str, cache: str
) -> None:
    server, switch = judge
    pairs, out = write_jsonl(tmp_path / "pairs.jsonl", PAIRS), tmp_path / "out.jsonl"
    first = invoke(*judge_args(server, pairs, out, "--cache", tmp_path / "c.sqlite"))
    assert first.exit_code == 0, first.output
    earlier = snapshot(tmp_path)
    assert len(earlier) == 3 and len(out.read_text().splitlines()) == 3

    # (without a cache, the same job would reuse the earlier judgments: both orders is another job)
    fresh: list[str | Path] = ["--cache", tmp_path / "new.sqlite"]
    flags = ["--no-cache", "--swap"] if cache.startswith("no cache") else fresh
    if change in ("empty input", "blank lines only", "all-invalid input"):
        text = {
            "empty input": "",
            "blank lines only": "\n \n",
            "all-invalid input": '{"id": "x"}\nnot json\n[]\n',
        }
        pairs.write_text(text[change], encoding="utf-8")
        earlier = snapshot(tmp_path)  # (the input changed; nothing else may)
    elif change == "an unreachable server":
        flags = [*flags, "--base-url", server.base_url.replace(f":{server.port}/", ":9/")]
    else:
        switch.answer = FAILURES[change]
    again = invoke(*judge_args(server, pairs, out, *flags))

    assert again.exit_code == 1, again.output
    assert snapshot(tmp_path) == earlier  # output, record and input as they were
    assert not partial_files(out) and not partial_files(tmp_path / "out.run.json")
    assert flat(f"{out} is left as it was") in flat(again.output)


def test_a_judge_rerun_with_one_ok_judgment_replaces_the_output(
    tmp_path: Path, judge: tuple[LLMServer, Switchable]
) -> None:
    server, _ = judge
    pairs, out = write_jsonl(tmp_path / "pairs.jsonl", PAIRS), tmp_path / "out.jsonl"
    assert invoke(*judge_args(server, pairs, out, "--cache", tmp_path / "c.sqlite")).exit_code == 0
    write_jsonl(pairs, [PAIRS[0], {"id": "x"}])  # one instance, one invalid line
    again = invoke(*judge_args(server, pairs, out, "--cache", tmp_path / "c.sqlite"))
    assert again.exit_code == 6, again.output  # the invalid line failed; replaced all the same
    assert [json.loads(line)["status"] for line in out.read_text().splitlines()] == ["ok", "error"]
    assert json.loads((tmp_path / "out.run.json").read_text())["summary"]["judgments"] == {
        "ok": 1,
        "error": 1,
    }


@pytest.mark.parametrize(
    "change", ["every call answered 500", "the key refused (401)", "an unreachable server"]
)
def test_a_meta_eval_rerun_that_judges_nothing_leaves_the_run_directory(
    tmp_path: Path, fennec: tuple[LLMServer, Switchable], change: str
) -> None:
    server, switch = fennec
    pairs, run = write_jsonl(tmp_path / "pairs.jsonl", PAIRS), tmp_path / "run"
    local = ["--model", "openai:judge", "--base-url", server.base_url, "--retries", "0"]
    args = ["meta-eval", pairs, "--method", "fennec", "--resamples", "0", *local, "--out", run]
    first = invoke(*args, "--cache", tmp_path / "c.sqlite")
    assert first.exit_code == 0, first.output
    earlier = snapshot(run)
    assert {Path(f).name for f in earlier} >= {
        "summary.json",
        "report.md",
        "instances.jsonl",
        "judgments.jsonl",
    }

    write_jsonl(pairs, PAIRS[:2])  # another input, so its instances would differ
    flags: list[str | Path] = ["--cache", tmp_path / "new.sqlite"]
    if change == "an unreachable server":
        flags += ["--base-url", server.base_url.replace(f":{server.port}/", ":9/")]
    else:
        switch.answer = FAILURES[change]
    again = invoke(*args, *flags)

    assert again.exit_code == 1, again.output
    assert snapshot(run) == earlier
    assert flat(f"{run} is left as it was") in flat(again.output)
    switch.answer = None  # and a run that judges replaces it all
    third = invoke(*args, "--cache", tmp_path / "c.sqlite")
    assert third.exit_code == 0, third.output
    assert len((run / "instances.jsonl").read_text().splitlines()) == 2
    summary = json.loads((run / "summary.json").read_text())
    assert summary["written"]["instances.jsonl"]["lines"] == 2 if "written" in summary else True
    assert not [p for p in run.iterdir() if p.name.startswith(".")]


def test_a_correct_rerun_whose_every_correction_fails_leaves_the_corrections(
    tmp_path: Path, fennec: tuple[LLMServer, Switchable]
) -> None:
    server, switch = fennec
    pairs, judged = write_jsonl(tmp_path / "pairs.jsonl", PAIRS), tmp_path / "j.jsonl"
    local = ["--model", "openai:judge", "--base-url", server.base_url, "--retries", "0"]
    assert invoke("judge", pairs, "--method", "fennec", *local, "--quiet", "--out", judged).exit_code == 0
    out = tmp_path / "corrected.jsonl"
    args = ["correct", judged, "--threshold", "3", *local, "--out", out]
    first = invoke(*args, "--cache", tmp_path / "c.sqlite")
    assert first.exit_code == 0, first.output
    assert '"status":"corrected"' in out.read_text()
    earlier = snapshot(out, tmp_path / "corrected.run.json")

    switch.answer = Status(500)
    again = invoke(*args, "--cache", tmp_path / "new.sqlite")

    assert again.exit_code == 1, again.output
    assert snapshot(out, tmp_path / "corrected.run.json") == earlier
    assert flat(f"{out} is left as it was") in flat(again.output) and not partial_files(out)


def test_a_bridge_rerun_that_bridges_nothing_leaves_its_files(tmp_path: Path) -> None:
    switch = Switchable(BridgeJudge().for_server())
    with LLMServer(switch) as server:
        local = ["--model", "openai:judge", "--base-url", server.base_url, "--retries", "0"]
        data = ["--data-dir", data_dir()]
        args = ["bridge", "autoj-pairwise", "--limit", "2", *data, *local, "--out", tmp_path / "b"]
        first = invoke(*args, "--cache", tmp_path / "c.sqlite")
        assert first.exit_code == 0, first.output
        earlier = snapshot(tmp_path / "b")
        assert len(earlier) == 3

        switch.answer = Status(500)
        again = invoke(*args, "--cache", tmp_path / "new.sqlite")

    assert again.exit_code == 1, again.output
    assert snapshot(tmp_path / "b") == earlier
    assert flat("Nothing written: no record was bridged") in flat(again.output)


def test_an_hdeval_apply_rerun_that_scores_nothing_leaves_the_scores(tmp_path: Path) -> None:
    from tests.integration.test_hdeval_train import outputs, responder, write

    switch = Switchable(responder)
    with LLMServer(switch) as server:
        labelled = write(tmp_path / "labelled.jsonl", outputs(16, "a"))
        engine = ["--model", "openai:judge", "--base-url", server.base_url, "--retries", "0", "-q"]
        train = ["hdeval", "train", labelled, "--target", "coherence,fluency", "--layers", "1"]
        train += ["--aggregator", "lr", "--resamples", "0", "--out", tmp_path / "evaluator"]
        assert invoke(*train, *engine, "--cache", tmp_path / "c.sqlite").exit_code == 0
        fresh, out = write(tmp_path / "fresh.jsonl", outputs(4, "b")), tmp_path / "scored.jsonl"
        apply = ["hdeval", "apply", tmp_path / "evaluator", fresh, "--out", out, *engine]
        first = invoke(*apply, "--cache", tmp_path / "c.sqlite")
        assert first.exit_code == 0, first.output
        earlier = out.read_bytes()

        switch.answer = Status(500)
        again = invoke(*apply, "--cache", tmp_path / "new.sqlite")

    assert again.exit_code == 1, again.output
    assert out.read_bytes() == earlier
    assert "no output's criteria could be scored (4 failures: ProviderServerError" in again.output
    assert "nothing was written" in again.output
