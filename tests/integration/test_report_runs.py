"""`faceteval report` and `faceteval cost` take any run, each made by its real command: a judge run
(pairwise with --swap and --systems, and of single outputs) over the local LLM server, a
meta-evaluation of recorded judgments, an HD-Eval evaluator trained on recorded scores, a Fennec
judge + correct run, a bridge run, and a judge run of schema 1."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from faceteval.aggregation import verdict
from faceteval.core import Judgment
from faceteval.datasets import read_instances, read_judgments
from faceteval.results import JudgeResult, Proportion, compute_result
from tests.support.files import read_jsonl
from tests.support.report_runs import (
    CONFLICTS,
    FAILED,
    HOSTILE,
    ORDERS,
    Page,
    invoke,
    judge_runs,
    markdown_table,
    markdown_tables,
)
from tests.support.view_runs import bridge_run, correct_run, data_dir, evaluator, recorded_meta_eval

V1 = Path(__file__).parents[1] / "fixtures" / "records" / "v1" / "judge"


@dataclass(frozen=True)
class Runs:
    folder: Path
    pairs: Path
    singles: Path
    correct: Path
    bridge: Path
    meta_eval: Path
    evaluator: Path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    folder = tmp_path_factory.mktemp("runs")
    pairs, singles = judge_runs(folder)
    data = data_dir()
    return Runs(
        folder,
        pairs,
        singles,
        correct_run(folder),
        bridge_run(folder, data),
        recorded_meta_eval(folder, data),
        evaluator(folder, data),
    )


@pytest.fixture
def copy(runs: Runs, tmp_path: Path) -> Path:
    """The judge runs and their inputs, copied where a test may change them."""
    for name in ("pairs.jsonl", "singles.jsonl", "dna.jsonl", "dna.run.json"):
        shutil.copy(runs.folder / name, tmp_path / name)
    record = tmp_path / "dna.run.json"
    data = json.loads(record.read_text())
    data["inputs"]["input"] = {"path": "pairs.jsonl"}  # the copy's, beside it
    record.write_text(json.dumps(data))
    return tmp_path


def pct(value: float | None) -> str:
    assert value is not None
    return f"{100 * value:.1f}%"


def interval(rate: Proportion) -> str:
    assert rate.ci is not None
    return f"[{pct(rate.ci[0])}, {pct(rate.ci[1])}]"


def the_result(judgments: Path, inputs: Path, systems: list[str] | None = None) -> JudgeResult:
    return compute_result(read_judgments(judgments), read_instances(inputs, systems=systems))


def item_ids(rows: list[dict[str, str]]) -> list[str]:
    """The items of a list, from their cells ``[q3](#item-1)``."""
    return [row["Item"].split("]")[0].removeprefix("[") for row in rows]


def disagreeing_facets(judgment: Judgment) -> bool:
    """The definition, from the judgment alone: the weighted facets favour another candidate than the
    verdict, or the facets favour different candidates."""
    if judgment.status != "ok" or judgment.verdict is None or not judgment.facets:
        return False
    weighted = [(f.weight if f.weight is not None else 1.0, f.scores) for f in judgment.facets]
    n = len(judgment.facets[0].scores)
    totals = [math.fsum(w * (scores[m] or 0.0) for w, scores in weighted) for m in range(n)]
    favoured = verdict([round(t, 9) for t in totals])
    preferred = {verdict([s or 0.0 for s in f.scores]) for f in judgment.facets} - {0}
    return favoured != judgment.verdict or len(preferred) > 1


def test_a_pairwise_judge_runs_report_has_its_result_plots_and_the_items_that_disagree(runs: Runs) -> None:
    reported = invoke("report", runs.pairs, "--systems", "A,B")

    assert reported.exit_code == 0, reported.output
    markdown_path, html_path = runs.folder / "dna.report.md", runs.folder / "dna.report.html"
    assert reported.output.split() == [str(markdown_path), str(html_path)]
    markdown, html = markdown_path.read_text(), html_path.read_text()
    result = the_result(runs.pairs, runs.folder / "pairs.jsonl", ["A", "B"])
    assert result.pairwise is not None and result.pairwise.consistency is not None

    # the run, its spend and its result: the win rates and their CIs are the result's
    run = {row["Field"]: row["Value"] for row in markdown_table(markdown, "Run")}
    record = json.loads((runs.folder / "dna.run.json").read_text())
    assert run["Method"].startswith("dna (aspects: 2;") and run["Model"] == "openai:judge"
    assert "swap: true" in run["Options"] and run["Systems"].startswith("A, B")
    assert markdown_table(markdown, "Run", 1)[0]["Calls"] == f"{record['spend']['calls']:,}"
    systems = {row["System"]: row for row in markdown_table(markdown, "Win rates")}
    assert set(systems) == {"A", "B"}
    for standing in result.pairwise.systems:
        row = systems[standing.name]
        assert (row["Won"], row["Tied"], row["Lost"]) == tuple(
            map(str, (standing.wins, standing.ties, standing.losses))
        )
        assert row["Win rate (ties ½)"] == pct(standing.win_rate.value)
        assert row["95% CI"] == interval(standing.win_rate)
    positions = {row["Position"] for row in markdown_table(markdown, "By candidate position")}
    assert positions == {"1", "2"}
    consistency = markdown_table(markdown, "Swap consistency")[0]
    assert consistency["Consistency"] == pct(result.pairwise.consistency.rate.value)
    assert consistency["95% CI"] == interval(result.pairwise.consistency.rate)
    facets = {row["Facet"]: row for row in markdown_table(markdown, "Facets")}
    assert {facet: row["Mean weight"] for facet, row in facets.items()} == {
        "Does the output follow the instruction?": "62.5%",
        "Is the output correct?": "37.5%",
    }

    # the items: exactly those that disagree, each linked to its anchor
    judgments = list(read_judgments(runs.pairs))
    conflicts = item_ids(markdown_table(markdown, "Facets against the verdict"))
    assert conflicts == [j.id for j in judgments if disagreeing_facets(j)] == list(CONFLICTS)
    orders = item_ids(markdown_table(markdown, "Orders that disagree"))
    assert orders == [j.id for j in judgments if j.consistent is False] == list(ORDERS)
    assert item_ids(markdown_table(markdown, "Failures")) == [j.id for j in judgments if j.status != "ok"]
    assert list(FAILED) == item_ids(markdown_table(markdown, "Failures"))
    listed = dict.fromkeys([*conflicts, *orders, *FAILED])
    for k, item in enumerate(listed, start=1):
        assert f'### <a id="item-{k}"></a>Item {item}' in markdown
        assert f"[{item}](#item-{k})" in markdown
    q4 = markdown_table(markdown, "Facets against the verdict")[1]
    assert (q4["Verdict"], q4["Facets favour"]) == ("tie", "1 (A)")

    # the page: plots, links to anchors that exist, and the run's texts as text
    page = Page(html)
    assert page.scripts == 0 and "<script>window" not in html and "<img src=x" not in html
    plots = {
        "Win rate of each system with its confidence interval",
        "How often each score was given, per facet and system",
        "Mean weight of each facet (the facets met most often)",
    }
    assert plots <= set(page.images)
    anchors = [link.removeprefix("#") for link in page.links if link.startswith("#item-")]
    assert anchors and set(anchors) <= set(page.ids)
    rows = {row[0]: row for row in page.rows["systems"][1:]}
    a = next(s for s in result.pairwise.systems if s.name == "A")
    assert rows["A"][5:7] == [pct(a.win_rate.value), interval(a.win_rate)]


def test_a_hostile_text_is_shown_as_text_in_both_files(runs: Runs, copy: Path) -> None:
    data = [json.loads(line) for line in (copy / "dna.jsonl").read_text().splitlines()]
    data[0]["status"], data[0]["error"], data[0]["verdict"] = "error", HOSTILE, None  # q1 now failed so
    (copy / "dna.jsonl").write_text("".join(json.dumps(row) + "\n" for row in data))  # its error is listed

    assert invoke("report", copy / "dna.jsonl", "--systems", "A,B").exit_code == 0

    markdown, html = (copy / "dna.report.md").read_text(), (copy / "dna.report.html").read_text()
    assert "<script>" not in markdown and "<img" not in markdown and "](javascript" not in markdown
    assert "&lt;script&gt;window.\\_\\_pwned" in markdown
    page = Page(html)
    assert page.scripts == 0 and "<script>window" not in html
    assert not any(link.startswith("javascript") for link in page.links)
    failures = {row[0]: row for row in page.rows["failures"][1:]}
    assert failures["q1"][2].startswith("<script>window.__pwned = 1</script> | *pipe*")


def test_a_result_the_record_holds_is_the_one_reported(runs: Runs, copy: Path) -> None:
    result = the_result(runs.pairs, runs.folder / "pairs.jsonl", ["A", "B"])
    stored = result.model_dump(mode="json")
    stored["pairwise"]["systems"][0]["win_rate"].update(value=0.123, ci=[0.1, 0.2])  # not what it computes
    record = json.loads((copy / "dna.run.json").read_text())
    record["summary"]["result"] = stored
    (copy / "dna.run.json").write_text(json.dumps(record))

    assert invoke("report", copy / "dna.jsonl").exit_code == 0

    markdown = (copy / "dna.report.md").read_text()
    assert "The result is the one stored in the run record." in markdown
    first = markdown_table(markdown, "Win rates")[0]
    assert (first["System"], first["Win rate (ties ½)"], first["95% CI"]) == ("A", "12.3%", "[10.0%, 20.0%]")


def test_the_systems_a_record_names_are_those_of_the_result_computed(runs: Runs, copy: Path) -> None:
    record = json.loads((copy / "dna.run.json").read_text())
    record["options"]["systems"] = ["A", "B"]
    record["summary"]["result"] = None  # as an older faceteval's record: the result is computed
    (copy / "dna.run.json").write_text(json.dumps(record))

    assert invoke("report", copy / "dna.run.json").exit_code == 0  # the record given stands for its run

    markdown = (copy / "dna.report.md").read_text()
    assert "computed from the judgments" in markdown
    expected = the_result(copy / "dna.jsonl", copy / "pairs.jsonl", ["A", "B"])
    assert expected.pairwise is not None
    shown = {row["System"]: row["Win rate (ties ½)"] for row in markdown_table(markdown, "Win rates")}
    assert shown == {s.name: pct(s.win_rate.value) for s in expected.pairwise.systems}


def test_a_single_output_runs_report_has_means_per_system_and_facet_with_cis(runs: Runs) -> None:
    assert invoke("report", runs.singles).exit_code == 0

    markdown = (runs.folder / "single.report.md").read_text()
    result = the_result(runs.singles, runs.folder / "singles.jsonl")
    assert result.pointwise is not None and result.pairwise is None
    means = {row["System"]: row for row in markdown_table(markdown, "Mean scores of single outputs")}
    for system in result.pointwise.systems:
        assert system.score.ci is not None and system.score.value is not None
        row = means[system.name]
        assert (row["Scored"], row["Mean score"]) == (str(system.score.n), f"{system.score.value:.2f}")
        assert row["95% CI"] == f"[{system.score.ci[0]:.2f}, {system.score.ci[1]:.2f}]"
    facets = markdown_table(markdown, "Facets of single outputs")
    expected = {(f.name, s): f"{m.value:.2f}" for f in result.pointwise.facets for s, m in f.means.items()}
    assert {(row["Facet"], row["System"]): row["Mean"] for row in facets} == expected
    page = Page((runs.folder / "single.report.html").read_text())
    assert "How often each score was given, per facet and system" in page.images
    assert "Win rates" not in markdown and "Facets against the verdict" not in markdown


def test_a_schema_1_judge_record_gets_a_report_with_its_result_computed(tmp_path: Path) -> None:
    shutil.copytree(V1, tmp_path / "v1")
    judgments = tmp_path / "v1" / "j.jsonl"

    reported = invoke("report", judgments)

    assert reported.exit_code == 0, reported.output
    markdown = (tmp_path / "v1" / "j.report.md").read_text()
    assert "computed from the judgments" in markdown and "run record schema 1" in markdown
    result = the_result(judgments, tmp_path / "v1" / "pairs.jsonl")
    assert result.pairwise is not None
    shown = {
        row["Position"]: (row["Win rate (ties ½)"], row["95% CI"])
        for row in markdown_table(markdown, "Win rates")
    }
    assert shown == {s.name: (pct(s.win_rate.value), interval(s.win_rate)) for s in result.pairwise.systems}
    run = {row["Field"]: row["Value"] for row in markdown_table(markdown, "Run")}
    assert run["Method"].startswith("dna") and run["Input"].endswith("pairs.jsonl")


def test_report_takes_every_kind_of_run(runs: Runs) -> None:
    reported = invoke(
        "report", runs.meta_eval, runs.evaluator, runs.correct, runs.bridge.with_suffix(".run.json")
    )

    assert reported.exit_code == 0, reported.output
    meta = (runs.meta_eval / "report.md").read_text()
    assert "## Headline" in meta and "mtbench-human" in meta
    assert "## Held-out correlation with human scores" in (runs.evaluator / "report.md").read_text()

    corrected = (runs.folder / "corrected.report.md").read_text()
    record = json.loads((runs.folder / "corrected.run.json").read_text())["summary"]
    counts = {row[""]: row["Count"] for row in markdown_table(corrected, "Counts")}
    assert (counts["Corrected"], counts["Kept"]) == (str(record["corrected"]), str(record["kept"]))
    changed = markdown_table(corrected, "What changed")
    lines = [line for line in read_jsonl(runs.correct) if line["status"] == "corrected"]
    assert [(row["Response"], row["Correction"]) for row in changed] == [
        (f"{line['id']} #{line['candidate']}", line["correction"]) for line in lines
    ]

    bridged = runs.bridge.with_name("autoj-pairwise.report.md").read_text()
    summary = json.loads(runs.bridge.with_suffix(".run.json").read_text())["summary"]
    counts = {row[""]: row["Count"] for row in markdown_table(bridged, "Counts")}
    assert counts["Kept: consistent (the training examples)"] == str(summary["kept"])
    recovered = markdown_table(bridged, "What was recovered")
    kept = [line for line in read_jsonl(runs.bridge) if line["status"] == "ok" and line["consistent"]]
    assert [row["Record"] for row in recovered] == [line["id"] for line in kept]
    assert recovered[0]["Criteria recovered"] == "; ".join(c["name"] for c in kept[0]["criteria"])
    for path in (runs.meta_eval / "report.html", runs.folder / "corrected.report.html"):
        assert Page(path.read_text()).scripts == 0


def test_cost_takes_every_kind_of_run_with_a_record(runs: Runs, tmp_path: Path) -> None:
    table = tmp_path / "cost.md"
    given = (runs.meta_eval, runs.pairs, runs.singles.with_suffix(".run.json"), runs.correct, runs.bridge)

    costed = invoke("cost", *given, runs.evaluator, "--markdown", table)

    assert costed.exit_code == 0, costed.output
    meta, spent = markdown_tables(table.read_text())
    assert [row["Method"] for row in meta] == ["recorded:gpt4-pair"] and meta[0]["Instances"] == "40"
    rows = {row["Method"]: row for row in spent}
    for name, output in (
        ("dna", runs.pairs),
        (f"dna ({runs.singles})", runs.singles),
        ("fennec correction", runs.correct),
    ):
        row = rows[name]
        spend = json.loads(output.with_suffix(".run.json").read_text())["spend"]
        keys = ("calls", "cached", "retries", "input_tokens", "output_tokens")
        assert [
            row[column] for column in ("Calls", "Cached calls", "Retries", "Input tokens", "Output tokens")
        ] == [f"{spend[key]:,}" for key in keys]
        assert (
            row["Model"] == "openai:judge" and row["Cost (USD)"] == "unknown"
        )  # no price for the test model
    assert rows["fennec bridging"]["Benchmark"] == "autoj-pairwise"
    assert rows["hdeval"]["Calls"] == "—"  # trained on recorded scores: no LLM call
    assert "Spend per run" in costed.output and "Cost per run" in costed.output


def test_what_is_no_run_gets_a_clear_error(runs: Runs, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    shutil.copy(runs.pairs, tmp_path / "alone.jsonl")  # judgments without their record
    shutil.copy(runs.pairs.with_suffix(".run.json"), tmp_path / "lone.run.json")  # a record without them

    for args, message in (
        (["report", tmp_path / "empty"], f"{tmp_path / 'empty'}: not a meta-evaluation run (no "
         "summary.json), nor an HD-Eval evaluator (no evaluator.json); give a judge output"),
        (["report", runs.folder / "pairs.jsonl"], f"{runs.folder / 'pairs.jsonl'}: not a run"),
        (["report", tmp_path / "missing.jsonl"], "missing.jsonl: no such file or directory"),
        (["cost", tmp_path / "alone.jsonl"], f"{tmp_path / 'alone.jsonl'}: no run record (alone.run.json "
         "is not beside it)"),
        (["cost", tmp_path / "empty"], "not a meta-evaluation run (no summary.json)"),
        (["report", tmp_path / "lone.run.json"], "lone.run.json: not the record of a run whose output is "
         "beside it (lone.jsonl)"),
    ):  # fmt: skip
        result = invoke(*args)
        assert result.exit_code == 1, result.output
        assert message in " ".join(result.output.split()), result.output

    both = invoke("report", runs.pairs, runs.singles, "--out", tmp_path / "r")
    assert both.exit_code == 2 and "--out names one report" in both.output


def test_a_report_goes_where_out_says_and_never_over_a_file_not_ours(runs: Runs, copy: Path) -> None:
    out = invoke("report", copy / "dna.jsonl", "--out", copy / "reports" / "dna.md")
    assert out.exit_code == 0, out.output
    assert (copy / "reports" / "dna.md").is_file() and (copy / "reports" / "dna.html").is_file()

    notes = copy / "dna.report.md"
    notes.write_text("my own notes\n")
    refused = invoke("report", copy / "dna.jsonl")
    assert refused.exit_code == 1 and notes.read_text() == "my own notes\n"
    assert "--force" in refused.output and not (copy / "dna.report.html").exists()
    forced = invoke("report", copy / "dna.jsonl", "--force")
    assert forced.exit_code == 0 and notes.read_text().startswith("# Judge run: dna.jsonl")
    again = invoke("report", copy / "dna.jsonl")  # its own report is replaced
    assert again.exit_code == 0, again.output
