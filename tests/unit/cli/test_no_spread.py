"""A confidence interval of zero width (every item 0.5, say: one order right and one wrong) is shown as
no spread, with why, in meta-eval's and judge's console output and in the reports, never as
``50.00% [50.0-50.0]``."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval._cli import _metaeval_display
from faceteval._cli._console import Console
from faceteval._cli._human import _estimate
from faceteval._cli._results import _mean
from faceteval.core import LabelledEstimate, Mean
from faceteval.report._format import interval_note, metric_interval
from faceteval.report._human import _cells
from faceteval.report._judge_sections import mean_cells

FLAT = {"value": 0.5, "ci": [0.5, 0.5], "hits": 5.0, "n": 10}
SPREAD = {"value": 0.5, "ci": [0.3, 0.7], "hits": 5.0, "n": 10}


def summary(**rates: object) -> dict[str, object]:
    return {"benchmark": "b", "judge": "j", "kind": "pairwise", "status": {}, **rates}


def test_meta_evals_table_shows_no_spread_and_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    console = Console(record=True, width=200, highlight=False, soft_wrap=True, emoji=False)
    monkeypatch.setattr(_metaeval_display, "console", console)
    _metaeval_display.show_results(summary(accuracy_order_avg=FLAT, agreement=SPREAD), tmp_path)
    shown = console.export_text()

    assert "50.0-50.0" not in shown
    (row,) = [line for line in shown.splitlines() if "accuracy averaged over orders" in line]
    assert "50.00%" in row and "no spread" in row
    assert "30.0-70.0" in shown  # an interval with a width is shown as ever
    assert "no spread: a CI of zero width, because every item gave the same value" in shown
    assert "no sign of certainty" in shown


def test_meta_evals_table_without_a_flat_interval_has_no_note(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    console = Console(record=True, width=200, highlight=False, soft_wrap=True, emoji=False)
    monkeypatch.setattr(_metaeval_display, "console", console)
    _metaeval_display.show_results(summary(agreement=SPREAD), tmp_path)
    assert "no spread" not in console.export_text()


def test_the_reports_interval_and_its_note() -> None:
    assert metric_interval("accuracy_order_avg", FLAT) == "[no spread]"
    assert metric_interval("agreement", SPREAD) == "[30.0%, 70.0%]"
    note = interval_note([FLAT, SPREAD])
    assert note is not None and note.startswith("No spread: a CI of zero width")
    assert interval_note([SPREAD]) is None


def test_judges_human_estimates_with_no_spread_say_how_many_labels_were_alike() -> None:
    flat = LabelledEstimate(method="classical", value=1.0, ci=(1.0, 1.0), labels=3)
    assert _estimate(flat, True) == "100.0% \\[no spread: 3 labels alike]"  # escaped: not rich markup
    assert _cells(flat, True) == ("100.0%", "[no spread: 3 labels alike]")
    wide = LabelledEstimate(method="classical", value=0.5, ci=(0.2, 0.8), labels=3)
    assert _estimate(wide, True) == "50.0 [20.0-80.0]"


def test_a_mean_of_scores_all_alike_is_not_shown_as_certain() -> None:
    same = Mean(value=7.0, n=3, sd=0.0, ci=(7.0, 7.0))
    assert _mean(same) == "7.00 (all alike)"  # no interval: every score was the same
    assert mean_cells(same)[1] == "[no spread: every score alike]"
    assert _mean(Mean(value=7.0, n=3, sd=1.0, ci=(4.5, 9.5))) == "7.00 ± 2.50"
