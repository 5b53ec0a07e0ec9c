"""A judge run's result on its page: each number of the typed result, with its interval and denominator."""

from __future__ import annotations

import html
import re
from pathlib import Path

from starlette.testclient import TestClient

from faceteval.core import FacetScore, Instance, Judgment
from faceteval.results import JudgeResult, compute_result
from faceteval.store import JudgeRecord, JudgeSummary
from faceteval.viewer._judge_result import result_view
from faceteval.viewer._record import RecordView
from faceteval.viewer._result import result_sections
from faceteval.viewer._summary import Pairs
from faceteval.viewer.internal import create_app

HOSTILE = "<b onmouseover=alert(1)>x</b>"
NAMES = ("strong", "middle", HOSTILE)


def three_systems() -> JudgeResult:
    """Three systems meeting in turn (each pair 6 times, in both orders), judged in both orders, with
    one facet that decides every verdict; one judgment failed to parse, and one single output."""
    quality = dict(zip(NAMES, (9.0, 6.0, 3.0), strict=True))
    pairs, judged = [], []
    for k in range(18):
        a, b = NAMES[k % 3], NAMES[(k + 1) % 3]
        first, second = (a, b) if k % 2 else (b, a)
        pairs.append(Instance(id=str(k), query="q", candidates=["x", "y"], systems=[first, second]))
        scores = [quality[first], quality[second]]
        facet = FacetScore(name="Correct?", weight=1.0, scores=scores)
        verdict = 1 if scores[0] > scores[1] else 2
        judged.append(
            Judgment(
                id=str(k), method="dna", status="ok", verdict=verdict, scores=scores, facets=[facet]
            ).model_copy(update={"consistent": k != 0})
        )
    pairs.append(Instance(id="bad", query="q", candidates=["x", "y"], systems=["strong", "middle"]))
    judged.append(Judgment(id="bad", method="dna", status="parse_error", error="no score"))
    pairs.append(Instance(id="one", query="q", candidates=["x"], systems=["strong"]))
    judged.append(Judgment(id="one", method="dna", status="ok", scores=[7.0]))
    return compute_result(judged, pairs)


def test_every_number_of_the_result_has_its_cell_with_its_interval_and_denominator() -> None:
    result = three_systems()
    view = result_view(result.model_dump(mode="json"))

    assert view is not None and view.pairwise is not None and view.pointwise is not None
    assert (view.judgments, view.ok, view.ok_rate.over) == ("20", "19", "n = 20")
    assert view.failures == [("parse_error", "parse errors: a reply could not be read", "1", "5.0% of 20")]
    strong = view.pairwise.systems[0]
    truth = next(s for s in result.pairwise.systems if s.name == "strong")  # type: ignore[union-attr]
    standing = (strong.name, strong.wins, strong.ties, strong.losses, strong.failed)
    assert standing == ("strong", "12", "0", "0", "1")
    assert truth.win_rate.ci is not None
    assert strong.win_rate.value == f"{100 * truth.win_rate.value:.1f}%"  # type: ignore[operator]
    assert strong.win_rate.ci == f"[{100 * truth.win_rate.ci[0]:.1f}, {100 * truth.win_rate.ci[1]:.1f}]"
    assert (strong.win_rate.over, strong.without_ties.over) == ("n = 12", "n = 12")
    assert [row.name for row in view.pairwise.positions] == ["1", "2"]
    assert [(row.rank, row.system) for row in view.pairwise.ranking] == [
        ("1", "strong"),
        ("2", "middle"),
        ("3", HOSTILE),
    ]
    assert re.fullmatch(r"\[[+-]\d\.\d\d, [+-]\d\.\d\d\]", view.pairwise.ranking[0].strength.ci)
    assert view.pairwise.matrix_columns == list(NAMES)
    assert [c.value if c else None for c in view.pairwise.matrix[0][1]] == [None, "100.0%", "100.0%"]
    assert view.pairwise.consistency is not None and view.pairwise.consistency.over == "n = 18"
    (facet,) = view.pairwise.facets
    assert (facet.name, facet.decided, facet.agreed) == ("Correct?", "18 of 18 (100.0%)", "18")
    assert facet.decided_for == "middle: 6, strong: 12"
    assert view.pairwise.facet_systems == sorted(NAMES)
    assert [(name, score.value, failed) for name, score, failed in view.pointwise.systems] == [
        ("strong", "7.00", "0")
    ]


def test_a_result_not_of_its_model_keeps_the_view_of_any_summary() -> None:
    record = RecordView("judge", data={"summary": {"result": {"A": {"win_rate": 0.7}}}})

    section = result_sections(record)[0]

    assert (section.title, section.view) == ("Result", None)
    assert isinstance(section.block, Pairs) and section.block.items[0][0] == "A"


def test_the_run_page_shows_the_result_in_its_tables_escaped(tmp_path: Path) -> None:
    result = three_systems()
    (tmp_path / "j.jsonl").write_text("", encoding="utf-8")
    record = JudgeRecord(output="j.jsonl", summary=JudgeSummary(judgments={"ok": 19}, result=result))
    (tmp_path / "j.run.json").write_text(record.to_json(), encoding="utf-8")
    app = create_app([tmp_path], index_folder=tmp_path / "index")

    with TestClient(app, base_url="http://127.0.0.1") as client:
        listing = client.get("/").text
        run = re.search(r'href="(/run/[0-9a-f]+)"', listing)
        assert run is not None
        page = client.get(run[1]).text

    assert "<script" not in page and HOSTILE not in page and html.escape(HOSTILE) in page
    for table in ("failures", "systems", "positions", "ranking", "matrix", "facets", "pointwise"):
        assert f'<table id="result-{table}"' in page, table
    row = re.search(r'<tr data-name="strong">.*?</tr>', page[page.index('id="result-systems"') :], re.DOTALL)
    assert row is not None
    assert re.search(
        r'class="number win-rate"><span class="value">100\.0%</span> <span class="ci">\[', row[0]
    )
    assert 'id="result-consistency"' in page and "Swap consistency" in page


def test_the_run_page_shows_the_result_as_humans_would_give_it(tmp_path: Path) -> None:
    from faceteval.datasets import HumanLabel

    pairs, judged = [], []
    for k in range(60):  # the judge always says the first candidate; humans, one pair in three
        pairs.append(Instance(id=str(k), query="q", candidates=["x", "y"], systems=["A", "B"]))
        judged.append(Judgment(id=str(k), method="direct", status="ok", verdict=1))
    labels = {
        str(k): HumanLabel(str(k), 1 if k % 3 == 0 else 2, annotators=("kim", "lee"),
                           votes={"kim": 1 if k % 3 == 0 else 2, "lee": 1 if k % 3 == 0 else 2})
        for k in range(0, 60, 2)
    }  # fmt: skip
    labels["1"] = HumanLabel("1", 2, sampling="uncertainty")
    result = compute_result(judged, pairs, labels=labels)
    assert result.human is not None
    view = result_view(result.model_dump(mode="json"))
    assert view is not None and view.human is not None
    a = next(row for row in view.human.systems if row.name == "A")
    truth = next(row for row in result.human.systems if row.name == "A")
    assert a.judge == "100.0%" and truth.ppi.value is not None and truth.ppi.ci is not None
    assert a.ppi.value == f"{100 * truth.ppi.value:.1f}%" and a.ppi.value != a.judge
    assert a.ppi.ci == f"[{100 * truth.ppi.ci[0]:.1f}, {100 * truth.ppi.ci[1]:.1f}]"
    assert a.ppi.over == "30 labels + 30 judged" and a.human.over == "30 labels"
    assert view.human.annotators == "1.00 among 2 annotators" and view.human.set_aside is not None

    (tmp_path / "j.jsonl").write_text("", encoding="utf-8")
    record = JudgeRecord(output="j.jsonl", summary=JudgeSummary(judgments={"ok": 60}, result=result))
    (tmp_path / "j.run.json").write_text(record.to_json(), encoding="utf-8")
    app = create_app([tmp_path], index_folder=tmp_path / "index")
    with TestClient(app, base_url="http://127.0.0.1") as client:
        run = re.search(r'href="(/run/[0-9a-f]+)"', client.get("/").text)
        assert run is not None
        page = client.get(run[1]).text
    section = page[page.index('id="result-human"') :]
    assert "As humans would judge it, from 30 human labels" in section
    for table in ("systems", "positions", "agreement"):
        assert f'<table id="result-human-{table}"' in section, table
    row = re.search(r'<tr data-name="A">.*?</tr>', section, re.DOTALL)
    assert row is not None and f'<span class="value">{a.ppi.value}</span>' in row[0]
    assert "Cohen&#39;s kappa" in section or "Cohen's kappa" in section
    assert "1 label chosen where the judge was least sure was set aside" in section
