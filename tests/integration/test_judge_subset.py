"""`judge --limit N` judges the input's first N instances, `--sample N --seed S` a seeded random N in
input order; both are recorded in the run record and a re-run resumes the same instances."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import faceteval
from faceteval import Direct, JudgeOptions
from faceteval._cli._app import cli
from faceteval.errors import ConfigError
from faceteval.llm import LLM, ModelSpec, ScriptedProvider
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def pairs(path: Path, n: int = 20) -> Path:
    rows = [{"id": f"p{i}", "query": f"Q{i}?", "candidates": ["good", "poor"]} for i in range(n)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with LLMServer(
        RuleJudge(quality={"good": 8, "poor": 3}, record=False).for_server(), record=False
    ) as running:
        yield running


def local(server: LLMServer) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url, "--api-key", "k", "--method", "direct"]


def test_limit_judges_the_first_n_and_records_it(tmp_path: Path, server: LLMServer) -> None:
    out = tmp_path / "j.jsonl"
    before = server.request_count
    run = invoke(pairs(tmp_path / "p.jsonl"), *local(server), "--no-cache", "--limit", "3", "--out", out)
    assert run.exit_code == 0, run.output
    assert [j["id"] for j in read_jsonl(out)] == ["p0", "p1", "p2"]
    assert server.request_count - before == 3
    record = json.loads(out.with_name("j.run.json").read_text())
    assert record["options"]["limit"] == 3 and "sample" not in record["options"]


def test_a_sample_is_seeded_in_input_order_the_same_on_a_rerun_and_another_with_another_seed(
    tmp_path: Path, server: LLMServer
) -> None:
    path, cache = pairs(tmp_path / "p.jsonl"), tmp_path / "c.sqlite"
    flags = [path, *local(server), "--cache", cache, "--sample", "5"]
    first = invoke(*flags, "--seed", "7", "--out", tmp_path / "a.jsonl")
    assert first.exit_code == 0, first.output
    ids = [j["id"] for j in read_jsonl(tmp_path / "a.jsonl")]
    assert (
        len(ids) == 5 and ids == sorted(ids, key=lambda i: int(i[1:])) and ids != [f"p{i}" for i in range(5)]
    )
    before = server.request_count
    again = invoke(*flags, "--seed", "7", "--out", tmp_path / "b.jsonl")
    assert [j["id"] for j in read_jsonl(tmp_path / "b.jsonl")] == ids
    assert server.request_count == before and again.exit_code == 0  # the same sample, from the cache
    other = invoke(*flags, "--seed", "8", "--out", tmp_path / "c.jsonl")
    assert other.exit_code == 0 and [j["id"] for j in read_jsonl(tmp_path / "c.jsonl")] != ids
    record = json.loads((tmp_path / "a.run.json").read_text())
    assert (record["options"]["sample"], record["options"]["seed"]) == (5, 7)


def test_limit_and_sample_together_or_below_one_are_usage_errors(tmp_path: Path, server: LLMServer) -> None:
    path = pairs(tmp_path / "p.jsonl")
    both = invoke(path, *local(server), "--limit", "2", "--sample", "2", "--out", tmp_path / "j")
    assert both.exit_code == 2 and "give one" in both.output
    zero = invoke(path, *local(server), "--limit", "0", "--out", tmp_path / "j")
    assert zero.exit_code == 2 and "--limit" in zero.output and not (tmp_path / "j").exists()


def test_a_limit_larger_than_the_input_judges_it_all_and_python_takes_the_same_options() -> None:
    instances = [faceteval.Instance(id=f"i{k}", query="Q?", candidates=["a", "b"]) for k in range(6)]
    rule = RuleJudge(quality={"a": 7, "b": 3}, record=False)
    llm = LLM(ScriptedProvider(rule.for_provider()), ModelSpec("scripted", "judge"))
    limited = faceteval.judge(instances, Direct(), llm, options=JudgeOptions(limit=2))
    assert [j.id for j in limited] == ["i0", "i1"]
    sampled = faceteval.judge(instances, Direct(), llm, options=JudgeOptions(sample=3, sample_seed=1))
    assert [j.id for j in sampled] == [f"i{k}" for k in sorted(_sample_of(6, 3, 1))]
    assert len(faceteval.judge(instances, Direct(), llm, options=JudgeOptions(limit=60))) == 6
    with pytest.raises(ConfigError, match="give one of them"):
        JudgeOptions(limit=1, sample=1)


def _sample_of(n: int, size: int, seed: int) -> list[int]:
    from faceteval._runner import selected

    return list(selected(range(n), JudgeOptions(sample=size, sample_seed=seed)))
