"""MT-Bench: GPT-4 pair verdicts against expert human votes, as published (Zheng et al., 2023)."""

import csv
import os
from pathlib import Path

import pytest

from faceteval.metrics import Rate, vote_agreement

WINNERS = {"model_a": 1, "model_b": 2, "tie": 0, "tie (inconsistent)": 0}

Key = tuple[int, tuple[str, str], int]


@pytest.fixture(scope="module")
def judgments_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    if not value:
        pytest.fail("FACETEVAL_DATA_DIR must point at the staged data (with mt_bench/); these tests need it")
    path = Path(value) / "mt_bench" / "human_judgments"
    if not path.is_dir():
        pytest.fail(f"{path} is missing")
    return path


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def keyed(row: dict[str, str]) -> tuple[Key, int]:
    """(question, unordered model pair, turn) and the winner in the pair's sorted order."""
    model_a, model_b = row["model_a"], row["model_b"]
    winner = WINNERS[row["winner"]]
    if model_a > model_b and winner != 0:
        winner = 3 - winner
    pair = (min(model_a, model_b), max(model_a, model_b))
    return (int(row["question_id"]), pair, int(row["turn"])), winner


@pytest.fixture(scope="module")
def gpt4(judgments_dir: Path) -> dict[Key, int | None]:
    return dict(keyed(row) for row in read_rows(judgments_dir / "mt_bench_gpt4_pair.csv"))


@pytest.fixture(scope="module")
def expert_votes(judgments_dir: Path) -> list[dict[str, str]]:
    rows = read_rows(judgments_dir / "mt_bench_human.csv")
    return [row for row in rows if row["judge"].startswith("expert_")]


@pytest.mark.parametrize(
    ("turn", "with_ties", "without_ties"), [(1, (886, 1343), (727, 859)), (2, (871, 1325), (731, 864))]
)
def test_gpt4_pair_agreement_with_experts(
    gpt4: dict[Key, int | None],
    expert_votes: list[dict[str, str]],
    turn: int,
    with_ties: tuple[int, int],
    without_ties: tuple[int, int],
) -> None:
    votes = [keyed(row) for row in expert_votes if int(row["turn"]) == turn]
    rate = vote_agreement(gpt4, votes)
    assert (rate.hits, rate.n, rate.missing, rate.excluded) == (*with_ties, 0, 0)
    rate = vote_agreement(gpt4, votes, ties=False)
    assert (rate.hits, rate.n, rate.excluded) == (*without_ties, with_ties[1] - without_ties[1])


def test_a_judge_missing_a_comparison_leaves_its_votes_out(
    gpt4: dict[Key, int | None], expert_votes: list[dict[str, str]]
) -> None:
    votes = [keyed(row) for row in expert_votes if int(row["turn"]) == 1]
    dropped = votes[0][0]
    partial_judge = {key: verdict for key, verdict in gpt4.items() if key != dropped}
    full, partial = vote_agreement(gpt4, votes), vote_agreement(partial_judge, votes)
    left_out = sum(key == dropped for key, _ in votes)
    assert (partial.n, partial.excluded) == (full.n - left_out, left_out)
    failed_judge = {**gpt4, dropped: None}
    failed = vote_agreement(failed_judge, votes)
    assert (failed.n, failed.missing) == (full.n, left_out)
    assert isinstance(failed, Rate)
