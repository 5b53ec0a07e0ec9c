"""Fennec's summary entries in the report and the CLI results: consistency and agreement without human
ties next to their neighbours, and the per-system table of means and ranks."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape
from rich.console import Console

from faceteval._cli import _metaeval_display
from faceteval.report import render_html, render_markdown
from tests.unit.report.runs import HOSTILE, pairwise_summary, pointwise_summary, rate

SYSTEMS_TITLE = "Systems: mean scores and ranks"


def section(markdown: str, title: str) -> str:
    """The text of one ``## title`` section."""
    start = markdown.index(f"## {title}\n")
    end = markdown.find("\n## ", start + 1)
    return markdown[start : end if end != -1 else None]


def fennec_pairwise() -> dict[str, Any]:
    return pairwise_summary() | {
        "consistency_without_ties": rate(0.5, 3, 6, (0.4, 0.6), missing=2) | {"excluded": 2},
        "agreement_consistent_without_ties": rate(0.25, 2, 8) | {"excluded": 3},
    }


def fennec_pointwise() -> dict[str, Any]:
    def row(system: str, n: int, judge: float, reference: float, ranks: tuple[int, int]) -> dict[str, Any]:
        return {
            "system": system,
            "n": n,
            "judge": judge,
            "reference": reference,
            "judge_rank": ranks[0],
            "reference_rank": ranks[1],
        }

    table = [
        row("chatgpt", 80, 3.8, 3.8167, (1, 1)),
        row(HOSTILE, 80, 3.8, 3.4792, (1, 2)),
        row("vicuna_13b", 79, 3.275, 3.2667, (3, 3)),
    ]
    return pointwise_summary() | {"reference": "GPT-4", "systems": {"coherence": table}}


def show(summary: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``meta-eval`` prints for ``summary``, on a console wide enough for one line per row."""
    buffer = io.StringIO()
    monkeypatch.setattr(_metaeval_display, "console", Console(file=buffer, width=200, highlight=False))
    _metaeval_display.show_results(summary, tmp_path)
    return buffer.getvalue()


def cells(printed: str) -> list[str]:
    """Each printed line with the table rules dropped and whitespace collapsed."""
    return [" ".join(line.replace("│", " ").replace("┃", " ").split()) for line in printed.splitlines()]


def test_headline_lists_each_without_ties_entry_after_its_neighbour() -> None:
    headline = section(render_markdown(fennec_pairwise()), "Headline")
    assert "| Metric | Value | 95% CI | Hits / n | No verdict | Excluded |" in headline
    assert "| Swap consistency without ties | 50.0% | [40.0%, 60.0%] | 3 / 6 | 2 | 2 |" in headline
    assert "| Agreement where consistent, without ties | 25.0% | — | 2 / 8 | 0 | 3 |" in headline
    rows = [line for line in headline.splitlines() if line.startswith("| ")]
    names = [row.split(" | ")[0].removeprefix("| ") for row in rows]
    at = names.index("Swap consistency")
    assert names[at : at + 4] == [
        "Swap consistency",
        "Swap consistency without ties",
        "Agreement where consistent",
        "Agreement where consistent, without ties",
    ]


def test_system_table_in_markdown_and_html() -> None:
    markdown = render_markdown(fennec_pointwise())
    systems = section(markdown, SYSTEMS_TITLE)
    assert "Reference: GPT-4." in systems
    assert "### coherence" in systems
    assert "| System | n | Judge mean | Reference mean | Judge rank | Reference rank |" in systems
    assert "| chatgpt | 80 | 3.800 | 3.817 | 1 | 1 |" in systems
    assert "| vicuna\\_13b | 79 | 3.275 | 3.267 | 3 | 3 |" in systems
    assert "<script>" not in systems and "| 80 | 3.800 | 3.479 | 1 | 2 |" in systems
    assert markdown.index("## Correlation with GPT-4") < markdown.index(f"## {SYSTEMS_TITLE}")
    html = render_html(fennec_pointwise(), include_plots=False)
    assert f"<h2>{SYSTEMS_TITLE}</h2>" in html and "<h3>coherence</h3>" in html
    assert str(escape(HOSTILE.split("\n")[0])) in html and HOSTILE not in html
    assert '<td class="num">3.817</td>' in html


def test_no_system_section_without_a_system_table() -> None:
    assert SYSTEMS_TITLE not in render_markdown(pointwise_summary())
    assert SYSTEMS_TITLE not in render_markdown(pointwise_summary() | {"systems": {"coherence": []}})


def test_cli_shows_the_new_rows_and_the_system_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pairwise = show(fennec_pairwise(), tmp_path, monkeypatch)
    lines = cells(pairwise)
    assert "consistency without human ties 50.00% 40.0-60.0 3 / 6" in lines
    assert "agreement, consistent only, without human ties 25.00% 2 / 8" in lines
    pointwise = show(fennec_pointwise(), tmp_path, monkeypatch)
    lines = cells(pointwise)
    assert "systems: coherence" in lines
    assert "system n judge mean reference mean judge rank reference rank" in lines
    assert "chatgpt 80 3.800 3.817 1 1" in lines
    assert "vicuna_13b 79 3.275 3.267 3 3" in lines
    assert "systems:" not in show(pointwise_summary(), tmp_path, monkeypatch)
