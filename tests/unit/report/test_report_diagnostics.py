"""The report's bias diagnostics and selective accuracy, from a summary made of hand-made judgments."""

from __future__ import annotations

from faceteval.core import Instance, Judgment, OrderResult
from faceteval.metaeval import Settings, Target, join, summarize
from faceteval.report import render_html, render_markdown


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


def test_the_selective_section_shows_agreement_at_each_coverage() -> None:
    selective = section(render_markdown(summary()), "Selective accuracy")
    # confidences (margin on the run's 1-9 range, orders): 1 (wrong), 0.5625 (right), 0.5625 (wrong)
    assert "| Coverage | Kept | Lowest confidence kept | Agreement | 95% CI | Hits / n |" in selective
    assert "| 50% | 2 | 0.562 |" in selective
    assert "| 100% | 3 | 0.562 | 33.3% | — | 1 / 3 |" in selective
    assert "3 of 3 labelled verdicts have a confidence" in selective
    html = render_html(summary())
    assert "Bias diagnostics" in html and "Selective accuracy" in html


def test_no_sections_without_the_entries() -> None:
    markdown = render_markdown({"benchmark": "toy", "kind": "pairwise"})
    assert "Bias diagnostics" not in markdown and "Selective accuracy" not in markdown
