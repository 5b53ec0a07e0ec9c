"""A result's groups (``ResultOptions(group_by=...)``): each group's headline numbers, the instances
without a value in a group of their own, and judgments of no instance in none."""

from __future__ import annotations

import pytest

from faceteval.core import Instance, Judgment
from faceteval.errors import ConfigError
from faceteval.results import ResultOptions, compute_result


def _pair(i: int, topic: str | None) -> Instance:
    metadata = {} if topic is None else {"topic": topic}
    return Instance(id=str(i), query="q", candidates=["x", "y"], systems=["A", "B"], metadata=metadata)


def test_each_group_counts_its_own_judgments_failures_and_win_rates() -> None:
    pairs = [_pair(0, "t1"), _pair(1, "t1"), _pair(2, "t2"), _pair(3, None)]
    judged = [
        Judgment(id="0", method="m", status="ok", verdict=1),
        Judgment(id="1", method="m", status="parse_error", error="unreadable"),
        Judgment(id="2", method="m", status="ok", verdict=2),
        Judgment(id="3", method="m", status="ok", verdict=0),
        Judgment(id="line-9", method="m", status="error", error="invalid input: bad line"),
    ]
    result = compute_result(judged, pairs, options=ResultOptions(group_by="topic"))

    assert result.group_by == "topic" and result.judgments == 5
    assert [(g.value, g.judgments, g.statuses) for g in result.groups] == [
        ("t1", 2, {"ok": 1, "parse_error": 1}),
        ("t2", 1, {"ok": 1}),
        (None, 1, {"ok": 1}),  # the instance without a topic; the invalid line is in no group
    ]
    t1, t2, untopical = result.groups
    assert t1.pairwise is not None and t2.pairwise is not None and untopical.pairwise is not None
    assert {s.name: (s.wins, s.failed) for s in t1.pairwise.systems} == {"A": (1, 1), "B": (0, 1)}
    assert {s.name: s.win_rate.value for s in t2.pairwise.systems} == {"B": 1.0, "A": 0.0}
    assert {s.name: s.ties for s in untopical.pairwise.systems} == {"A": 1, "B": 1}
    assert t1.ok_rate.value == 0.5


def test_no_groups_unless_asked_and_a_blank_group_field_is_refused() -> None:
    pairs = [_pair(0, "t1")]
    result = compute_result([Judgment(id="0", method="m", status="ok", verdict=1)], pairs)

    assert result.group_by is None and result.groups == []
    with pytest.raises(ConfigError, match="group_by names a field"):
        ResultOptions(group_by=" ")
