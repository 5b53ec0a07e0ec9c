"""A report names a sweep as the method's spec does: fennec's, a registered method's, or the default."""

from __future__ import annotations

from typing import Any

import pytest

import faceteval.methods._registry as registry
from faceteval.methods import MethodOption, MethodSpec, Sweep, register_method
from faceteval.methods.baselines import Direct
from faceteval.report import render_html, render_markdown
from tests.unit.report.runs import pairwise_summary


def section(markdown: str, title: str) -> str:
    start = markdown.index(f"## {title}\n")
    end = markdown.find("\n## ", start + 1)
    return markdown[start : end if end != -1 else None]


def swept_by(name: str) -> dict[str, Any]:
    summary = pairwise_summary()
    summary["method"] = {"name": name, "params": {}}
    return summary


def test_fennecs_sweep_is_the_branch_number_sweep() -> None:
    sweep = section(render_markdown(swept_by("fennec")), "Branch-number sweep (criteria per query)")
    assert "| Criteria | Dir | Agreement | Agreement 95% CI |" in sweep
    assert "| 5 | runs/k5 | 74.0% | [65.0%, 83.0%] |" in sweep
    assert "Metrics against the number of criteria (branches)" in render_html(swept_by("fennec"))


def test_a_method_the_registry_does_not_know_gets_the_aspect_count_sweep() -> None:
    sweep = section(render_markdown(swept_by("not-installed-here")), "Aspect-count sweep")
    assert "| Aspects | Dir | Agreement | Agreement 95% CI |" in sweep
    assert "Metrics against the number of aspects" in render_html(swept_by("not-installed-here"))


def test_a_registered_method_names_its_own_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    rounds = Sweep(help="h", title="Round-count sweep", column="Rounds", axis="rounds", prefix="rounds")
    option = MethodOption(param="rounds", help="h", flag="--rounds", type=int, default=1, sweep=rounds)
    register_method(MethodSpec(name="rounds", factory=Direct, summary="s", scale=(1, 10), options=(option,)))
    markdown = render_markdown(swept_by("rounds"))
    assert "| Rounds | Dir | Agreement | Agreement 95% CI |" in section(markdown, "Round-count sweep")
    assert "Metrics against the number of rounds" in render_html(swept_by("rounds"))
