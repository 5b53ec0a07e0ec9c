"""The report's Judge panel section on a rating benchmark, from a summary of hand-made panel judgments."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from faceteval.core import Instance, Judgment
from faceteval.metaeval import Settings, Target, join, summarize
from faceteval.metaeval.internal import panel_judgments
from faceteval.report import render_markdown

HUMAN = (1.0, 2.0, 3.0, 4.0)


def section(markdown: str, title: str) -> str:
    start = markdown.index(f"## {title}\n")
    end = markdown.find("\n## ", start + 1)
    return markdown[start : end if end != -1 else None]


def rated(judgment_id: str, score: float | None) -> Judgment:
    if score is None:
        return Judgment(id=judgment_id, method="toy", status="error", error="timed out")
    return Judgment(id=judgment_id, method="toy", status="ok", scores=[score])


def test_each_judge_beside_the_panel_even_where_the_panel_has_too_few_scores() -> None:
    instances = [
        Instance(id=str(k), query="q", candidates=["x"], scores={"quality": h}) for k, h in enumerate(HUMAN)
    ]
    a = [rated(str(k), h) for k, h in enumerate(HUMAN)]
    b = [rated("0", None), rated("1", None), rated("2", 2.0), rated("3", 1.0)]
    combined = panel_judgments([("a", a), ("b", b)], {i.id: 1 for i in instances}, "mean")
    target = Target(name="toy", kind="pointwise", instances=tuple(instances))
    summary = summarize(target, join(instances, combined), judge="panel", settings=Settings(0))
    assert summary["correlations"] == {}  # two panel scores: too few to correlate
    assert summary["panel"]["judges"][1] == {
        "judge": "b",
        "correlations": {},
        "unjudged": {"quality": 2},
    }
    panel = section(render_markdown(summary), "Judge panel")
    assert "| quality | sample | a | 4 | 1.000 | 1.000 † | 1.000 † |" in panel
    assert "| quality | sample | b | — | — | — | — |" in panel
    assert "| quality | sample | panel (mean) | — | — | — | — |" in panel
    alpha = krippendorff.alpha(
        reliability_data=[HUMAN, [np.nan, np.nan, 2, 1]], level_of_measurement="interval"
    )
    assert summary["panel"]["alpha"]["quality"]["value"] == pytest.approx(alpha)
    assert f"Krippendorff's α (interval, on scores): quality {alpha:.3f} over 2 instances." in panel
