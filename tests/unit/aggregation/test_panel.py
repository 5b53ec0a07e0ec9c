"""A judge panel's verdict rules: majority, mean, median, and ties that are never a default."""

from __future__ import annotations

import pytest

from faceteval.aggregation import combine_panel, majority_verdict
from faceteval.core import FacetScore, Judgment, Usage


def ok(verdict: int, scores: list[float] | None = None, **extra: object) -> Judgment:
    return Judgment(id="1", method="direct", status="ok", verdict=verdict, scores=scores, **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([1, 1, 2], 1),
        ([2, 2, 1], 2),
        ([1, 2], 0),  # two judges split: no winner, a tie
        ([1, 2, 0], 0),  # three different verdicts: a tie
        ([0, 0, 1], 0),  # most judges called it a tie
        ([1, 1, 2, 2], 0),
        ([1, 1, 2, 0], 1),  # the most votes, though not more than half
        ([3, 3, 1], 3),
    ],
)
def test_majority(verdicts: list[int], expected: int) -> None:
    assert majority_verdict(verdicts) == expected


def test_majority_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="no verdicts"):
        majority_verdict([])


def test_majority_keeps_each_judge_and_sums_usage() -> None:
    judges = ["openai:a", "openai:b", "openai:c"]
    members = [
        ok(1, [8.0, 6.0], usage=Usage(calls=2, input_tokens=10)),
        ok(2, [5.0, 7.0], usage=Usage(calls=3, input_tokens=5)),
        ok(1, [9.0, 3.0], usage=Usage(calls=1, cached_calls=1)),
    ]
    panel = combine_panel(judges, members, "majority", candidates=2)
    assert (panel.status, panel.verdict, panel.panel_vote) == ("ok", 1, "majority")
    assert [(m.judge, m.verdict, m.scores) for m in panel.panel] == [
        ("openai:a", 1, [8.0, 6.0]),
        ("openai:b", 2, [5.0, 7.0]),
        ("openai:c", 1, [9.0, 3.0]),
    ]
    assert panel.usage == Usage(calls=6, cached_calls=1, input_tokens=15)
    assert panel.scores == pytest.approx([22 / 3, 16 / 3])


def test_mean_and_median_combine_scores() -> None:
    members = [ok(1, [9.0, 1.0]), ok(2, [4.0, 5.0]), ok(2, [4.0, 6.0])]
    # mean: 17/3 vs 12/3, candidate 1 wins although two judges chose candidate 2
    assert combine_panel(["a", "b", "c"], members, "mean", candidates=2).verdict == 1
    median = combine_panel(["a", "b", "c"], members, "median", candidates=2)
    assert (median.verdict, median.scores, median.ranks) == (2, [4.0, 5.0], [2, 1])
    assert combine_panel(["a", "b", "c"], members, "majority", candidates=2).verdict == 2


def test_equal_combined_scores_are_a_tie() -> None:
    members = [ok(1, [8.0, 6.0]), ok(2, [6.0, 8.0])]
    for vote in ("mean", "median"):
        tied = combine_panel(["a", "b"], members, vote, candidates=2)  # type: ignore[arg-type]
        assert (tied.verdict, tied.scores) == (0, [7.0, 7.0])


def test_verdict_only_judges_vote_with_mean_and_median() -> None:
    members = [ok(1), ok(2), ok(1)]
    for vote in ("mean", "median"):
        panel = combine_panel(["a", "b", "c"], members, vote, candidates=2)  # type: ignore[arg-type]
        assert (panel.verdict, panel.scores) == (1, None)
    split = [ok(1), ok(2), ok(0)]
    assert combine_panel(["a", "b", "c"], split, "mean", candidates=2).verdict == 0
    # three candidates: votes 1, 2, 2 -> candidate 2 holds two thirds
    assert combine_panel(["a", "b", "c"], [ok(1), ok(2), ok(2)], "mean", candidates=3).verdict == 2


def test_a_failed_judge_fails_the_panel_and_is_named() -> None:
    failed = Judgment(id="1", method="direct", status="parse_error", error="no score found")
    panel = combine_panel(
        ["a", "b", "c"], [ok(1, [8.0, 6.0]), failed, ok(1, [7.0, 2.0])], "majority", candidates=2
    )
    assert (panel.status, panel.verdict, panel.scores) == ("parse_error", None, None)
    assert panel.error == "judge b: no score found"
    assert [m.status for m in panel.panel] == ["ok", "parse_error", "ok"]
    errored = Judgment(id="1", method="direct", status="error", error="ProviderError: 500")
    mixed = combine_panel(["a", "b", "c"], [failed, errored, ok(1)], "mean", candidates=2)
    assert (mixed.status, mixed.error) == ("error", "judge a: no score found")


def test_facets_are_combined_when_every_judge_scored_the_same() -> None:
    def facets(first: list[float], second: list[float]) -> list[FacetScore]:
        return [
            FacetScore(name="accuracy", weight=0.6, scores=list(first)),
            FacetScore(name="clarity", weight=0.4, scores=list(second)),
        ]

    members = [
        ok(1, [8.0, 6.0], facets=facets([8, 6], [7, 7])),
        ok(1, [7.0, 5.0], facets=facets([6, 4], [9, 5])),
        ok(2, [5.0, 6.0], facets=facets([4, 5], [8, 9])),
    ]
    mean = combine_panel(["a", "b", "c"], members, "mean", candidates=2)
    assert [(f.name, f.weight, f.scores) for f in mean.facets] == [
        ("accuracy", 0.6, [6.0, 5.0]),
        ("clarity", 0.4, [8.0, 7.0]),
    ]
    median = combine_panel(["a", "b", "c"], members, "median", candidates=2)
    assert [f.scores for f in median.facets] == [[6.0, 5.0], [8.0, 7.0]]
    assert [len(m.facets) for m in mean.panel] == [2, 2, 2]
    other = ok(1, [8.0, 6.0], facets=[FacetScore(name="depth", scores=[1.0, 2.0])])
    assert combine_panel(["a", "b"], [members[0], other], "mean", candidates=2).facets == []


def test_what_is_not_a_panel_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown panel vote"):
        combine_panel(["a", "b"], [ok(1), ok(2)], "plurality", candidates=2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pairs each judge"):
        combine_panel(["a"], [ok(1), ok(2)], "majority", candidates=2)
    other = Judgment(id="2", method="direct", status="ok", verdict=1)
    with pytest.raises(ValueError, match="one instance"):
        combine_panel(["a", "b"], [ok(1), other], "majority", candidates=2)


def test_older_judgments_read_without_a_panel() -> None:
    old = Judgment.model_validate_json('{"id": "1", "method": "dna", "status": "ok", "verdict": 2}')
    assert (old.panel, old.panel_vote) == ([], None)
    panel = combine_panel(["a", "b"], [ok(1), ok(1)], "majority", candidates=2)
    assert Judgment.model_validate_json(panel.model_dump_json()) == panel
