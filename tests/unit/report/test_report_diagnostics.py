"""The report's bias diagnostics, selective accuracy and calibration, from a summary made of hand-made
judgments, and from a run recorded before the calibration block."""

from __future__ import annotations

import shutil
from pathlib import Path

from faceteval.core import Instance, Judgment, OrderResult
from faceteval.metaeval import Settings, Target, join, summarize
from faceteval.report import render_html, render_markdown, write_report
from faceteval.store import MetaEvalRecord, read_record

BEFORE_CALIBRATION = Path(__file__).parents[2] / "fixtures" / "records" / "v2" / "before-calibration"


def section(markdown: str, title: str) -> str:
    start = markdown.index(f"## {title}\n")
    end = markdown.find("\n## ", start + 1)
    return markdown[start : end if end != -1 else None]


def summary() -> dict[str, object]:
    instances = [
        Instance(
            id="0", query="q", candidates=("long answer", "short"), systems=("judge-model", "other"), label=2
        ),
        Instance(
            id="1", query="q", candidates=("short", "long answer"), systems=("other", "judge-model"), label=2
        ),
        Instance(id="2", query="q", candidates=("a", "bb"), systems=("x", "y"), label=1),
    ]
    judgments = [
        Judgment(
            id=i.id,
            method="toy",
            status="ok",
            verdict=v,
            scores=s,
            orders=[OrderResult(order=[1, 2], verdict=v), OrderResult(order=[2, 1], verdict=v)],
        )
        for i, v, s in zip(instances, (1, 2, 2), ([9.0, 1.0], [5.0, 6.0], [4.0, 5.0]), strict=True)
    ]
    target = Target(name="toy", kind="pairwise", instances=tuple(instances))
    joined = join(instances, judgments)
    return summarize(target, joined, judge="toy", settings=Settings(0), judge_models=["openai:judge-model"])


def test_the_bias_section_shows_each_rate_of_the_judge_next_to_the_humans() -> None:
    bias = section(render_markdown(summary()), "Bias diagnostics")
    assert "| Preference for | Judge | 95% CI | Judge hits / n | Humans | Humans hits / n |" in bias
    assert "| Position: shown first, original order | 33.3% | — | 1 / 3 | 33.3% | 1 / 3 |" in bias
    assert "| Position: shown first, swapped order | 66.7% | — | 2 / 3 | 66.7% | 2 / 3 |" in bias
    assert "| Length: the longer (characters) | 100.0% | — | 3 / 3 | 33.3% | 1 / 3 |" in bias
    assert "| Self-preference: its own output (judge-model) | 100.0% | — | 2 / 2 | 50.0% | 1 / 2 |" in bias
    assert "Agreement by length difference" in bias
    assert "a tie prefers neither candidate" in bias


def test_the_selective_section_shows_agreement_at_each_coverage_with_its_range() -> None:
    selective = section(render_markdown(summary()), "Selective accuracy")
    # confidences (margin on the run's 1-9 range, orders): 1 (wrong), 0.5625 (right), 0.5625 (wrong)
    columns = "| Coverage | Kept | Lowest confidence kept | Agreement | Range over tie orders | Tied at cut |"
    assert columns in selective
    # half: the wrong 1 and one of the two tied at 0.5625 (one right): 1/4 in expectation, 0 to 1/2
    assert "| 50% | 2 | 0.562 | 25.0% | 0.0%-50.0% | 2 |" in selective
    assert "| 100% | 3 | 0.562 | 33.3% | — | 2 |" in selective  # every verdict kept: no range
    assert "3 of 3 labelled verdicts have a confidence" in selective
    assert "expectation over every order" in selective and "SHA-256" not in selective
    html = render_html(summary())
    assert "Bias diagnostics" in html and "Selective accuracy" in html and "0.0%-50.0%" in html


def test_the_calibration_section_shows_auroc_ece_the_bins_and_the_tied_shares() -> None:
    calibration = section(render_markdown(summary()), "Calibration of confidence")
    assert "estimator: signals" in calibration
    # the right verdict (0.5625) against the wrong ones (1, 0.5625): a loss and a tie, of 2
    assert "AUROC 0.250" in calibration
    # |0 - 1| * 1 + |1/2 - 0.5625| * 2, over 3
    assert "expected calibration error (ECE) 0.375" in calibration
    assert "| Confidence | Verdicts | Mean confidence | Agreement with humans | Gap |" in calibration
    assert "| 0.5-0.6 | 2 | 0.562 | 50.0% | 0.062 |" in calibration
    assert "| 0.9-1.0 | 1 | 1.000 | 0.0% | 1.000 |" in calibration
    assert "| 0.0-0.1 |" not in calibration  # empty bins are left out
    assert "| 0.562 | 2 | 66.7% |" in calibration  # the tied shares
    assert "2 of 3 verdicts (66.7%) share the confidence 0.562" in calibration


def test_the_html_report_draws_the_reliability_plot() -> None:
    html = render_html(summary())
    start = html.index('id="calibration"')
    figure = html[start : html.index("</section>", start)]
    assert '<img src="data:image/png;base64,' in figure
    assert "Reliability" in figure
    assert "data:image/png" not in render_html(summary(), include_plots=False)


def test_a_summary_written_before_the_calibration_block_still_renders() -> None:
    # selective accuracy as records kept it before the range: one order of the ties, a rate with its CI
    old = {
        "benchmark": "toy",
        "kind": "pairwise",
        "selective_accuracy": {
            "n": 4,
            "with_confidence": 4,
            "mean_confidence": 0.6,
            "coverages": [
                {
                    "coverage": 0.5,
                    "kept": 2,
                    "min_confidence": 0.7,
                    "agreement": {
                        "value": 1.0,
                        "hits": 2,
                        "n": 2,
                        "ci": [0.5, 1.0],
                        "ci_method": "bootstrap",
                    },
                },
            ],
        },
    }
    markdown = render_markdown(old)
    selective = section(markdown, "Selective accuracy")
    assert "| Coverage | Kept | Lowest confidence kept | Agreement | 95% CI | Hits / n |" in selective
    assert "| 50% | 2 | 0.700 | 100.0% | [50.0%, 100.0%] | 2 / 2 |" in selective
    assert "ordered by the SHA-256 of the instance id" in selective  # what that record measured
    assert "Calibration of confidence" not in markdown
    html = render_html(old)
    assert "Selective accuracy" in html and 'id="calibration"' not in html


def test_no_sections_without_the_entries() -> None:
    markdown = render_markdown({"benchmark": "toy", "kind": "pairwise"})
    assert "Bias diagnostics" not in markdown and "Selective accuracy" not in markdown
    assert "Calibration of confidence" not in markdown


def test_a_run_recorded_before_the_calibration_block_reads_and_reports(tmp_path: Path) -> None:
    # GPT-4 (Vanilla) on LLMBar-Adversarial as meta-eval recorded it when ties were broken by SHA-256
    run_dir = tmp_path / "run"
    shutil.copytree(BEFORE_CALIBRATION, run_dir)
    record = read_record(run_dir / "summary.json", MetaEvalRecord)
    assert record.summary.calibration is None
    assert isinstance(record.summary.selective_accuracy, dict)
    markdown_path, html_path = write_report(run_dir)
    selective = section(markdown_path.read_text(encoding="utf-8"), "Selective accuracy")
    assert "| 50% | 160 | 1.000 | 85.6% | — | 137 / 160 |" in selective  # the one order it measured
    assert "ordered by the SHA-256 of the instance id" in selective
    html = html_path.read_text(encoding="utf-8")
    assert "Selective accuracy" in html and 'id="calibration"' not in html


def test_a_calibration_block_of_odd_values_renders_without_a_plot() -> None:
    # a hand-edited summary.json: entries of the wrong type are left out, never a crash
    for block in (
        {"estimator": "signals", "bins": [{"low": "x", "n": 3}, None], "tied_shares": "many"},
        {"auroc": None, "ece": None, "bins": [{"low": 0.0, "high": 0.1, "n": 0}], "tied_shares": []},
        {"auroc": "high", "bins": 3, "tied_shares": [3]},
    ):
        odd = {"benchmark": "toy", "kind": "pairwise", "calibration": block}
        calibration = section(render_markdown(odd), "Calibration of confidence")
        assert "AUROC —" in calibration and "Reliability" not in calibration
        assert "share the" not in calibration and "most common confidences" not in calibration
        html = render_html(odd)
        start = html.index('<section id="calibration">')
        assert "data:image/png" not in html[start : html.index("</section>", start)]
