"""Prediction-powered win rates measured over random draws of labels (``summary.ppi``): a judge biased
towards position 1 misses the all-human win rate with its own interval, the PPI interval covers it at
about the nominal level, and each number is the one its draw gives."""

from __future__ import annotations

import numpy as np
import pytest

from faceteval.core import Instance, Judgment
from faceteval.metaeval import PpiSettings
from faceteval.metaeval._ppi_pairs import POSITIONS, pair_outcomes, pair_systems, ppi_summary
from faceteval.metrics import human_mean, prediction_powered_mean, wilson_interval
from faceteval.results.internal import outcome

PAIRS = (("alpha", "beta"), ("beta", "gamma"), ("alpha", "gamma"))


def biased_target(
    items: int = 400, seed: int = 7, favour: float = 0.3, *, balanced: bool = False
) -> tuple[list[Instance], list[Judgment]]:
    """Three model pairs of labelled comparisons, each pair's first system shown first (``balanced``:
    every other time), and a judge that agrees with the humans except that it gives position 1 the
    win on ``favour`` of the items position 1 should lose."""
    rng = np.random.default_rng(seed)
    instances, judgments = [], []
    for p, (first, second) in enumerate(PAIRS):
        strength = (0.35, 0.5, 0.6)[p]  # the human chance that the pair's first system wins
        for k in range(items):
            swapped = balanced and k % 2 == 1
            systems = (second, first) if swapped else (first, second)
            draw = rng.random()
            first_wins = 1 if draw < strength else (0 if draw < strength + 0.1 else 2)
            label = first_wins if first_wins == 0 or not swapped else 3 - first_wins
            verdict = 1 if label == 2 and rng.random() < favour else label
            ident = f"{p}-{k}"
            instances.append(
                Instance(id=ident, query="q", candidates=("a", "b"), label=label, systems=systems)
            )
            judgments.append(Judgment(id=ident, method="direct", status="ok", verdict=verdict))
    return instances, judgments


def test_a_biased_judge_misses_and_ppi_covers() -> None:
    instances, judgments = biased_target()
    block = ppi_summary(instances, judgments, PpiSettings(labels=60, draws=300, seed=3))
    assert [row["pair"] for row in block["pairs"]] == ["alpha vs beta", "alpha vs gamma", "beta vs gamma"]
    assert block["coverage_judge_only"] < 0.5  # its own interval is tight around a biased rate
    assert block["coverage"] >= 0.9
    assert block["coverage_human_only"] >= 0.9
    assert block["width"] < block["width_human_only"]  # the verdicts carry information
    for row in block["pairs"]:
        assert row["coverage"] >= 0.88
        assert row["judge_win_rate"] > row["human_win_rate"] + 0.05  # the bias lifts the first system


def test_a_position_bias_cancels_when_each_system_is_shown_first_half_the_time() -> None:
    instances, judgments = biased_target(balanced=True)
    block = ppi_summary(instances, judgments, PpiSettings(labels=60, draws=100, seed=3))
    assert block["coverage_judge_only"] == 1.0
    assert block["coverage"] >= 0.9


def test_an_unbiased_judge_is_covered_by_its_own_interval_too() -> None:
    instances, judgments = biased_target(favour=0.0)
    block = ppi_summary(instances, judgments, PpiSettings(labels=60, draws=100, seed=3))
    assert block["coverage_judge_only"] == 1.0
    assert block["coverage"] >= 0.9
    # a judge that is always right: the PPI interval is far narrower than the labels alone
    assert block["width"] < 0.5 * block["width_human_only"]


def test_pooled_numbers_are_the_mean_over_pairs() -> None:
    instances, judgments = biased_target(items=120)
    block = ppi_summary(instances, judgments, PpiSettings(labels=20, draws=30, seed=1))
    keys = ("coverage", "coverage_judge_only", "coverage_human_only", "width", "width_judge_only")
    for key in (*keys, "width_human_only"):
        assert block[key] == pytest.approx(np.mean([row[key] for row in block["pairs"]]))
    assert (block["labels"], block["draws"], block["level"], block["seed"]) == (20, 30, 0.95, 1)
    assert block["skipped"] == [] and block["left_out"] == 0


def test_one_draw_is_the_interval_of_the_items_drawn() -> None:
    instances, judgments = biased_target(items=80)
    first = [instance for instance in instances if instance.id.startswith("0-")]
    block = ppi_summary(first, judgments, PpiSettings(labels=30, draws=1, seed=11))
    pair = pair_outcomes(first, judgments)[0][0]
    drawn = np.zeros(80, dtype=bool)
    drawn[np.random.default_rng(11).choice(80, 30, replace=False)] = True
    ppi = prediction_powered_mean(
        pair.human[drawn].tolist(), pair.judge[drawn].tolist(), pair.judge[~drawn].tolist()
    )
    alone = human_mean(pair.human[drawn].tolist())
    row = block["pairs"][0]
    truth = float(pair.human.mean())
    assert row["human_win_rate"] == pytest.approx(truth)
    assert row["width"] == pytest.approx(ppi.width)
    assert row["width_human_only"] == pytest.approx(alone.width)
    assert ppi.ci is not None and alone.ci is not None
    assert row["coverage"] == float(ppi.ci[0] <= truth <= ppi.ci[1])
    assert row["coverage_human_only"] == float(alone.ci[0] <= truth <= alone.ci[1])
    judge_ci = wilson_interval(float(pair.judge.sum()), 80)
    assert judge_ci is not None and row["judge_ci"] == pytest.approx(list(judge_ci))


def test_outcomes_are_the_first_system_s_whichever_position_it_holds() -> None:
    def pair(ident: str, label: int | None, first: str, second: str) -> Instance:
        meta = {"model_a": first, "model_b": second}
        return Instance(id=ident, query="q", candidates=("a", "b"), label=label, metadata=meta)

    instances = [pair("1", 2, "zed", "amy"), pair("2", 1, "amy", "zed"), pair("3", 0, "amy", "zed")]
    instances.append(pair("4", None, "amy", "zed"))
    judgments = [
        Judgment(id="1", method="m", status="ok", verdict=1),  # zed, at position 1, wins: amy loses
        Judgment(id="2", method="m", status="parse_error", error="unreadable"),
    ]  # the third has no judgment
    (pair,), left_out = pair_outcomes(instances, judgments)
    assert pair.name == "amy vs zed" and left_out == 1
    assert pair.human.tolist() == [1.0, 1.0, 0.5]
    assert pair.judge.tolist() == [0.0, 0.5, 0.5]  # a failed or missing verdict predicts a tie
    assert pair.judged.tolist() == [True, False, False]


def test_instances_without_systems_are_one_group_of_positions() -> None:
    instances, judgments = biased_target(items=60)
    plain = [instance.model_copy(update={"systems": None}) for instance in instances]
    block = ppi_summary(plain, judgments, PpiSettings(labels=20, draws=5))
    assert block["groups"] == "positions"
    assert [row["pair"] for row in block["pairs"]] == [" vs ".join(POSITIONS)]
    assert block["pairs"][0]["items"] == 180


def test_pairs_with_too_few_labelled_items_are_skipped_and_said() -> None:
    instances, judgments = biased_target(items=50)
    block = ppi_summary(instances, judgments, PpiSettings(labels=26, draws=3))
    assert block["pairs"] == []
    assert block["skipped"] == [
        {"pair": name, "items": 50} for name in ("alpha vs beta", "alpha vs gamma", "beta vs gamma")
    ]
    assert block["coverage"] is None and block["width"] is None


def test_the_draws_are_seeded() -> None:
    instances, judgments = biased_target(items=100)
    one = ppi_summary(instances, judgments, PpiSettings(labels=20, draws=40, seed=5))
    again = ppi_summary(instances, judgments, PpiSettings(labels=20, draws=40, seed=5))
    other = ppi_summary(instances, judgments, PpiSettings(labels=20, draws=40, seed=6))
    assert one == again
    assert one["width"] != other["width"]


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="at least 2 labels"):
        PpiSettings(labels=1)
    with pytest.raises(ValueError, match="draws must be at least 1"):
        PpiSettings(labels=5, draws=0)
    with pytest.raises(ValueError, match="level"):
        PpiSettings(labels=5, level=1.0)


def test_systems_come_from_the_instance_or_its_metadata() -> None:
    def pair(**fields: object) -> Instance:
        return Instance(id="x", query="q", candidates=("a", "b"), **fields)  # type: ignore[arg-type]

    assert pair_systems(pair(systems=("s", "t"))) == ("s", "t")
    assert pair_systems(pair(metadata={"model_a": "m", "model_b": "n"})) == ("m", "n")
    assert pair_systems(pair(metadata={"models": ["p", "q"]})) == ("p", "q")
    assert pair_systems(pair(metadata={"models": ["p"]})) is None
    assert outcome(2, 2) == 1.0 and outcome(1, 2) == 0.0
