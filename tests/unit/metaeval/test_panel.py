"""A panel built from several judges' judgments, and what its summary adds."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from faceteval.core import FacetScore, Instance, Judgment
from faceteval.errors import FacetevalError
from faceteval.metaeval import join
from faceteval.metaeval.internal import panel_judgments, panel_specs, panel_summary, score_panel_summary
from faceteval.metrics import agreement


def judged(judgment_id: str, verdict: int) -> Judgment:
    return Judgment(id=judgment_id, method="recorded", status="ok", verdict=verdict)


def test_an_instance_one_judge_did_not_judge_fails_the_panel() -> None:
    a = [judged("1", 1), judged("2", 2)]
    b = [judged("1", 1)]
    combined = panel_judgments([("a", a), ("b", b)], {"1": 2, "2": 2}, "majority")
    assert [(j.id, j.status, j.verdict) for j in combined] == [("1", "ok", 1), ("2", "error", None)]
    assert combined[1].error == "judge b: no judgment of this instance"


@pytest.mark.parametrize(
    ("judges", "message"),
    [
        ([("a", [judged("1", 1)])], "at least two judges"),
        ([("a", [judged("1", 1)]), ("a", [judged("1", 2)])], "each judge once"),
        ([("a", [judged("1", 1), judged("1", 2)]), ("b", [judged("1", 1)])], "appears twice"),
    ],
)
def test_what_is_not_a_panel_is_named(judges: list[tuple[str, list[Judgment]]], message: str) -> None:
    with pytest.raises(FacetevalError, match=message):
        panel_judgments(judges, {}, "majority")


def test_specs_split_on_commas() -> None:
    assert panel_specs("recorded:a") == ["recorded:a"]
    assert panel_specs("runs/x, runs/y,") == ["runs/x", "runs/y"]


def test_summary_of_each_judge_and_of_their_agreement() -> None:
    instances = [
        Instance(id=str(k), query="q", candidates=["x", "y"], label=label)
        for k, label in enumerate([1, 2, 1, 0])
    ]
    a = [judged("0", 1), judged("1", 2), judged("2", 2), judged("3", 0)]
    b = [judged("0", 1), judged("1", 1), judged("2", 2), judged("3", 1)]
    combined = panel_judgments([("a", a), ("b", b)], {i.id: 2 for i in instances}, "majority")
    summary = panel_summary(join(instances, combined), lambda metric, *columns: metric(*columns).as_dict())
    assert summary is not None
    assert [(m["judge"], m["agreement"]["hits"]) for m in summary["judges"]] == [("a", 3), ("b", 1)]
    assert summary["judges"][0]["agreement_without_ties"]["n"] == 3
    assert summary["unanimous"] == {"value": 0.5, "hits": 2, "n": 4}
    assert summary["alpha"]["n"] == 4
    assert (
        agreement([j.verdict for j in combined], [1, 2, 1, 0]).hits == 2
    )  # 1, tie, 2, tie: the first and last agree
    assert panel_summary(join(instances, a), lambda metric, *columns: metric(*columns).as_dict()) is None


def rated(judgment_id: str, score: float | None, fluency: float | None = None) -> Judgment:
    if score is None:
        return Judgment(id=judgment_id, method="direct", status="parse_error", error="no score")
    facets = [FacetScore(name="Fluency", scores=[fluency])] if fluency is not None else []
    return Judgment(id=judgment_id, method="direct", status="ok", scores=[score], facets=facets)


def test_a_rating_panel_correlates_each_judge_on_its_own_scores() -> None:
    human = [1.0, 2.0, 3.0, 4.0, 5.0]
    instances = [
        Instance(id=str(k), query="q", candidates=["x"], scores={"fluency": h, "overall": h})
        for k, h in enumerate(human)
    ]
    a = [rated(str(k), h, fluency=6 - h) for k, h in enumerate(human)]  # its fluency facet runs backwards
    b = [rated("0", None), *(rated(str(k), h + 1) for k, h in enumerate(human) if k)]  # fails on "0"
    combined = panel_judgments([("a", a), ("b", b)], {i.id: 1 for i in instances}, "mean")
    correlate = lambda rows: {"n": len(rows), "first": rows[0][1]}  # noqa: E731
    summary = score_panel_summary(join(instances, combined), ["fluency", "overall"], correlate)
    assert summary is not None and summary["vote"] == "mean"
    first, second = summary["judges"]
    assert first["correlations"] == {"fluency": {"n": 5, "first": 5.0}, "overall": {"n": 5, "first": 1.0}}
    assert "unjudged" not in first
    assert second["correlations"]["overall"] == {"n": 4, "first": 3.0}  # its own scores, without "0"
    assert second["unjudged"] == {"fluency": 1, "overall": 1}
    assert summary["alpha"]["overall"] == {
        "value": pytest.approx(
            krippendorff.alpha(
                reliability_data=[human, [np.nan, 3, 4, 5, 6]], level_of_measurement="interval"
            )
        ),
        "level": "interval",
        "of": "scores",
        "n": 4,
    }
    assert score_panel_summary(join(instances, a), ["overall"], correlate) is None
