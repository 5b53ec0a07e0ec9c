"""The report of a judge run, from hand-made judgments: the facets that disagree with the verdict, the
lists' limits, unreadable lines, records without a result or with another shape of one, and links."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faceteval.core import FacetScore, Instance, Judgment, OrderResult
from faceteval.report import Section, Table, render_page, spend_table, write_judge_report
from faceteval.report._judge_evidence import facet_conflict
from faceteval.report.internal import table_lines
from faceteval.results import compute_result
from faceteval.store import JudgeRecord, MethodRecord, SpendRecord
from faceteval.store.internal import COST_TABLE, write_atomic


def judged(
    verdict: int | None, *facets: tuple[str, float | None, list[float | None]], **more: object
) -> Judgment:
    parts = [FacetScore(name=name, weight=weight, scores=scores) for name, weight, scores in facets]
    return Judgment(
        id=str(more.pop("id", "1")), method="dna", status="ok", verdict=verdict, facets=parts, **more
    )  # type: ignore[arg-type]


def test_weighted_facets_favouring_another_candidate_disagree_with_the_verdict() -> None:
    conflict = facet_conflict(judged(2, ("a", 0.8, [9.0, 2.0]), ("b", 0.2, [3.0, 9.0])))
    assert conflict is not None and not conflict.split
    assert (conflict.verdict, conflict.favoured, conflict.against, conflict.agreeing) == (
        2,
        1,
        ("a",),
        ("b",),
    )


def test_facets_that_split_disagree_even_when_their_aggregate_agrees() -> None:
    conflict = facet_conflict(judged(1, ("a", 0.8, [9.0, 2.0]), ("b", 0.2, [3.0, 9.0])))
    assert conflict is not None and conflict.split and conflict.against == ("b",)


def test_a_tie_the_facets_do_not_make_is_a_disagreement() -> None:
    conflict = facet_conflict(judged(0, ("a", 0.5, [6.5, 5.5]), ("b", 0.5, [5.5, 5.5])))
    assert conflict is not None and (conflict.favoured, conflict.against) == (1, ("a",))


@pytest.mark.parametrize(
    "judgment",
    [
        judged(1, ("a", 0.5, [9.0, 2.0]), ("b", 0.5, [7.0, 7.0])),  # a favours 1, b neither
        judged(1, ("a", None, [9.0, 2.0]), ("b", None, [5.0, 5.0])),  # unweighted: 14 to 7
        judged(None, ("a", None, [9.0])),  # a single output has no verdict
        judged(1),  # no facets
        Judgment(id="1", method="dna", status="parse_error", error="x"),
    ],
)
def test_facets_that_agree_or_cannot_say_are_no_disagreement(judgment: Judgment) -> None:
    assert facet_conflict(judgment) is None


def test_a_facet_that_does_not_score_every_candidate_is_left_out() -> None:
    judgment = judged(1, ("a", 0.5, [9.0, 2.0]), ("b", 0.5, [None, 9.0]))
    assert facet_conflict(judgment) is None


def pairs(folder: Path, n: int) -> Path:
    rows = [{"id": f"q{i}", "query": f"Question <b>{i}</b>?", "candidates": ["x", "y"]} for i in range(n)]
    path = folder / "pairs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def split(i: int) -> Judgment:
    return judged(1, ("a", 0.6, [9.0, 2.0]), ("b", 0.4, [3.0, 9.0]), id=f"q{i}", scores=[6.6, 4.8])


def write(folder: Path, judgments: list[Judgment], *, record: JudgeRecord | None, extra: str = "") -> Path:
    path = folder / "j.jsonl"
    lines = "".join(j.model_dump_json() + "\n" for j in judgments)
    path.write_text(lines + extra, encoding="utf-8")
    if record is not None:
        write_atomic(folder / "j.run.json", record.to_json())
    return path


def test_each_list_shows_its_first_items_and_counts_them_all(tmp_path: Path) -> None:
    record = JudgeRecord(inputs={"input": {"path": str(pairs(tmp_path, 4))}}, spend=SpendRecord(calls=8))
    judgments = write(tmp_path, [split(i) for i in range(4)], record=record)

    markdown_path, _ = write_judge_report(judgments, limit=2)

    markdown = markdown_path.read_text(encoding="utf-8")
    assert "| [q0](#item-1) | 1 | 1, but they split |" in markdown
    assert "| [q1](#item-2) |" in markdown and "[q2]" not in markdown
    assert "The first 2 of 4 (faceteval view lists them all)." in markdown
    assert "Question &lt;b&gt;0&lt;/b&gt;?" in markdown  # the query's excerpt, as text


def test_without_a_record_or_input_the_report_still_shows_what_the_judgments_say(tmp_path: Path) -> None:
    judgments = write(tmp_path, [split(0), split(1)], record=None, extra='{"id": "q9"}\nnot json\n')

    markdown_path, html_path = write_judge_report(judgments)

    markdown = markdown_path.read_text(encoding="utf-8")
    assert "j.run.json is not beside it: the run's method, model and spend are not known" in markdown
    assert "The candidates are not shown, and systems are candidate positions: " in markdown
    assert "2 lines of the judgments could not be read and are left out (the first: " in markdown
    assert "| Position | Won |" in markdown and "| 1 | 2 | 0 | 0 | 0 | 100.0% |" in markdown
    assert (html_path.name, markdown_path.name) == ("j.report.html", "j.report.md")


def test_a_stored_result_that_cannot_be_read_is_named_and_the_result_computed_again(tmp_path: Path) -> None:
    record = JudgeRecord(
        method=MethodRecord(name="dna"),
        inputs={"input": {"path": str(pairs(tmp_path, 2))}},
        summary={"judgments": {"ok": 2}},  # type: ignore[arg-type]
    )
    judgments = write(tmp_path, [split(0), split(1)], record=record)
    data = json.loads((tmp_path / "j.run.json").read_text(encoding="utf-8"))
    data["summary"]["result"] = {"schema_version": 99, "winner": "B"}  # not a result this version reads
    (tmp_path / "j.run.json").write_text(json.dumps(data), encoding="utf-8")

    markdown = write_judge_report(judgments)[0].read_text(encoding="utf-8")

    assert "computed from the judgments" in markdown and "summary.result" in markdown
    result = compute_result(
        [split(0), split(1)], [Instance(id=f"q{i}", query="q", candidates=["x", "y"]) for i in range(2)]
    )
    assert result.pairwise is not None and result.pairwise.systems[0].win_rate.value == 1.0


def test_orders_that_disagree_are_listed_with_each_orders_verdict(tmp_path: Path) -> None:
    orders = [OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=2)]
    judgment = Judgment(id="q0", method="dna", status="ok", verdict=0, consistent=False, orders=orders)
    record = JudgeRecord(inputs={"input": {"path": str(pairs(tmp_path, 1))}})

    markdown = write_judge_report(write(tmp_path, [judgment], record=record))[0].read_text(encoding="utf-8")

    assert "| [q0](#item-1) | tie | shown 1,2: 1; shown 2,1: 2 |" in markdown


def test_links_and_anchors_are_written_safely() -> None:
    table = Table(
        ("Item", "Why"), (("a](evil) [b", "<i>x</i>"),), title="T", anchor="item-1", links=("item-1",)
    )
    markdown = "\n".join(table_lines(table))
    assert '### <a id="item-1"></a>T' in markdown
    assert r"| [a\]\(evil) \[b](#item-1) | &lt;i&gt;x&lt;/i&gt; |" in markdown
    html = render_page("t", [Section("s", "S", (), (table,))], (), "faceteval")
    assert '<h3 id="item-1">T</h3>' in html
    assert '<td><a href="#item-1">a](evil) [b</a></td><td>&lt;i&gt;x&lt;/i&gt;</td>' in html
    with pytest.raises(ValueError, match="letters, digits"):
        Table(("a",), (), anchor='x" onclick="y')


def test_a_spend_table_is_known_as_a_cost_table(tmp_path: Path) -> None:
    record = JudgeRecord(method=MethodRecord(name="dna"), spend=SpendRecord(calls=3, cost_usd=0.25))
    rows = spend_table({"dna": (tmp_path / "j.jsonl", record)})
    path = tmp_path / "cost.md"
    path.write_text("\n".join(table_lines(rows)), encoding="utf-8")
    assert COST_TABLE.holds(path)
    assert rows.rows[0][:4] == ("dna", "", "0", "3") and rows.rows[0][8] == "$0.2500"
