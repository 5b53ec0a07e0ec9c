"""MT-Bench human votes and GPT-4 pair verdicts, checked against SOURCE.md and the MT-Bench paper."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from faceteval.core import Instance, Judgment
from faceteval.datasets import get_benchmark
from faceteval.datasets._mtbench import BENCHMARKS, MTBENCH_CRITERIA, vote_key
from faceteval.errors import InputError

METADATA = {"question_id", "model_a", "model_b", "turn", "judge", "judge_kind"}


@pytest.fixture(scope="module")
def root() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    if not value or not (Path(value) / "mt_bench").is_dir():
        pytest.fail("FACETEVAL_DATA_DIR must point at the staged data (with mt_bench/); these tests need it")
    return Path(value)


@pytest.fixture(scope="module")
def votes(root: Path) -> list[Instance]:
    return get_benchmark("mtbench-human-all").instances(root)


@pytest.fixture(scope="module")
def gpt4(root: Path) -> dict[str, Judgment]:
    source = get_benchmark("mtbench-human-all").recorded_source("gpt4-pair", root)
    return {j.id: j for j in source.load(root)}


def test_registered_benchmarks() -> None:
    assert [b.name for b in BENCHMARKS] == ["mtbench-human", "mtbench-human-all"]
    for bench in BENCHMARKS:
        assert bench.kind == "pairwise" and not bench.texts
        assert bench.criteria == MTBENCH_CRITERIA


def test_votes_match_the_source_counts(votes: list[Instance]) -> None:
    assert len(votes) == get_benchmark("mtbench-human-all").size == 3355
    assert len({v.id for v in votes}) == 3355
    assert votes[0].id == "mtbench-human:1"
    assert Counter(v.label for v in votes) == {1: 1293, 2: 1282, 0: 780}
    assert Counter(v.metadata["turn"] for v in votes) == {1: 1689, 2: 1666}
    assert Counter(v.metadata["judge_kind"] for v in votes) == {"expert": 2668, "author": 687}
    assert len({v.metadata["judge"] for v in votes}) == 65
    assert len({v.metadata["question_id"] for v in votes}) == 80
    assert len({v.category for v in votes}) == 8
    assert all(set(v.metadata) == METADATA for v in votes)
    assert len({vote_key(v) for v in votes}) == 1814


def test_expert_variant_keeps_the_ids(root: Path, votes: list[Instance]) -> None:
    experts = get_benchmark("mtbench-human").instances(root)
    assert len(experts) == get_benchmark("mtbench-human").size == 2668
    assert experts == [v for v in votes if v.metadata["judge_kind"] == "expert"]


def test_queries_candidates_and_references(votes: list[Instance], root: Path) -> None:
    questions = {
        q["question_id"]: q
        for q in map(json.loads, (root / "mt_bench/question.jsonl").read_text().splitlines())
    }
    for vote in votes:
        turns = questions[vote.metadata["question_id"]]["turns"]
        assert vote.category == questions[vote.metadata["question_id"]]["category"]
        if vote.metadata["turn"] == 1:
            assert vote.query == turns[0]
        else:
            assert turns[0] in vote.query and turns[1] in vote.query
        model_a, model_b = vote.metadata["model_a"], vote.metadata["model_b"]
        assert model_a in vote.candidates[0] and model_b in vote.candidates[1]
        assert "not distributed" in vote.candidates[0]
        assert (vote.reference is not None) == (101 <= vote.metadata["question_id"] <= 130)


def test_criteria_are_the_pair_v2_prompt_factors(root: Path) -> None:
    prompts = {
        p["name"]: p
        for p in map(json.loads, (root / "mt_bench/judge_prompts.jsonl").read_text().splitlines())
    }
    factors = (
        "the helpfulness, relevance, accuracy, depth, creativity, and level of detail of their responses"
    )
    assert factors in prompts["pair-v2"]["system_prompt"]
    assert [c.name for c in MTBENCH_CRITERIA] == [
        "helpfulness",
        "relevance",
        "accuracy",
        "depth",
        "creativity",
        "level of detail",
    ]
    assert all(c.description for c in MTBENCH_CRITERIA)


def test_gpt4_pair_joins_every_vote(votes: list[Instance], gpt4: dict[str, Judgment]) -> None:
    assert list(gpt4) == [v.id for v in votes]
    assert all(
        j.status == "ok" and j.method == "recorded:gpt4-pair" and j.orders == [] for j in gpt4.values()
    )
    for judgment in gpt4.values():
        raw = judgment.trace[0].raw
        assert judgment.consistent is not raw.endswith("(inconsistent)")
        assert (
            judgment.verdict == 0 if raw.endswith(("tie", "(inconsistent)")) else judgment.verdict in (1, 2)
        )
    # Question 81, turn 1: GPT-4 judged "alpaca-13b vs gpt-3.5-turbo" and preferred gpt-3.5-turbo.
    flipped = [
        v
        for v in votes
        if vote_key(v) == (81, ("alpaca-13b", "gpt-3.5-turbo"), 1) and v.metadata["model_a"] != "alpaca-13b"
    ]
    straight = [
        v for v in votes if vote_key(v) == (81, ("alpaca-13b", "gpt-3.5-turbo"), 1) and v not in flipped
    ]
    assert straight and all(gpt4[v.id].verdict == 2 for v in straight)
    assert all(gpt4[v.id].verdict == 1 for v in flipped)


def test_gpt4_agreement_with_experts_matches_the_paper(
    votes: list[Instance], gpt4: dict[str, Judgment]
) -> None:
    """MT-Bench paper: GPT-4 pair vs expert votes, with ties / without ties, per turn."""
    found = {}
    for turn in (1, 2):
        pairs = [
            (v.label, gpt4[v.id].verdict)
            for v in votes
            if v.metadata["judge_kind"] == "expert" and v.metadata["turn"] == turn
        ]
        no_ties = [(h, g) for h, g in pairs if h != 0 and g != 0]
        found[turn] = (
            sum(h == g for h, g in pairs),
            len(pairs),
            sum(h == g for h, g in no_ties),
            len(no_ties),
        )
    assert found == {1: (886, 1343, 727, 859), 2: (871, 1325, 731, 864)}


def test_fetch_lists_the_staged_files(root: Path) -> None:
    for bench in BENCHMARKS:
        for remote in bench.fetch:
            assert remote.url.startswith("https://raw.githubusercontent.com/")
            assert hashlib.sha256((root / remote.path).read_bytes()).hexdigest() == remote.sha256


def _copy(root: Path, tmp_path: Path) -> Path:
    shutil.copytree(root / "mt_bench", tmp_path / "mt_bench")
    return tmp_path


def test_a_broken_vote_names_file_line_and_column(root: Path, tmp_path: Path) -> None:
    data = _copy(root, tmp_path)
    path = data / "mt_bench/human_judgments/mt_bench_human.csv"
    lines = path.read_text().splitlines()
    lines[11] = lines[11].replace("model_b", "model_c").replace("model_a", "model_c")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        get_benchmark("mtbench-human-all").instances(data)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 12, "winner")
    assert "model_c" in str(caught.value)


def test_a_broken_gpt4_row_and_question_are_reported(root: Path, tmp_path: Path) -> None:
    data = _copy(root, tmp_path)
    path = data / "mt_bench/human_judgments/mt_bench_gpt4_pair.csv"
    lines = path.read_text().splitlines()
    lines[5] = lines[5].rsplit(",", 1)[0] + ",3"
    path.write_text("\n".join(lines) + "\n")
    source = get_benchmark("mtbench-human-all").recorded_source("gpt4-pair", data)
    with pytest.raises(InputError) as caught:
        list(source.load(data))
    assert (caught.value.line, caught.value.field) == (6, "turn")
    questions = data / "mt_bench/question.jsonl"
    lines = questions.read_text().splitlines()
    lines[3] = lines[3].replace('"turns"', '"turnz"')
    questions.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        get_benchmark("mtbench-human-all").instances(data)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(questions), 4, "turns")
