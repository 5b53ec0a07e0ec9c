"""The HTML report: one self-contained page, every text escaped, the plots embedded."""

from __future__ import annotations

import base64
import re
import subprocess
import sys

import pytest
from markupsafe import escape

from faceteval.core import Instance
from faceteval.report import render_html
from tests.unit.report.runs import (
    HOSTILE,
    pairwise_records,
    pairwise_summary,
    pointwise_records,
    pointwise_summary,
)

IMAGE = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"')
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def images(html: str) -> list[bytes]:
    """The embedded PNG images, decoded."""
    return [base64.b64decode(data) for data in IMAGE.findall(html)]


def assert_self_contained(html: str) -> None:
    lowered = html.lower()
    assert lowered.startswith("<!doctype html>")
    assert "<script" not in lowered
    assert "<link" not in lowered
    assert 'src="http' not in lowered
    assert "url(" not in lowered
    assert "@import" not in lowered
    assert len(re.findall(r"<img ", lowered)) == len(IMAGE.findall(html))


def test_pairwise_page_has_every_table_and_five_plots() -> None:
    instances, judgments = pairwise_records()
    html = render_html(pairwise_summary(), instances, judgments)
    assert_self_contained(html)
    pngs = images(html)
    assert len(pngs) == 5  # confusion, categories, facet weights, distributions, sweep
    assert all(png.startswith(PNG_MAGIC) for png in pngs)
    assert "<title>llmbar-natural × recorded:gpt-4</title>" in html
    for title in (
        "Headline",
        "Status",
        "Measured vs reported",
        "By category",
        "Confusion matrix",
        "Facet weights",
        "Failures",
        "Usage and cost",
        "Aspect-count sweep",
        "Repeated runs",
        "Examples of disagreement",
    ):
        assert f"<h2>{title}</h2>" in html
    assert '<td class="num">72.5%</td>' in html
    assert '<td>Parse errors</td><td class="num">3</td>' in html
    assert "<td>p4</td><td>parse error</td><td>no verdict found</td>" in html


def test_hostile_text_is_escaped_and_no_script_appears() -> None:
    instances, judgments = pairwise_records()
    summary = pairwise_summary()
    summary["benchmark"] = "<script>alert(1)</script>"
    summary["by_category"]["<b>bold</b>"] = summary["by_category"].pop("Natural")
    judgments[3] = judgments[3].model_copy(update={"error": "<i>no</i> verdict"})
    html = render_html(summary, instances, judgments, include_plots=False)
    assert_self_contained(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert f"What? {escape(HOSTILE)}" in html  # escaped, and the line break kept
    assert "What? &lt;script&gt;alert(1)&lt;/script&gt; | a\nb" in html
    assert "Because &lt;script&gt;" in html
    assert "<td>p4</td><td>parse error</td><td>&lt;i&gt;no&lt;/i&gt; verdict</td>" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<b>" not in html


def test_hostile_labels_in_plots_do_not_break_them() -> None:
    summary = {
        "by_category": {"$x$ costs $5 <a>": {"agreement": {"value": 0.5, "ci": [0.4, 0.6]}}},
        "facet_weights": {"(all)": {"$\\frac{1}{0}$": {"mean": 0.5, "n": 3}}},
    }
    html = render_html(summary)
    assert_self_contained(html)
    assert len(images(html)) == 2


def test_pointwise_page_plots_score_distributions() -> None:
    instances, judgments = pointwise_records()
    html = render_html(pointwise_summary(), instances, judgments)
    assert_self_contained(html)
    assert len(images(html)) == 1  # no confusion, categories, facet weights or sweep in this summary
    assert "Distribution of human and judge scores per aspect" in html
    assert "<td>coherence</td><td>sample</td>" in html


def test_an_almost_empty_summary_gives_a_page_without_plots() -> None:
    html = render_html({})
    assert_self_contained(html)
    assert images(html) == []
    assert "<h2>Status</h2>" in html


def test_verdicts_against_labels_without_scores() -> None:
    instances, judgments = pairwise_records()
    verdict_only = [j.model_copy(update={"scores": None}) for j in judgments]
    html = render_html({"kind": "pairwise"}, instances, verdict_only)
    assert len(images(html)) == 1
    unlabelled = [Instance(id=i.id, query=i.query, candidates=i.candidates) for i in instances]
    assert images(render_html({"kind": "pairwise"}, unlabelled, verdict_only)) == []


def test_same_inputs_same_page() -> None:
    instances, judgments = pairwise_records()
    summary = pairwise_summary()
    assert render_html(summary, instances, judgments) == render_html(summary, instances, judgments)


def test_importing_loads_no_matplotlib() -> None:
    code = "import sys, faceteval.report; print('matplotlib' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_plots_never_touch_pyplot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # importing it now raises ImportError
    assert (
        len(images(render_html({"confusion": [[1, 2], [3, 4]], "sweep": [{"aspects": 2, "agreement": 0.5}]})))
        == 2
    )
