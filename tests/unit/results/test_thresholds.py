"""``--fail-under`` thresholds: how they are read and checked."""

from __future__ import annotations

import re

import pytest

from faceteval.core import Instance, Judgment
from faceteval.errors import ConfigError
from faceteval.results import JudgeResult, Threshold, compute_result
from faceteval.results.internal import result_systems


@pytest.fixture
def result() -> JudgeResult:
    pairs = [Instance(id=str(i), query="q", candidates=("x", "y"), systems=("A", "B")) for i in range(4)]
    judgments = [
        Judgment(
            id=str(i), method="m", status="ok", verdict=2 if i else 0, scores=[4.0, 6.0], consistent=bool(i)
        )
        for i in range(3)
    ]
    judgments.append(Judgment(id="3", method="m", status="error", error="ProviderError: 500"))
    return compute_result(judgments, pairs)


@pytest.mark.parametrize(
    ("text", "observed", "passes"),
    [
        ("win_rate:B=0.8", 2.5 / 3, True),
        ("win_rate:B=0.9", 2.5 / 3, False),
        ("win_rate_without_ties:B=1", 1.0, True),
        ("win_rate:A=0.5", 0.5 / 3, False),
        ("mean:B=6", 6.0, True),
        ("mean:A=4.5", 4.0, False),
        ("swap_consistency=0.6", 2 / 3, True),
        ("ok_rate=0.8", 0.75, False),
    ],
)
def test_a_threshold_reads_its_metric_and_fails_below_it(
    result: JudgeResult, text: str, observed: float, passes: bool
) -> None:
    threshold = Threshold.parse(text)
    assert threshold.observed(result) == pytest.approx(observed)
    assert threshold.passes(result) is passes


def test_an_undefined_metric_fails(result: JudgeResult) -> None:
    lone = compute_result([Judgment(id="1", method="m", status="ok", verdict=1, scores=[2.0, 1.0])])
    threshold = Threshold.parse("swap_consistency=0.1")
    assert threshold.observed(lone) is None
    assert not threshold.passes(lone)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("win_rat:B=0.5", "no metric 'win_rat' (did you mean 'win_rate'?)"),
        ("win_rate=0.5", "name the system (win_rate:B=0.5)"),
        ("ok_rate:B=0.5", "ok_rate is the run's, not a system's (ok_rate=0.5)"),
        ("win_rate:B", "is not METRIC[:SYSTEM]=VALUE"),
        ("win_rate:B=high", "'high' is not a number"),
        ("mean:B=nan", "finite number"),
    ],
)
def test_a_threshold_that_cannot_be_read_says_why(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        Threshold.parse(text)


def test_a_system_name_may_hold_colons_and_equals_signs() -> None:
    threshold = Threshold.parse("mean:openai:gpt-4o=v2=3.5")
    assert (threshold.metric, threshold.system, threshold.value) == ("mean", "openai:gpt-4o=v2", 3.5)


def test_an_unknown_system_is_named_with_the_closest_one(result: JudgeResult) -> None:
    assert result_systems(result) == ["B", "A"]
    problem = Threshold.parse("win_rate:b=0.5").unknown_system(result_systems(result))
    assert problem == "win_rate:b=0.5: no system 'b' in this run (did you mean 'B'?); its systems: B, A"
    assert Threshold.parse("win_rate:A=0.5").unknown_system(["A"]) is None
    assert Threshold.parse("ok_rate=0.5").unknown_system([]) is None
