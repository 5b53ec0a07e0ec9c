"""A result as humans would give it: prediction-powered win rates and means beside the judge's."""

from __future__ import annotations

import random
import sys

import pytest

from faceteval.core import Instance, Judgment
from faceteval.datasets import HumanLabel
from faceteval.metrics import human_mean, prediction_powered_mean
from faceteval.results import ResultOptions, compute_result


def _run(n: int = 1000, every: int = 10, seed: int = 1) -> tuple[list[Instance], list[Judgment], float]:
    """Pairs A vs B where humans prefer A on 40%, judged by a judge that gives position 1 (A) the win on
    30% of the pairs it should lose; every ``every``-th pair carries its human label."""
    rng = random.Random(seed)
    instances, judgments, wins = [], [], 0
    for i in range(n):
        truth = 1 if rng.random() < 0.4 else 2
        wins += truth == 1
        verdict = truth if truth == 1 or rng.random() > 0.3 else 1
        label = truth if i % every == 0 else None
        instances.append(
            Instance(id=str(i), query="q", candidates=["x", "y"], systems=["A", "B"], label=label)
        )
        judgments.append(Judgment(id=str(i), method="m", status="ok", verdict=verdict))
    return instances, judgments, wins / n


def test_the_win_rates_humans_would_give_correct_a_biased_judge():
    instances, judgments, truth = _run()
    human = compute_result(judgments, instances).human
    assert human is not None and human.labels == 100
    a = next(row for row in human.systems if row.name == "A")
    assert a.judge is not None and a.judge > truth + 0.1  # the judge's own rate is off
    assert a.ppi.ci is not None and a.ppi.ci[0] <= truth <= a.ppi.ci[1]
    assert a.ppi.labels == 100 and a.ppi.unlabelled == 900
    labelled = [j for j, i in zip(judgments, instances, strict=True) if i.label is not None]
    humans = [1.0 if i.label == 1 else 0.0 for i in instances if i.label is not None]
    predicted = [1.0 if j.verdict == 1 else 0.0 for j in labelled]
    rest = [
        1.0 if j.verdict == 1 else 0.0 for j, i in zip(judgments, instances, strict=True) if i.label is None
    ]
    assert a.ppi.value == pytest.approx(prediction_powered_mean(humans, predicted, rest).value)
    assert a.human.value == pytest.approx(human_mean(humans).value)
    b = next(row for row in human.systems if row.name == "B")
    assert b.ppi.value == pytest.approx(1 - a.ppi.value)
    assert [p.name for p in human.positions] == ["2", "1"]


def test_judge_against_human_agreement_per_verdict():
    instances, judgments, _ = _run()
    human = compute_result(judgments, instances).human
    assert human is not None
    pairs = [(i.label, j.verdict) for i, j in zip(instances, judgments, strict=True) if i.label is not None]
    first = next(row for row in human.agreement if row.verdict == 1)
    assert first.tpr == 1.0  # the judge never takes a win from A
    said_two = [v for label, v in pairs if label == 2]
    second = next(row for row in human.agreement if row.verdict == 2)
    assert second.tpr == pytest.approx(sum(v == 2 for v in said_two) / len(said_two))
    assert human.kappa is not None and 0 < human.kappa < 1


def test_a_labels_file_takes_the_place_of_the_instances_labels_and_sets_aside_chosen_ones():
    instances, judgments, _ = _run(every=10**9)  # only the first is labelled in the input
    labels = {str(i): HumanLabel(str(i), 1) for i in range(0, 400, 4)}
    labels["1"] = HumanLabel("1", 2, sampling="uncertainty")
    human = compute_result(judgments, instances, labels=labels).human
    assert human is not None
    assert (human.labels, human.set_aside) == (100, 1)


def test_a_failed_judgment_predicts_a_tie_and_stays_in_the_population():
    pairs = [
        Instance(id=str(i), query="q", candidates=["x", "y"], label=1 if i < 4 else None) for i in range(8)
    ]
    judged = [
        Judgment(id=str(i), method="m", status="ok", verdict=1)
        if i % 2
        else Judgment(id=str(i), method="m", status="error", error="boom")
        for i in range(8)
    ]
    human = compute_result(judged, pairs).human
    assert human is not None
    first = next(row for row in human.positions if row.name == "1")
    expected = prediction_powered_mean([1, 1, 1, 1], [0.5, 1, 0.5, 1], [0.5, 1, 0.5, 1])
    assert first.ppi.value == pytest.approx(expected.value)
    assert first.ppi.unlabelled == 4


def test_labels_of_three_candidates_are_not_used():
    trio = [Instance(id=str(i), query="q", candidates=["x", "y", "z"], label=1) for i in range(3)]
    judged = [
        Judgment(id=str(i), method="m", status="ok", verdict=1, scores=[3.0, 2.0, 1.0]) for i in range(3)
    ]
    human = compute_result(judged, trio).human
    assert human is not None and (human.labels, human.unusable) == (0, 3)
    assert human.note is not None and "no usable human label" in human.note


def test_pointwise_means_with_human_scores():
    rng = random.Random(5)
    outputs, judged, truth = [], [], []
    for i in range(400):
        score = rng.uniform(1, 5)
        truth.append(score)
        scores = {"overall": score, "fluency": 3.0} if i % 5 == 0 else None
        outputs.append(Instance(id=str(i), query="q", candidates=["x"], systems=["S"], scores=scores))
        judged.append(Judgment(id=str(i), method="m", status="ok", scores=[score + 1.0]))  # one too high
    human = compute_result(judged, outputs).human
    assert human is not None and human.aspect == "overall"
    row = human.systems[0]
    mean = sum(truth) / len(truth)
    assert row.judge == pytest.approx(mean + 1.0)
    assert row.ppi.ci is not None and row.ppi.ci[0] <= mean <= row.ppi.ci[1]


def test_a_run_without_labels_has_no_human_result():
    pairs = [Instance(id="1", query="q", candidates=["x", "y"])]
    assert compute_result([Judgment(id="1", method="m", status="ok", verdict=1)], pairs).human is None


def test_without_ppi_python_the_result_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ppi_py", None)  # import ppi_py raises ImportError
    instances, judgments, _ = _run(n=50)
    human = compute_result(judgments, instances).human
    assert human is not None and human.systems == []
    assert human.note is not None and "faceteval[ppi]" in human.note


def test_three_systems_get_bradley_terry_strengths_as_humans_would_give_them():
    import math

    rng = random.Random(2)
    strength = {"a": 1.0, "b": 0.3, "c": -0.3, "d": -1.0}
    instances, judgments = [], []
    for i in range(1200):
        x, y = rng.sample(sorted(strength), 2)
        truth = 1 if rng.random() < 1 / (1 + math.exp(strength[y] - strength[x])) else 2
        verdict = truth if rng.random() < 0.7 else 1  # a third of the time, the first candidate
        label = truth if i % 4 == 0 else None
        instances.append(Instance(id=str(i), query="q", candidates=["x", "y"], systems=[x, y], label=label))
        judgments.append(Judgment(id=str(i), method="m", status="ok", verdict=verdict))
    options = ResultOptions(n_resamples=200)
    result = compute_result(judgments, instances, options=options)
    assert result.human is not None and result.pairwise is not None and result.pairwise.ranking is not None
    humans = {s.system: s for s in result.human.ranking}
    judge = {s.system: s for s in result.pairwise.ranking.strengths}
    assert [s.system for s in result.human.ranking] == ["a", "b", "c", "d"]
    for name in ("a", "d"):  # the judge's noise pulls the ends in; the labels put them back
        ci = humans[name].ci
        assert ci is not None and ci[0] <= strength[name] <= ci[1]
        assert abs(judge[name].strength) < abs(humans[name].strength)
    assert compute_result(judgments, instances, options=options).human == result.human  # seeded


def test_annotators_agreement_is_krippendorffs_alpha_over_their_own_votes():
    from faceteval.metrics import krippendorff_alpha

    instances, judgments, _ = _run(n=40, every=10**9)
    kim = [1 if i % 3 else 2 for i in range(20)]
    lee = [v if i % 5 else 3 - v for i, v in enumerate(kim)]
    labels = {
        str(i): HumanLabel(str(i), kim[i], annotators=("kim", "lee"), votes={"kim": kim[i], "lee": lee[i]})
        for i in range(20)
    }
    human = compute_result(judgments, instances, labels=labels).human
    assert human is not None and human.annotators == 2
    expected = krippendorff_alpha([kim, lee], "nominal")
    assert expected is not None and 0 < expected < 1
    assert human.annotator_alpha == pytest.approx(expected)
    alone = {key: HumanLabel(key, label.label) for key, label in labels.items()}
    quiet = compute_result(judgments, instances, labels=alone).human
    assert quiet is not None and (quiet.annotators, quiet.annotator_alpha) == (0, None)


def test_annotators_of_scores_agree_on_the_estimated_aspect():
    from faceteval.metrics import krippendorff_alpha

    outputs = [Instance(id=str(i), query="q", candidates=["x"], systems=["S"]) for i in range(30)]
    judged = [Judgment(id=str(i), method="m", status="ok", scores=[3.0]) for i in range(30)]
    kim = [float(1 + i % 5) for i in range(30)]
    lee = [min(5.0, v + (i % 2)) for i, v in enumerate(kim)]
    labels = {
        str(i): HumanLabel(
            str(i),
            scores={"overall": (kim[i] + lee[i]) / 2},
            annotators=("kim", "lee"),
            votes={"kim": {"overall": kim[i]}, "lee": {"overall": lee[i]}},
        )
        for i in range(30)
    }
    human = compute_result(judged, outputs, labels=labels).human
    assert human is not None and human.aspect == "overall"
    assert human.annotator_alpha == pytest.approx(krippendorff_alpha([kim, lee], "interval"))
