"""`faceteval judge` prints the run's result and stores it in the run record, and `--fail-under` gates
on it; `faceteval.judge(..., out=)` stores the same: over a local server."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import faceteval
from faceteval import LLM, Direct, JudgeOptions
from faceteval._cli._app import cli
from faceteval._cli._console import err_console
from faceteval.datasets import read_instances, read_judgments
from faceteval.results import JudgeResult, Standing, compute_result
from tests.support.files import write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

ITEMS = 400
TRUE_RATE = 0.7
SEED = 25


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows on one line each, however long the systems' names."""
    monkeypatch.setattr(err_console, "_width", 200)  # (restored to None: sized by the terminal again)


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def prefers_b(seed: int = SEED) -> list[bool]:
    """Which items the scripted judge prefers B on: each with probability `TRUE_RATE`, seeded."""
    rng = random.Random(seed)
    return [rng.random() < TRUE_RATE for _ in range(ITEMS)]


@pytest.fixture(scope="module")
def judge_70() -> RuleJudge:
    """A judge that prefers system B's output on the items `prefers_b` says, whatever the order."""
    quality: dict[str, float] = {}
    for i, b_better in enumerate(prefers_b()):
        quality[f"A's answer to {i}"], quality[f"B's answer to {i}"] = (3, 8) if b_better else (8, 3)
    return RuleJudge(quality=quality, record=False)


@pytest.fixture(scope="module")
def server(judge_70: RuleJudge) -> Iterator[LLMServer]:
    with LLMServer(judge_70.for_server(), record=False) as running:
        yield running


def local(server: LLMServer, tmp_path: Path) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url, "--cache", str(tmp_path / "c.sqlite")]


def pairs(path: Path, *, named: bool = False) -> Path:
    """`ITEMS` pairs; named, A's output first in even items and B's first in odd ones, else A's first."""
    rows = []
    for i in range(ITEMS):
        a, b = f"A's answer to {i}", f"B's answer to {i}"
        candidates, systems = ([a, b], ["A", "B"]) if i % 2 == 0 or not named else ([b, a], ["B", "A"])
        row = {"id": f"q{i}", "query": f"Question {i}?", "candidates": candidates}
        rows.append({**row, "systems": systems} if named else row)
    return write_jsonl(path, rows)


def printed_row(output: str, name: str) -> tuple[int, int, int, float, float, float]:
    """A system's row of the printed table: won, tied, lost, and its win rate with its interval (%)."""
    number = r"(\d+(?:\.\d+)?)"
    pattern = rf"^{re.escape(name)}\s+(\d+)/(\d+)/(\d+)\s+{number} \[{number}-{number}\]"
    found = re.search(pattern, output, re.MULTILINE)
    assert found is not None, output
    won, tied, lost = (int(found[k]) for k in (1, 2, 3))
    return won, tied, lost, float(found[4]), float(found[5]), float(found[6])


def stored_result(out: Path) -> JudgeResult:
    """The result in the run record beside ``out``, read through its model."""
    result = faceteval.read_run(out).summary.result
    assert result is not None
    return result


def system(result: JudgeResult, name: str) -> Standing:
    assert result.pairwise is not None
    return next(s for s in result.pairwise.systems if s.name == name)


def test_a_judge_preferring_b_on_70_percent_of_items_gets_a_win_rate_whose_ci_covers_it(
    tmp_path: Path, server: LLMServer
) -> None:
    out = tmp_path / "j.jsonl"
    data = pairs(tmp_path / "pairs.jsonl", named=True)
    run = invoke(data, "--method", "direct", "--swap", *local(server, tmp_path), "--out", out)

    assert run.exit_code == 0, run.output
    preferred = sum(prefers_b())
    won, tied, lost, rate, low, high = printed_row(run.output, "B")
    assert (won, tied, lost) == (preferred, 0, ITEMS - preferred)
    assert rate == pytest.approx(100 * preferred / ITEMS, abs=0.05)
    assert low < 100 * TRUE_RATE < high
    assert printed_row(run.output, "A")[:3] == (ITEMS - preferred, 0, preferred)
    assert "Swap consistency: 400 of 400 agreed" in run.output
    assert re.search(r"By position \(win %, ties ½\): 1 \d", run.output)

    # stored in the run record: the win rate printed, with its interval covering the true rate
    stored = stored_result(out)
    b = system(stored, "B")
    assert (b.wins, b.ties, b.losses) == (won, tied, lost)
    assert b.win_rate.ci is not None and b.win_rate.ci[0] < TRUE_RATE < b.win_rate.ci[1]
    assert b.win_rate.value == pytest.approx(preferred / ITEMS)
    assert (round(100 * b.win_rate.value, 1), round(100 * b.win_rate.ci[0], 1)) == (rate, low)
    assert round(100 * b.win_rate.ci[1], 1) == high
    assert stored.pairwise is not None and stored.pairwise.consistency is not None
    assert stored.pairwise.consistency.agreed == ITEMS
    # the judgments written give the same result
    assert stored == compute_result(read_judgments(out), read_instances(data))


def test_judge_from_python_with_out_stores_the_result_the_command_stores(
    tmp_path: Path, server: LLMServer
) -> None:
    data = pairs(tmp_path / "pairs.jsonl")
    command = tmp_path / "command.jsonl"
    run = invoke(data, "--method", "direct", "--systems", "A,B", *local(server, tmp_path), "--out", command)
    assert run.exit_code == 0, run.output

    llm = LLM.from_spec("openai:judge", base_url=server.base_url)
    python = tmp_path / "python.jsonl"
    faceteval.judge(
        read_instances(data, systems=["A", "B"]), Direct(), llm, options=JudgeOptions(), out=python
    )

    assert stored_result(python) == stored_result(command)
    assert system(stored_result(python), "B").wins == sum(prefers_b())
    assert faceteval.read_run(python).options["systems"] == ["A", "B"]


def test_systems_are_recorded_but_judgments_made_under_other_names_are_reused(
    tmp_path: Path, server: LLMServer
) -> None:
    data, out = pairs(tmp_path / "pairs.jsonl"), tmp_path / "j.jsonl"
    flags = [data, "--method", "direct", *local(server, tmp_path)[:4], "--no-cache", "--out", out]
    first = invoke(*flags, "--systems", "A,B")
    assert first.exit_code == 0, first.output
    asked = server.request_count

    again = invoke(*flags, "--systems", "base,tuned")

    assert again.exit_code == 0, again.output
    assert server.request_count == asked  # every judgment reused: names change no judgment
    record = faceteval.read_run(out)
    assert record.summary.reused == ITEMS and record.options["systems"] == ["base", "tuned"]
    assert system(stored_result(out), "tuned").wins == sum(prefers_b())
    assert printed_row(again.output, "tuned")[:3] == (sum(prefers_b()), 0, ITEMS - sum(prefers_b()))


def test_fail_under_exits_3_below_the_threshold_and_0_above_it(tmp_path: Path, server: LLMServer) -> None:
    data = pairs(tmp_path / "pairs.jsonl")
    flags = [data, "--method", "direct", "--systems", "A,B", *local(server, tmp_path)]

    above = invoke(*flags, "--out", tmp_path / "j.jsonl", "--fail-under", "win_rate:B=0.6")
    assert above.exit_code == 0, above.output
    assert "below threshold" not in above.output
    below = invoke(
        *flags,
        "--out",
        tmp_path / "j2.jsonl",
        "--fail-under",
        "win_rate:B=0.8",
        "--fail-under",
        "win_rate:A=0.2",
        "--fail-under",
        "ok_rate=1",
    )
    assert below.exit_code == 3, below.output
    rate = sum(prefers_b()) / ITEMS
    assert f"below threshold: win_rate:B=0.8: the run's is {rate:.4g}" in below.output
    assert "win_rate:A=0.2" not in below.output and "ok_rate" not in below.output
    assert (tmp_path / "j2.jsonl").exists()  # the judgments are written all the same


def test_an_unknown_metric_or_system_is_a_usage_error_with_the_closest_name(
    tmp_path: Path, server: LLMServer
) -> None:
    data = pairs(tmp_path / "pairs.jsonl", named=True)
    flags = [data, "--method", "direct", *local(server, tmp_path), "--out", tmp_path / "j.jsonl"]

    metric = invoke(*flags, "--fail-under", "winrate:B=0.5")
    assert metric.exit_code == 2
    assert "no metric 'winrate' (did you mean 'win_rate'?)" in metric.output
    assert not (tmp_path / "j.jsonl").exists()  # refused before anything ran
    given = invoke(*flags, "--systems", "base,tuned", "--fail-under", "mean:tunde=3")
    assert given.exit_code == 2
    assert "--systems names no 'tunde' (did you mean 'tuned'?)" in given.output
    planned = invoke(*flags, "--dry-run", "--fail-under", "win_rate:B=0.5")
    assert planned.exit_code == 2
    assert "--fail-under checks a run's result, and a dry run has none" in planned.output
    found = invoke(*flags, "--fail-under", "win_rate:b=0.5")
    assert found.exit_code == 2
    assert "no system 'b' in this run (did you mean 'B'?); its systems: B, A" in found.output


def test_systems_of_the_file_are_kept_over_the_flag_and_a_wrong_count_is_an_input_error(
    tmp_path: Path, server: LLMServer
) -> None:
    rows = [
        {
            "id": "own",
            "query": "Q?",
            "candidates": ["A's answer to 1", "B's answer to 1"],
            "systems": ["x", "y"],
        },
        {"id": "flag", "query": "Q?", "candidates": ["A's answer to 2", "B's answer to 2"]},
        {"id": "three", "query": "Q?", "candidates": ["A's answer to 3", "B's answer to 3", "other"]},
    ]
    data = write_jsonl(tmp_path / "mixed.jsonl", rows)
    out = tmp_path / "j.jsonl"
    run = invoke(data, "--method", "direct", "--systems", "A,B", *local(server, tmp_path), "--out", out)

    assert run.exit_code == 6, run.output  # some judgments failed (exit 6), the rest written
    assert f"invalid input: {data}:3: field 'systems': names 2 systems for 3 candidates" in run.output
    won = prefers_b()
    assert printed_row(run.output, "y")[:3] == ((1, 0, 0) if won[1] else (0, 0, 1))
    assert printed_row(run.output, "B")[:3] == ((1, 0, 0) if won[2] else (0, 0, 1))
    assert "failed: 1 invalid input line (in no win rate or mean)" in run.output
    assert [j["id"] for j in map(json.loads, out.read_text().splitlines())] == ["own", "flag", "three"]


def test_three_systems_get_a_ranking_and_untrusted_names_reach_the_terminal_inert(tmp_path: Path) -> None:
    strength = {"strong\x1b]0;owned\x07": 9, "[bold]middle": 6, "weak\u202e": 3}
    names = list(strength)
    rows, quality = [], {}
    for k in range(30):
        a, b = names[k % 3], names[(k + 1) % 3]
        first, second = f"{k} by {a}", f"{k} by {b}"
        quality[first], quality[second] = strength[a], strength[b]
        rows.append({"id": str(k), "query": "Q?", "candidates": [first, second], "systems": [a, b]})
    data = write_jsonl(tmp_path / "three.jsonl", rows)
    with LLMServer(RuleJudge(quality=quality).for_server()) as server:
        run = invoke(data, "--method", "direct", *local(server, tmp_path), "--out", tmp_path / "j.jsonl")

    assert run.exit_code == 0, run.output
    assert "\x1b" not in run.output and "\x07" not in run.output and "\u202e" not in run.output
    ranking = re.search(r"Bradley-Terry strengths \(95% CIs\): (.*)", run.output)
    assert ranking is not None, run.output
    assert ranking[1].startswith("1. strong\\x1b]0;owned\\x07 +")
    assert "2. [bold]middle" in ranking[1] and "3. weak\\u202e" in ranking[1]
    assert printed_row(run.output, "[bold]middle")[:3] == (10, 0, 10)


def test_single_outputs_get_mean_scores_with_cis_per_system_and_facet(tmp_path: Path) -> None:
    quality: dict[str, float | dict[str, float]] = {}
    rows = []
    for k in range(12):
        system = "tuned" if k % 2 else "base"
        text = f"output {k} of {system}"
        quality[text] = 8 if system == "tuned" else 4 + k % 3
        rows.append({"id": str(k), "query": "Q?", "candidates": [text], "systems": [system]})
    data = write_jsonl(tmp_path / "singles.jsonl", rows)
    with LLMServer(RuleJudge(quality=quality).for_server()) as server:
        run = invoke(data, "--method", "dna", *local(server, tmp_path), "--out", tmp_path / "s.jsonl")

    assert run.exit_code == 0, run.output
    assert "Single outputs: mean scores with 95% CIs" in run.output
    # six scores all 8: no spread, not an interval of zero width shown as certainty
    assert re.search(r"^tuned\s+6\s+0\s+8\.00 \(all alike\)$", run.output, re.MULTILINE), run.output
    base = re.search(r"^base\s+6\s+0\s+5\.00 ± (\d\.\d\d)$", run.output, re.MULTILINE)
    assert base is not None, run.output
    assert "Facet Is the output correct?: means base 5.00 ± 0.94, tuned 8.00 (all alike)" in run.output


def test_a_dominant_facet_is_named_as_deciding_the_verdicts(tmp_path: Path) -> None:
    quality: dict[str, float | dict[str, float]] = {}
    rows = []
    correct, concise = "Is the output correct?", "Is the output concise?"
    for k in range(8):
        good, wordy = f"right {k}", f"wrong but short {k}"
        follows = "Does the output follow the instruction?"
        quality[good] = {follows: 5, correct: 9, concise: 3}
        quality[wordy] = {follows: 5, correct: 2, concise: 9}
        rows.append(
            {"id": str(k), "query": "Q?", "candidates": [good, wordy], "systems": ["careful", "quick"]}
        )
    data = write_jsonl(tmp_path / "pairs.jsonl", rows)
    with LLMServer(RuleJudge(quality=quality).for_server()) as server:  # weights 50/30/20 by default
        run = invoke(data, "--method", "dna", *local(server, tmp_path), "--out", tmp_path / "j.jsonl")

    assert run.exit_code == 0, run.output
    assert printed_row(run.output, "careful")[:3] == (8, 0, 0)
    assert f"Facet {correct}: decided 8 of 8 verdicts (for careful: 8), agreed with 8" in run.output
    assert f"Facet {concise}: decided 0 of 8 verdicts, agreed with 0" in run.output
