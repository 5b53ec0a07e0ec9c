"""Pairing instances with judgments: judgments left out by a sample are not judgments of no instance."""

from __future__ import annotations

import pytest

from faceteval.core import Instance, Judgment
from faceteval.errors import FacetevalError
from faceteval.metaeval import join


def pair(instance_id: str) -> Instance:
    return Instance(id=instance_id, query="q", candidates=("a", "b"), label=1)


def judged(instance_id: str) -> Judgment:
    return Judgment(id=instance_id, method="m", status="ok", verdict=1)


def test_judgments_of_instances_left_out_are_counted_apart_from_those_of_no_instance() -> None:
    benchmark = [f"b{k}" for k in range(10)]
    judgments = [judged(i) for i in benchmark] + [judged(f"stray{k}") for k in range(7)]
    joined = join([pair("b0"), pair("b1")], judgments, all_ids=benchmark)
    assert joined.missing == 0
    assert joined.outside_sample == 8
    assert joined.unmatched == 7
    assert joined.unmatched_examples == ("stray0", "stray1", "stray2", "stray3", "stray4")


def test_without_the_benchmark_ids_every_judgment_left_over_matches_no_instance() -> None:
    joined = join([pair("b0")], [judged("b0"), judged("b1")])
    assert (joined.unmatched, joined.outside_sample, joined.unmatched_examples) == (1, 0, ("b1",))


def test_judgments_all_outside_the_sample_are_an_error_that_says_so() -> None:
    with pytest.raises(FacetevalError, match="none of its 2 judgments is of the 1 instance measured"):
        join([pair("b0")], [judged("b1"), judged("b2")], all_ids=["b0", "b1", "b2"])
    with pytest.raises(FacetevalError, match="judgment ids look like 'x'"):
        join([pair("b0")], [judged("x")], all_ids=["b0", "b1"])
