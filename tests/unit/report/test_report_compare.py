"""Markdown across runs: the paired comparison and the cost table."""

from __future__ import annotations

from faceteval.report import render_comparison, render_cost_table, render_markdown
from tests.unit.report.runs import pairwise_summary, pointwise_summary


def test_comparison_table_with_difference_ci_and_p_value() -> None:
    a = pairwise_summary()
    b = pairwise_summary() | {"judge": "dna:gpt-4o"}
    comparison = {
        "agreement": {
            "a": 0.725,
            "b": 0.76,
            "difference": 0.035,
            "ci": [-0.01, 0.08],
            "p_value": 0.1234,
            "method": "paired bootstrap",
            "n": 80,
        },
        "cohen_kappa": {"a": 0.45, "b": 0.5, "difference": 0.05, "p_value": 0.0001, "method": "bootstrap"},
        "consistency": {"difference": -0.02, "ci": [-0.05, 0.01], "p_value": None},
        "n_paired": 80,
    }
    markdown = render_comparison(a, b, comparison)
    assert markdown.startswith("# llmbar-natural × recorded:gpt-4 vs llmbar-natural × dna:gpt-4o\n")
    assert "| Metric | A | B | Difference | 95% CI | p-value | Test | n |" in markdown
    assert (
        "| Agreement | 72.5% | 76.0% | +3.5 pp | [-1.0 pp, +8.0 pp] | 0.123 | paired bootstrap | 80 |"
        in markdown
    )
    assert "| Cohen's κ | 0.450 | 0.500 | +0.050 | — | <0.001 | bootstrap | — |" in markdown
    # a and b absent from the comparison: taken from the summaries
    assert "| Swap consistency | 88.0% | 88.0% | -2.0 pp | [-5.0 pp, +1.0 pp] | — | — | — |" in markdown
    assert "*Difference = B − A.*" in markdown
    assert "- N paired: 80" in markdown


def test_comparison_copes_with_nothing() -> None:
    markdown = render_comparison({}, {}, {})
    assert "No metric to compare." in markdown
    nested = render_comparison({}, {}, {"metrics": {"agreement": {"a": 0.5, "b": 0.4}}})
    assert "| Agreement | 50.0% | 40.0% | -10.0 pp |" in nested


def test_cost_table_across_methods() -> None:
    direct = {
        "judge": "direct:gpt-4o",
        "benchmark": "llmbar",
        "n": 100,
        "usage": {
            "calls": 100,
            "cached_calls": 0,
            "input_tokens": 50000,
            "output_tokens": 5000,
            "cost_usd": 0.5,
        },
    }
    table = render_cost_table([pairwise_summary(), direct, pointwise_summary(), {}])
    lines = table.splitlines()
    assert lines[0].startswith("| Method | Benchmark | Instances | Calls |")
    recorded = (
        "| recorded:gpt-4 | llmbar-natural | 100 | 300 | 12 | 123,456 | 7,890 | $1.2345 | 3.0 | 1,313.5 |"
    )
    assert f"{recorded} $0.012345 |" in lines
    assert (
        "| direct:gpt-4o | llmbar | 100 | 100 | 0 | 50,000 | 5,000 | $0.5000 | 1.0 | 550.0 | $0.005000 |"
        in lines
    )
    assert (
        "| dna:openai:gpt-4o | summeval | 40 | 40 | 0 | 4,000 | 400 | unknown | 1.0 | 110.0 | unknown |"
        in lines
    )
    assert "| ? |   | — | — | — | — | — | — | — | — | — |" in lines
    named = render_cost_table({"DnA (ours)": direct})
    assert "| DnA (ours) | llmbar |" in named


def test_cost_per_instance_is_over_the_instances_with_a_judgment_as_its_note_says() -> None:
    usage = {"calls": 30, "cached_calls": 0, "input_tokens": 600, "output_tokens": 60, "cost_usd": 0.3}
    status = {"ok": 8, "parse_error": 1, "error": 1, "missing": 5}  # 10 with a judgment, 2 failed
    summary = {"judge": "old", "benchmark": "b", "n": 15, "status": status, "usage": usage}
    table = render_cost_table([summary])
    assert "| old | b | 15 | 30 | 0 | 600 | 60 | $0.3000 | 3.0 | 66.0 | $0.030000 |" in table
    assert "Per-instance figures divide by the instances with a judgment, failed ones included" in table
    assert "over judged instances" not in table
    markdown = render_markdown(
        {"n": 15, "status": status, "usage": {**usage, "per_instance": {"calls": 3.0}}}
    )
    assert "Per instance: over the 10 instances with a judgment, failed ones included." in markdown


def test_comparison_as_compare_runs_writes_it() -> None:
    """The shape of `faceteval.metaeval` comparisons: run descriptions, then metrics under ``metrics``."""
    comparison = {
        "a": {"dir": "runs/a", "judge": "direct:gpt-4o"},
        "b": {"dir": "runs/b", "judge": "dna:gpt-4o"},
        "benchmark": "summeval",
        "runs_paired": 1,
        "metrics": {
            "coherence.pearson": {
                "difference": 0.1,
                "p_value": 0.004,
                "significance": "***",
                "n": 40,
                "method": "paired bootstrap",
                "ci": [0.02, 0.18],
                "b01": None,
            },
        },
        "n": 40,
    }
    markdown = render_comparison({}, pointwise_summary(), comparison)
    assert markdown.startswith("# summeval × direct:gpt-4o vs summeval × dna:openai:gpt-4o\n")
    row = "| Coherence pearson | — | 0.512 | +0.100 | [+0.020, +0.180] | 0.004 \\*\\*\\* |"
    assert row + " paired bootstrap | 40 |" in markdown
    assert "- Runs paired: 1" in markdown
    assert "\n| A |" not in markdown  # the run descriptions are not metrics
