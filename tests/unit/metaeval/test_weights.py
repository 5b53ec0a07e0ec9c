"""Facet-weight rankings of a judge against people's (DnA-Eval section 5.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faceteval.core import FacetScore, Instance, Judgment
from faceteval.errors import InputError
from faceteval.metaeval import HumanWeights, join, load_human_weights
from faceteval.metaeval.internal import weight_rankings
from faceteval.metrics import rank_by_weight, topk_kendall_distance


def judged(instance_id: str, weights: dict[str, float]) -> Judgment:
    facets = [FacetScore(name=name, scores=[5.0, 4.0], weight=w) for name, w in weights.items()]
    return Judgment(id=instance_id, method="dna", status="ok", verdict=1, facets=facets)


def pair(instance_id: str) -> Instance:
    return Instance(id=instance_id, query="q", candidates=("a", "b"), label=1)


def test_distances_follow_the_metric_with_names_matched_loosely() -> None:
    model = {"Accuracy": 0.5, "Clarity ": 0.3, "depth": 0.2}
    person = {"accuracy": 10.0, "clarity": 30.0, "tone": 60.0}  # one facet the judge never proposed
    joined = join([pair("x")], [judged("x", model)])
    result = weight_rankings(joined, [HumanWeights("x", "ann", person)], resamples=0)
    expected = topk_kendall_distance(
        rank_by_weight({"accuracy": 0.5, "clarity": 0.3, "depth": 0.2}), rank_by_weight(person), 3
    )
    assert result["judge_vs_human"] == {"value": pytest.approx(expected), "n": 1}
    assert 0 < expected < 1
    top1 = weight_rankings(joined, [HumanWeights("x", "ann", person)], k=1, resamples=0)
    assert top1["judge_vs_human"]["value"] == 1.0  # accuracy first vs tone first
    assert top1["k"] == 1 and result["k"] == "all" and result["human_vs_human"] is None


def test_people_without_a_judge_weighting_are_counted_not_dropped_silently() -> None:
    joined = join([pair("x"), pair("y")], [judged("x", {"a": 2, "b": 1})])
    people = [
        HumanWeights("x", "ann", {"a": 2, "b": 1}),
        HumanWeights("y", "ann", {"a": 2, "b": 1}),
        HumanWeights("y", "bob", {"a": 1, "b": 2}),
        HumanWeights("z", "ann", {"a": 1, "b": 2}),
    ]
    result = weight_rankings(joined, people, resamples=0)
    assert result["judge_vs_human"] == {"value": 0.0, "n": 1}
    assert result["human_vs_human"] == {"value": 1.0, "n": 1}  # y: ann and bob disagree
    assert result["without_judge_weights"] == 1 and result["unknown_ids"] == ["z"]


def test_weightings_naming_none_of_the_judges_facets_are_counted() -> None:
    joined = join(
        [pair("x"), pair("y")], [judged("x", {"Accuracy": 2, "Depth": 1}), judged("y", {"a": 2, "b": 1})]
    )
    people = [
        HumanWeights("x", "ann", {"correctness": 2, "detail": 1}),  # other names for the same facets
        HumanWeights("x", "bob", {"accuracy": 1, "tone": 2}),
        HumanWeights("y", "ann", {"c": 1, "d": 2}),
    ]
    result = weight_rankings(joined, people, resamples=0)
    assert result["no_shared_facets"] == 2 and result["judge_vs_human"]["n"] == 2


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"weights": {"a": 1, "b": 2}}, "id"),
        ({"id": "x", "weights": {"a": 1}}, "weights"),
        ({"id": "x", "weights": {"a": 1, "b": -2}}, "weights.b"),
        ({"id": "x", "weights": [1, 2]}, "weights"),
    ],
)
def test_a_bad_line_names_file_line_and_field(tmp_path: Path, line: dict[str, object], field: str) -> None:
    path = tmp_path / "w.jsonl"
    good = {"id": "y", "annotator": "ann", "weights": {"a": 1, "b": 2}}
    path.write_text(json.dumps(good) + "\n" + json.dumps(line) + "\n")
    with pytest.raises(InputError) as caught:
        load_human_weights(path)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 2, field)


def test_one_person_weighing_an_instance_twice_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    line = json.dumps({"id": "y", "annotator": "ann", "weights": {"a": 1, "b": 2}})
    path.write_text(f"{line}\n{line}\n")
    with pytest.raises(InputError, match="already weighted"):
        load_human_weights(path)
