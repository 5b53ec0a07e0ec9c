"""A target's labels replaced by a labels file's, by id (``meta-eval --labels``): pairwise labels,
pointwise scores, slim targets and their instances read again whole, and labels that do not fit."""

from __future__ import annotations

import pytest

from faceteval.core import Instance
from faceteval.datasets import HumanLabel
from faceteval.errors import FacetevalError
from faceteval.metaeval.internal import SlimInstances, labelled_target, relabelled

PAIRS = tuple(Instance(id=f"p{k}", query="q", candidates=("a", "b"), label=1) for k in range(4))
SCORED = tuple(Instance(id=f"s{k}", query="q", candidates=("a",), scores={"overall": 2.0}) for k in range(3))


def test_pairwise_labels_are_replaced_by_id() -> None:
    target = labelled_target(PAIRS, name="pairs")
    changed = relabelled(target, {"p1": HumanLabel("p1", label=2), "p3": HumanLabel("p3", label=0)})
    assert [i.label for i in changed.instances] == [1, 2, 1, 0]
    assert [i.label for i in target.instances] == [1, 1, 1, 1]  # the target itself is left as it was


def test_pointwise_scores_are_replaced_by_id() -> None:
    target = labelled_target(SCORED, name="scored")
    changed = relabelled(target, {"s0": HumanLabel("s0", scores={"overall": 5.0, "style": 4.0})})
    assert [i.scores for i in changed.instances] == [
        {"overall": 5.0, "style": 4.0},
        {"overall": 2.0},
        {"overall": 2.0},
    ]


def test_a_slim_target_stays_slim_and_its_whole_instances_are_relabelled() -> None:
    target = labelled_target(SlimInstances.of(PAIRS), name="pairs")
    target = type(target)(target.name, target.kind, target.instances, whole=lambda: iter(PAIRS))
    changed = relabelled(target, {"p0": HumanLabel("p0", label=2)})
    assert isinstance(changed.instances, SlimInstances)
    assert [i.label for i in changed.instances] == [2, 1, 1, 1]
    assert changed.whole is not None
    assert [i.label for i in changed.whole()] == [2, 1, 1, 1]


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"x": HumanLabel("x", label=1)}, "labels.jsonl: 1 id is not among pairs's instances: 'x'"),
        ({"p0": HumanLabel("p0", scores={"overall": 1.0})}, "'p0' has scores; pairs is pairwise"),
        ({"p0": HumanLabel("p0", label=3)}, "'p0' is labelled 3, but it has 2 candidates"),
    ],
)
def test_labels_that_do_not_fit_are_refused(labels: dict[str, HumanLabel], message: str) -> None:
    with pytest.raises(FacetevalError, match=message):
        relabelled(labelled_target(PAIRS, name="pairs"), labels, source="labels.jsonl")


def test_a_pairwise_label_does_not_fit_a_pointwise_target() -> None:
    with pytest.raises(FacetevalError, match="'s0' has a label; scored is pointwise"):
        relabelled(labelled_target(SCORED, name="scored"), {"s0": HumanLabel("s0", label=1)})
