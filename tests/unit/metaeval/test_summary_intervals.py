"""A rate whose bootstrap collapses to a point (all hits or all misses) gets a binomial CI, in the
summary, the report and on the terminal alike."""

from __future__ import annotations

from typing import Any

import pytest

from faceteval.core import Instance, Judgment
from faceteval.metaeval import Settings, Target, join, summarize
from faceteval.report import render_markdown


def summary_of(instances: list[Instance], judgments: list[Judgment]) -> dict[str, Any]:
    target = Target(name="toy", kind="pairwise", instances=tuple(instances))
    return summarize(target, join(instances, judgments), judge="toy", settings=Settings(resamples=200))


def test_an_all_miss_category_has_a_binomial_interval_not_a_point() -> None:
    instances = [
        Instance(id=f"p{k}", query="q", candidates=("a", "b"), label=1, category="easy" if k < 5 else "hard")
        for k in range(8)
    ]
    judgments = [Judgment(id=f"p{k}", method="m", status="ok", verdict=1 if k < 5 else 2) for k in range(8)]
    summary = summary_of(instances, judgments)
    hard = summary["by_category"]["hard"]["agreement"]
    assert (hard["hits"], hard["n"], hard["ci_method"]) == (0, 3, "clopper-pearson")
    assert hard["ci"] == pytest.approx([0.0, 0.7076], abs=1e-4)
    easy = summary["by_category"]["easy"]["agreement"]
    assert (easy["hits"], easy["n"], easy["ci_method"]) == (5, 5, "clopper-pearson")
    assert easy["ci"] == pytest.approx([0.4782, 1.0], abs=1e-4)
    assert summary["agreement"]["ci_method"] == "bootstrap"  # 5 of 8: the bootstrap has a spread
    categories = render_markdown(summary).split("## By category")[1].split("\n## ")[0]
    assert "| hard | 0.0% | [0.0%, 70.8%] ‡ | 0 / 3 |" in categories
    assert "‡ Exact binomial (Clopper-Pearson) 95% CI" in categories
    headline = render_markdown(summary).split("## Headline")[1].split("\n## ")[0]
    assert "‡" not in headline
