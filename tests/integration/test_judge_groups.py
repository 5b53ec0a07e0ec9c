"""`judge --group-by` gives each group of instances its own win rates (or means), `--system-by` reads
the systems from a column, and `--id` makes ids of several columns: over a local server."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import faceteval
from faceteval import Direct, JudgeOptions
from faceteval._cli._app import cli
from faceteval._cli._console import err_console
from faceteval.datasets import read_instances, read_judgments
from faceteval.errors import ConfigError
from faceteval.results import GroupResult, JudgeResult, ResultOptions, compute_result
from tests.support.files import write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

MATH, CODE = 12, 8
"""Pairs of each dataset: system B's answer is better in math, A's in code."""


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(err_console, "_width", 200)


def _quality() -> dict[str, float]:
    quality: dict[str, float] = {}
    for i in range(MATH):
        quality[f"a-math-{i}"], quality[f"b-math-{i}"] = 3, 8
    for i in range(CODE):
        quality[f"a-code-{i}"], quality[f"b-code-{i}"] = 8, 3
    for i in range(30):
        quality[f"one-{i}"] = 2 + (i % 3) * 3  # single outputs: m0 scores 2, m1 5, m2 8
    return quality


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer(RuleJudge(quality=_quality(), record=False).for_server()) as running:
        yield running


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def local(server: LLMServer, tmp_path: Path) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url, "--cache", str(tmp_path / "c.sqlite")]


def pairs_csv(path: Path) -> Path:
    """Pairs of systems A and B (each first in every other row), from two datasets and 20 questions."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "dataset", "output_a", "output_b", "model_a", "model_b"])
        for dataset, count in (("math", MATH), ("code", CODE)):
            for i in range(count):
                a, b = f"a-{dataset}-{i}", f"b-{dataset}-{i}"
                row = [a, b, "A", "B"] if i % 2 == 0 else [b, a, "B", "A"]
                writer.writerow([f"{dataset} question {i}?", dataset, *row])
    return path


def stored(out: Path) -> JudgeResult:
    result = faceteval.read_run(out).summary.result
    assert result is not None
    return result


def win_rates(group: GroupResult) -> dict[str, float | None]:
    assert group.pairwise is not None
    return {s.name: s.win_rate.value for s in group.pairwise.systems}


def test_each_group_gets_its_own_win_rates_printed_and_stored(tmp_path: Path, server: LLMServer) -> None:
    data, out = pairs_csv(tmp_path / "pairs.csv"), tmp_path / "j.jsonl"
    mapped = ["--field", "query=question", "--field", "systems=model_a,model_b"]
    run = invoke(
        data, *mapped, "--method", "direct", "--group-by", "dataset", *local(server, tmp_path), "--out", out
    )

    assert run.exit_code == 0, run.output
    result = stored(out)
    assert result.group_by == "dataset"
    assert [(g.value, g.judgments) for g in result.groups] == [("math", MATH), ("code", CODE)]
    math, code = result.groups
    assert win_rates(math) == {"B": 1.0, "A": 0.0}  # B wins every math pair ...
    assert win_rates(code) == {"A": 1.0, "B": 0.0}  # ... and A every code pair
    b = next(s for s in result.pairwise.systems if s.name == "B") if result.pairwise else None
    assert b is not None and b.win_rate.value == pytest.approx(MATH / (MATH + CODE))  # the run's, pooled
    assert math.pairwise is not None and math.pairwise.facets == [] and math.pairwise.ranking is None
    assert "By dataset (2 groups), with 95% CIs: pairwise" in run.output
    assert "math" in run.output and "code" in run.output
    assert faceteval.read_run(out).options["group_by"] == "dataset"

    # without --group-by the result has no groups
    plain = tmp_path / "plain.jsonl"
    again = invoke(data, *mapped, "--method", "direct", *local(server, tmp_path), "--out", plain)
    assert again.exit_code == 0, again.output
    assert stored(plain).groups == [] and stored(plain).group_by is None
    assert "By dataset" not in again.output


def test_the_printed_groups_are_capped_and_the_record_has_every_one(
    tmp_path: Path, server: LLMServer
) -> None:
    data, out = pairs_csv(tmp_path / "pairs.csv"), tmp_path / "j.jsonl"
    mapped = ["--field", "query=question", "--field", "systems=model_a,model_b"]
    run = invoke(
        data, *mapped, "--method", "direct", "--group-by", "query", *local(server, tmp_path), "--out", out
    )

    assert run.exit_code == 0, run.output
    assert len(stored(out).groups) == MATH + CODE
    assert "By query (20 groups)" in run.output
    assert "and 10 more groups with fewer judgments" in run.output
    assert run.output.count("question ") == 10  # the groups shown: the first ten queries


def test_a_group_field_no_instance_has_is_a_usage_error_before_any_call(
    tmp_path: Path, server: LLMServer
) -> None:
    data = pairs_csv(tmp_path / "pairs.csv")
    before = server.request_count
    run = invoke(
        data,
        "--field",
        "query=question",
        "--group-by",
        "topic",
        *local(server, tmp_path),
        "--out",
        tmp_path / "j.jsonl",
    )

    assert run.exit_code == 2, run.output
    assert "cannot group by 'topic': no instance has a field or metadata key 'topic'" in run.output
    assert "the instances have: id, query, dataset, model_a, model_b" in run.output
    assert server.request_count == before
    assert not (tmp_path / "j.jsonl").exists()


def test_system_by_names_single_outputs_systems_after_their_own_and_before_systems(
    tmp_path: Path, server: LLMServer
) -> None:
    rows = [
        {"id": f"o{i}", "query": f"q{i}?", "candidates": [f"one-{i}"], "metadata": {"model": f"m{i % 3}"}}
        for i in range(27)
    ]
    rows += [
        {
            "id": "own",
            "query": "q27?",
            "candidates": ["one-27"],
            "systems": ["named"],
            "metadata": {"model": "m9"},
        },
        {"id": "bare", "query": "q28?", "candidates": ["one-28"]},
    ]
    data, out = write_jsonl(tmp_path / "outputs.jsonl", rows), tmp_path / "s.jsonl"
    run = invoke(
        data,
        "--method",
        "direct",
        "--system-by",
        "model",
        "--systems",
        "fallback",
        *local(server, tmp_path),
        "--out",
        out,
    )

    assert run.exit_code == 0, run.output
    pointwise = stored(out).pointwise
    assert pointwise is not None and pointwise.systems_named
    means = {s.name: (s.score.value, s.score.n) for s in pointwise.systems}
    # its own systems first, then --system-by's column, then --systems for an instance with neither
    assert means == {"m2": (8.0, 9), "m1": (5.0, 9), "named": (2.0, 1), "m0": (2.0, 9), "fallback": (5.0, 1)}
    assert faceteval.read_run(out).inputs["input"].read_as == {"system_by": "model"}


def test_system_by_reads_a_list_of_one_name_per_candidate(tmp_path: Path, server: LLMServer) -> None:
    rows = [
        {"id": f"p{i}", "query": f"math question {i}?", "candidates": [f"a-math-{i}", f"b-math-{i}"],
         "metadata": {"models": ["A", "B"]}}
        for i in range(4)
    ]  # fmt: skip
    data, out = write_jsonl(tmp_path / "pairs.jsonl", rows), tmp_path / "j.jsonl"
    run = invoke(data, "--method", "direct", "--system-by", "models", *local(server, tmp_path), "--out", out)

    assert run.exit_code == 0, run.output
    result = stored(out)
    assert result.pairwise is not None
    assert {s.name: s.wins for s in result.pairwise.systems} == {"B": 4, "A": 0}


def test_a_composite_id_joins_its_fields_and_a_repeated_one_is_a_duplicate_on_the_later_line(
    tmp_path: Path, server: LLMServer
) -> None:
    data = tmp_path / "outputs.csv"
    data.write_text(
        "doc,system,query,output\nd1,m0,q0?,one-0\nd1,m1,q1?,one-1\nd2,m0,q2?,one-2\nd1,m0,q3?,one-3\n"
        "d|3,m1,q4?,one-4\n",
        encoding="utf-8",
    )
    out = tmp_path / "j.jsonl"
    run = invoke(
        data,
        "--field",
        "candidates=output",
        "--id",
        "doc,system",
        *local(server, tmp_path),
        "--out",
        out,
        "--max-failures",
        "2",
    )

    assert run.exit_code == 0, run.output
    judgments = list(read_judgments(out))
    assert [j.id for j in judgments[:3]] == ["d1|m0", "d1|m1", "d2|m0"]
    assert [j.status for j in judgments] == ["ok", "ok", "ok", "error", "error"]
    assert "outputs.csv:5: field 'doc,system': duplicate id 'd1|m0' (first on line 2)" in (
        judgments[3].error or ""
    )
    assert "'d|3' holds '|'" in (judgments[4].error or "")
    assert faceteval.read_run(out).inputs["input"].read_as["id_fields"] == ["doc", "system"]


def test_group_by_in_python_judge_and_compute_result(tmp_path: Path, server: LLMServer) -> None:
    pairs = list(
        read_instances(
            pairs_csv(tmp_path / "pairs.csv"), fields={"query": "question", "systems": ["model_a", "model_b"]}
        )
    )
    llm = faceteval.LLM.from_spec("openai:judge", base_url=server.base_url)
    out = tmp_path / "j.jsonl"
    judgments = faceteval.judge(pairs, Direct(), llm, options=JudgeOptions(group_by="dataset"), out=out)

    assert [g.value for g in stored(out).groups] == ["math", "code"]
    computed = compute_result(judgments, pairs, options=ResultOptions(group_by="dataset"))
    assert computed.groups == stored(out).groups
    with pytest.raises(ConfigError, match="cannot group by 'topic'"):
        faceteval.judge(pairs, Direct(), llm, options=JudgeOptions(group_by="topic"))
