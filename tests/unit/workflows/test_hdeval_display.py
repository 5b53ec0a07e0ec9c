"""`hdeval train` leads with HD-Eval's level (per output, its Table 1) and shows the others beside it."""

from __future__ import annotations

from typing import Any

import pytest

from faceteval.workflows.hdeval._cli import _display


def _levels(value: float) -> dict[str, Any]:
    return {m: {"value": value, "ci": [value - 0.1, value + 0.1]} for m in ("pearson", "spearman", "kendall")}


def test_the_sample_level_comes_first_and_the_summary_and_system_levels_beside_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_display.console, "_width", 200)
    levels = {"sample": _levels(0.41), "summary": _levels(0.52), "system": _levels(0.93)}
    _display.show_held_out(
        {
            "level": "sample",
            "split": {"test": 40, "left_out": 0},
            "held_out": {"coherence": {"aggregator": levels, "mean_of_criteria": levels}},
        }
    )
    printed = capsys.readouterr().out
    titles = [printed.index(f"({level} level") for level in ("sample", "summary", "system")]
    assert titles == sorted(titles), printed
    assert printed.index("0.410") < titles[1] < printed.index("0.520") < titles[2] < printed.index("0.930")


def test_a_level_only_some_scorers_have_shows_their_rows_only(capsys: pytest.CaptureFixture[str]) -> None:
    _display.show_held_out(
        {
            "level": "sample",
            "split": {"test": 4, "left_out": 1},
            "held_out": {"a": {"aggregator": {"sample": _levels(0.2), "system": _levels(0.7)}}},
        }
    )
    printed = capsys.readouterr().out
    assert "(system level" in printed and "summary level" not in printed
    assert "1 instance left out" in printed
