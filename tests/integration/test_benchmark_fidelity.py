"""meta-eval judges a benchmark as the papers did: DnA-Eval with its predefined criteria, the baselines
with its own prompt template; the run record says which criteria and template were used."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from faceteval.datasets import get_benchmark
from faceteval.datasets._faireval import FAIREVAL_CRITERIA
from faceteval.datasets._mtbench import MTBENCH_CRITERIA
from tests.integration.test_meta_eval import meta_eval, record_of
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge


@pytest.fixture(scope="module")
def data_dir() -> Path:
    return Path(os.environ["FACETEVAL_DATA_DIR"])


@pytest.fixture
def judge() -> RuleJudge:
    return RuleJudge(weights=(30, 25, 20, 10, 10, 5))


@pytest.fixture
def server(judge: RuleJudge) -> Iterator[LLMServer]:
    with LLMServer(judge.for_server()) as running:
        yield running


def local(server: LLMServer, tmp_path: Path) -> list[str]:
    return ["--model", "openai:judge", "--base-url", server.base_url, "--cache", str(tmp_path / "c.sqlite")]


def user_prompts(server: LLMServer) -> list[str]:
    return [str(r.body["messages"][-1]["content"]) for r in server.requests]


@pytest.mark.parametrize(
    ("benchmark", "criteria"), [("faireval", FAIREVAL_CRITERIA), ("llmbar-mtbench", MTBENCH_CRITERIA)]
)
def test_dna_scores_the_predefined_criteria_and_generates_no_aspects(
    data_dir: Path, tmp_path: Path, benchmark: str, criteria: Any
) -> None:
    assert all(i.criteria == criteria for i in get_benchmark(benchmark).instances(data_dir))
    dry = meta_eval(data_dir, benchmark, "--method", "dna", "--model", "openai:x", "--dry-run",
                    "--limit", "3", "--out", tmp_path / "dry")  # fmt: skip
    assert dry.exit_code == 0, dry.output
    assert "dna.score" in dry.output and "dna.weights" in dry.output and "dna.aspects" not in dry.output
    names = ", ".join(c.name for c in criteria)
    assert f"Criteria (the benchmark's predefined): {names}." in " ".join(dry.output.split())
    generated = meta_eval(data_dir, "llmbar-adversarial", "--method", "dna", "--model", "openai:x",
                          "--dry-run", "--limit", "3", "--out", tmp_path / "dry")  # fmt: skip
    assert "dna.aspects" in generated.output  # LLMBar has no predefined criteria (Table 1)
    assert "Criteria (generated per query)." in generated.output
    baseline = meta_eval(data_dir, benchmark, "--method", "direct", "--model", "openai:x", "--dry-run",
                         "--limit", "3", "--out", tmp_path / "dry")  # fmt: skip
    assert f"Templates: direct/{benchmark.removeprefix('llmbar-')}." in baseline.output


def test_a_real_run_scores_faireval_perspectives_and_records_their_source(
    data_dir: Path, tmp_path: Path, server: LLMServer, judge: RuleJudge
) -> None:
    out = tmp_path / "run"
    result = meta_eval(data_dir, "faireval", "--method", "dna", "--limit", "2", "--resamples", "0",
                       *local(server, tmp_path), "--out", out, "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "dna.aspects" not in judge.calls and judge.calls.count("dna.score") == 8
    scored = [p.split("on one aspect only:\n", 1)[1].split("\n", 1)[0] for p in user_prompts(server)
              if "on one aspect only:" in p]  # fmt: skip
    assert sorted(scored) == sorted(f"> {c.name}: {c.description}" for c in FAIREVAL_CRITERIA for _ in (1, 2))
    weights = [p for p in user_prompts(server) if "importance weightage" in p]
    assert len(weights) == 2 and all("level of details" in p for p in weights)
    record = record_of(out)
    names = [c.name for c in FAIREVAL_CRITERIA]
    assert record["options"]["criteria"] == {"source": "benchmark", "names": names}
    judgment = json.loads((out / "judgments.jsonl").read_text().splitlines()[0])
    assert [f["name"] for f in judgment["facets"]] == names


def test_criteria_given_replace_the_benchmarks_and_the_record_says_so(
    data_dir: Path, tmp_path: Path, server: LLMServer, judge: RuleJudge
) -> None:
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text("- name: brevity\n  description: Short.\n- name: correctness\n", encoding="utf-8")
    out = tmp_path / "run"
    result = meta_eval(data_dir, "llmbar-mtbench", "--method", "dna", "--criteria", criteria, "--limit", "2",
                       "--resamples", "0", *local(server, tmp_path), "--out", out, "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert record_of(out)["options"]["criteria"] == {"source": "given", "names": ["brevity", "correctness"]}
    assert "dna.aspects" not in judge.calls


def test_a_generated_run_says_its_aspects_were_generated(
    data_dir: Path, tmp_path: Path, server: LLMServer
) -> None:
    out = tmp_path / "run"
    result = meta_eval(data_dir, "llmbar-natural", "--method", "dna", "--limit", "2", "--resamples", "0",
                       *local(server, tmp_path), "--out", out, "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert record_of(out)["options"]["criteria"] == {"source": "generated", "names": None}


def test_a_baseline_judges_llmbar_with_its_vanilla_prompt_and_the_record_names_it(
    data_dir: Path, tmp_path: Path
) -> None:
    with LLMServer(lambda body: "Output (a)") as server:
        out = tmp_path / "run"
        result = meta_eval(data_dir, "llmbar-natural", "--method", "direct", "--limit", "4", "--resamples",
                           "0", *local(server, tmp_path), "--out", out, "-q")  # fmt: skip
        prompts = user_prompts(server)
    assert result.exit_code == 0, result.output
    assert len(prompts) == 4 and all(p.startswith("Select the Output (a) or Output (b)") for p in prompts)
    record = record_of(out)
    assert record["method"]["params"]["template"] == "llmbar"
    assert sorted(record["prompts"]) == ["common/reask", "direct/llmbar"]
    assert record["options"]["criteria"] == {"source": "template", "names": None}
    judgments = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    assert {(j["verdict"], tuple(j["scores"])) for j in judgments} == {(1, (1.0, 0.0))}


def test_a_baseline_on_faireval_follows_its_review_prompt(data_dir: Path, tmp_path: Path) -> None:
    reply = "Reasons.\nScore of the Assistant 1: 7\nScore of the Assistant 2: 5"
    with LLMServer(lambda body: reply) as server:
        out = tmp_path / "run"
        result = meta_eval(data_dir, "faireval", "--method", "cot", "--limit", "2", "--resamples", "0",
                           *local(server, tmp_path), "--out", out, "-q")  # fmt: skip
        prompts = user_prompts(server)
    assert result.exit_code == 0, result.output
    assert all("[The Start of Assistant 1's Answer]" in p and "Score of the Assistant 2: <score>" in p
               for p in prompts)  # fmt: skip
    assert sorted(record_of(out)["prompts"]) == ["common/reask", "cot/faireval"]
    generic = tmp_path / "generic"
    with LLMServer(lambda body: "Reasons.\n7 5") as server:
        result = meta_eval(data_dir, "faireval", "--method", "cot", "-M", "template=generic", "--limit", "2",
                           "--resamples", "0", *local(server, tmp_path), "--out", generic, "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(record_of(generic)["prompts"]) == ["common/reask", "cot/score"]
