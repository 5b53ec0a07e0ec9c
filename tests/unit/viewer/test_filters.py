"""The filters of a run's table, asked of the index of a real judge run."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from faceteval.viewer import FilterError, Filters, Run, RunIndex
from tests.support.view_runs import DISAGREE, INCONSISTENT, VERDICTS


def ids(run: Run, folder: Path, **given: str) -> list[str | None]:
    index = RunIndex(run.command, run.lines, run.lines.with_name("pairs.jsonl"), folder)  # type: ignore[arg-type]
    index.refresh()
    return [row.id for row in index.page(Filters.from_query(given), 1, 50).rows]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, ["p1", "p2", "p3", "p4", "p5"]),
        ({"status": "parse_error"}, ["p4"]),
        ({"status": "ok"}, ["p1", "p2", "p3", "p5"]),
        ({"verdict": "2"}, [i for i, v in VERDICTS.items() if v == 2]),
        ({"verdict": "0"}, ["p3"]),
        ({"verdict": "none"}, ["p4"]),
        ({"consistent": "no"}, list(INCONSISTENT)),
        ({"consistent": "yes"}, ["p1", "p2", "p5"]),
        ({"consistent": "one-order"}, ["p4"]),
        ({"agreement": "disagree"}, list(DISAGREE)),
        ({"agreement": "agree"}, ["p1", "p2"]),
        ({"agreement": "no-verdict"}, ["p4"]),
        ({"agreement": "unlabelled"}, []),
        ({"facet": "Is the output correct?"}, ["p1", "p2", "p3", "p5"]),
        ({"facet": "Is it purple?"}, []),
        ({"system": "A"}, ["p1", "p2", "p3", "p4", "p5"]),
        ({"winner": "A"}, ["p1", "p5"]),  # p5 lists its systems as B, A
        ({"winner": "B"}, ["p2"]),
        ({"winner": "A", "agreement": "disagree"}, ["p5"]),
        ({"id": "p1"}, ["p1"]),
    ],
)
def test_each_filter_keeps_the_lines_it_names(
    judge_run_made: Run, tmp_path: Path, given: dict[str, str], expected: list[str]
) -> None:
    assert ids(judge_run_made, tmp_path / "index", **given) == expected


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"verdict": "first"}, "verdict: 'first' is a candidate's number, 0 for a tie, or none"),
        ({"consistent": "maybe"}, "consistent: 'maybe' is not one of yes, no, one-order"),
        (
            {"agreement": "sort of"},
            "agreement: 'sort of' is not one of agree, disagree, no-verdict, unlabelled",
        ),
    ],
)
def test_a_value_a_filter_cannot_take_is_refused_with_what_it_takes(
    given: dict[str, str], message: str
) -> None:
    with pytest.raises(FilterError) as raised:
        Filters.from_query(given)
    assert str(raised.value) == message


def test_filters_go_into_links_as_they_came() -> None:
    filters = Filters.from_query({"facet": "Is it right? & why", "winner": "B", "page": "2"})

    assert Filters.from_query(dict(parse_qsl(filters.query(page=3)))) == filters
    assert filters.active and not Filters().active
