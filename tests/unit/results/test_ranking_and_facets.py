"""Bradley-Terry rankings of known strengths, and which facets decided the verdicts."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from faceteval.core import FacetScore, Instance, Judgment
from faceteval.results import JudgeResult, ResultOptions, compute_result

STRENGTHS = {"strong": 1.0, "middle": 0.0, "weak": -1.0}


def synthetic_run(per_pair: int, seed: int = 7) -> tuple[list[Instance], list[Judgment]]:
    """Pairs of systems judged as Bradley-Terry with `STRENGTHS` says, each pair in both positions."""
    rng = np.random.default_rng(seed)
    instances, judgments = [], []
    for a, b in combinations(STRENGTHS, 2):
        p_a = 1 / (1 + math.exp(STRENGTHS[b] - STRENGTHS[a]))
        for k in range(per_pair):
            systems = (a, b) if k % 2 else (b, a)
            a_wins = rng.random() < p_a
            winner = systems.index(a if a_wins else b) + 1
            id_ = f"{a}-{b}-{k}"
            instances.append(Instance(id=id_, query="q", candidates=("x", "y"), systems=systems))
            scores = [9.0, 1.0] if winner == 1 else [1.0, 9.0]
            judgments.append(Judgment(id=id_, method="m", status="ok", verdict=winner, scores=scores))
    return instances, judgments


def test_bradley_terry_recovers_known_strengths_with_intervals_that_cover_them() -> None:
    instances, judgments = synthetic_run(per_pair=400)
    result = compute_result(judgments, instances, options=ResultOptions(n_resamples=300))

    assert result.pairwise is not None
    ranking = result.pairwise.ranking
    assert ranking is not None and ranking.connected
    assert [s.system for s in ranking.strengths] == ["strong", "middle", "weak"]
    assert [s.rank for s in ranking.strengths] == [1, 2, 3]
    for strength in ranking.strengths:
        assert strength.ci is not None
        low, high = strength.ci
        assert low <= STRENGTHS[strength.system] <= high, strength
        assert low <= strength.strength <= high
        assert strength.comparisons == 800
    assert sum(s.strength for s in ranking.strengths) == pytest.approx(0, abs=1e-9)


def test_rankings_are_seeded_and_two_systems_get_none() -> None:
    instances, judgments = synthetic_run(per_pair=40)
    options = ResultOptions(n_resamples=50, seed=3)
    first = compute_result(judgments, instances, options=options)
    assert compute_result(judgments, instances, options=options) == first
    other = compute_result(judgments, instances, options=ResultOptions(n_resamples=50, seed=4))
    assert other.pairwise is not None and first.pairwise is not None
    assert other.pairwise.ranking != first.pairwise.ranking  # the intervals come from the seed

    two = [(i, j) for i, j in zip(instances, judgments, strict=True) if "weak" not in (i.systems or ())]
    result = compute_result([j for _, j in two], [i for i, _ in two], options=options)
    assert result.pairwise is not None and result.pairwise.ranking is None and not result.pairwise.matrix


def test_a_system_that_wins_every_comparison_keeps_a_finite_strength() -> None:
    instances, judgments = [], []
    for k, (a, b) in enumerate([("A", "B"), ("A", "C"), ("B", "C")] * 5):
        instances.append(Instance(id=str(k), query="q", candidates=("x", "y"), systems=(a, b)))
        judgments.append(Judgment(id=str(k), method="m", status="ok", verdict=1, scores=[2.0, 1.0]))
    ranking = compute_result(judgments, instances, options=ResultOptions(n_resamples=40)).pairwise.ranking  # type: ignore[union-attr]
    assert ranking is not None
    assert [s.system for s in ranking.strengths] == ["A", "B", "C"]
    assert all(math.isfinite(s.strength) for s in ranking.strengths)
    # every resample of comparisons would repeat them: the intervals come from the counts' posterior
    assert all(s.ci is not None and s.ci[0] < s.strength < s.ci[1] for s in ranking.strengths)


def weighted(verdict: int, facets: list[tuple[str, float, list[float]]]) -> Judgment:
    """A DnA-like judgment: overall scores are the weighted sum of the facets'."""
    scores = [round(sum(w * s[m] for _, w, s in facets), 9) for m in range(2)]
    return Judgment(
        id="1",
        method="dna",
        status="ok",
        verdict=verdict,
        scores=scores,
        facets=[FacetScore(name=n, weight=w, scores=list(s)) for n, w, s in facets],
    )


def decisions(result: JudgeResult) -> dict[str, tuple[int, int, int, dict[str, int]]]:
    assert result.pairwise is not None
    found = {}
    for facet in result.pairwise.facets:
        assert facet.decisions is not None
        d = facet.decisions
        found[facet.name] = (d.verdicts, d.agreed, d.decided, d.decided_for)
    return found


def test_a_facet_decides_a_verdict_it_agrees_with_and_without_which_it_would_not_stand() -> None:
    pairs = [Instance(id=str(i), query="q", candidates=("x", "y"), systems=("A", "B")) for i in range(3)]
    judgments = [
        # accuracy alone carries B; style and brevity prefer A
        weighted(2, [("Accuracy", 0.6, [2, 9]), ("style", 0.2, [8, 6]), ("brevity", 0.2, [7, 6])]),
        # both agree with B; either alone suffices, so neither decided it
        weighted(2, [("accuracy", 0.5, [4, 8]), ("style", 0.3, [4, 8]), ("brevity", 0.2, [5, 5])]),
        # a tie: no facet decided anything
        weighted(0, [("accuracy", 0.5, [6, 4]), ("style", 0.5, [4, 6])]),
    ]
    judgments = [j.model_copy(update={"id": str(i)}) for i, j in enumerate(judgments)]
    result = compute_result(judgments, pairs)

    assert decisions(result) == {
        "Accuracy": (2, 2, 1, {"B": 1}),  # named as first met; matched without case
        "style": (2, 1, 0, {}),
        "brevity": (2, 0, 0, {}),
    }
    assert result.pairwise is not None
    assert (result.pairwise.explained, result.pairwise.unexplained) == (2, 0)
    accuracy = result.pairwise.facets[0]
    assert accuracy.judgments == 3
    assert accuracy.mean_weight == pytest.approx((0.6 + 0.5 + 0.5) / 3)
    assert accuracy.means["B"].value == pytest.approx((9 + 8 + 4) / 3)


def test_facets_of_a_sum_or_mean_explain_verdicts_and_an_overall_call_does_not() -> None:
    facets = [FacetScore(name="a", scores=[5.0, 1.0]), FacetScore(name="b", scores=[2.0, 3.0])]
    summed = Judgment(id="1", method="fennec", status="ok", verdict=1, scores=[7.0, 4.0], facets=facets)
    averaged = summed.model_copy(update={"id": "2", "scores": [3.5, 2.0]})
    called = summed.model_copy(update={"id": "3", "scores": [9.0, 2.0]})  # CoEval: its own overall score
    result = compute_result([summed, averaged, called])

    assert result.pairwise is not None
    assert (result.pairwise.explained, result.pairwise.unexplained) == (2, 1)
    assert decisions(result)["a"] == (2, 2, 2, {"1": 2})
