"""The Markdown report: the right numbers in the right tables, whatever the summary leaves out."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from faceteval.core import Judgment, OrderResult, TraceEntry
from faceteval.report import render_markdown
from tests.unit.report.runs import (
    HOSTILE,
    pairwise_records,
    pairwise_summary,
    pointwise_records,
    pointwise_summary,
    rate,
)


def section(markdown: str, title: str) -> str:
    """The text of one ``## title`` section."""
    start = markdown.index(f"## {title}\n")
    end = markdown.find("\n## ", start + 1)
    return markdown[start : end if end != -1 else None]


def test_title_and_headline_table() -> None:
    markdown = render_markdown(pairwise_summary())
    assert markdown.startswith("# llmbar-natural × recorded:gpt-4\n")
    headline = section(markdown, "Headline")
    assert "| Metric | Value | 95% CI | Hits / n | No verdict |" in headline
    assert "| Agreement | 72.5% | [62.5%, 81.2%] | 58 / 80 | 4 |" in headline
    assert "| Agreement without ties | 80.0% | [70.0%, 90.0%] | 56 / 70 | 0 |" in headline
    assert "| Cohen's κ | 0.451 | — | — | — |" in headline
    assert "| Agreement, original order | 74.0% |" in headline
    assert "| Agreement, swapped order | 70.0% |" in headline
    assert "| Accuracy, mean of both orders | 72.0% | — | 144 / 200 | 0 |" in headline
    assert "| Swap consistency | 88.0% | [81.0%, 94.0%] | 88 / 100 | 0 |" in headline


def test_status_counts_parse_errors_and_failures() -> None:
    status = section(render_markdown(pairwise_summary()), "Status")
    for row in ("| Judged | 96 |", "| Parse errors | 3 |", "| Failed | 1 |", "| Not judged | 0 |"):
        assert row in status
    outside = "| Of instances outside the sample (--limit, --turn, --category): left out on purpose | 90 |"
    assert outside in status
    assert "| Of no instance of llmbar-natural: ids such as 'x\\|1', '&lt;b&gt;y&lt;/b&gt;' | 2 |" in status


def test_an_older_summary_counts_both_kinds_of_unmeasured_judgments_together() -> None:
    summary = pairwise_summary()
    del summary["judgments_outside_sample"], summary["unmatched_examples"]
    status = section(render_markdown(summary), "Status")
    both = "| Of no instance measured (outside the sample, or of no instance of llmbar-natural) | 2 |"
    assert both in status
    assert "left out on purpose" not in status


def test_measured_next_to_reported_with_a_check_when_equal_to_three_decimals() -> None:
    summary = pairwise_summary()
    summary["agreement"]["value"] = 0.72549  # 0.725 to 3 decimals: a match
    reported = section(render_markdown(summary), "Measured vs reported")
    assert "| Agreement | 72.55% | 72.50% | +0.05 pp | ✓ |" in reported
    assert "| Swap consistency | 88.00% | 90.00% | -2.00 pp | ✗ |" in reported


def test_reported_key_the_summary_lacks_is_shown_without_a_verdict() -> None:
    summary = pairwise_summary()
    summary["reported"] = {"votes.with_ties": 0.66, "agreement": {"value": 0.7}}
    reported = section(render_markdown(summary), "Measured vs reported")
    assert "| MT-Bench votes, with ties | — | 66.00% | — | — |" in reported
    assert "| Agreement | 72.50% | 70.00% | +2.50 pp | ✗ |" in reported


def test_categories_confusion_and_facet_weights() -> None:
    markdown = render_markdown(pairwise_summary())
    categories = section(markdown, "By category")
    assert "| Natural | 80.0% | [68.0%, 90.0%] | 40 / 50 |" in categories
    assert "| Adver\\|sarial | 60.0% | [43.0%, 77.0%] | 18 / 30 |" in categories
    confusion = section(markdown, "Confusion matrix")
    assert "| Human ↓ / judge → | 1 | 2 | tie | Total |" in confusion
    assert "| 2 | 6 | 28 | 1 | 35 |" in confusion
    assert "| Total | 39 | 37 | 8 | 84 |" in confusion
    facets = section(markdown, "Facet weights")
    assert facets.index("| (all) | accuracy | 42.0% | 90 |") < facets.index(
        "| Natural | accuracy | 50.0% | 50 |"
    )
    assert "| (all) | harmlessness | 5.0% | 10 |" in facets


def test_top_facets_keeps_the_most_used() -> None:
    facets = section(render_markdown(pairwise_summary(), top_facets=1), "Facet weights")
    assert "accuracy" in facets
    assert "helpfulness" not in facets
    assert "clarity" not in facets


def test_usage_sweep_and_repeats() -> None:
    markdown = render_markdown(pairwise_summary())
    usage = section(markdown, "Usage and cost")
    assert "| Total | 300 | 12 | 123,456 | 7,890 | $1.2345 |" in usage
    assert "| Per instance | 3.0 | — | 1,234.6 | 78.9 | $0.012345 |" in usage
    sweep = section(markdown, "Aspect-count sweep")
    assert "| 5 | runs/k5 | 74.0% | [65.0%, 83.0%] |" in sweep
    repeats = section(markdown, "Repeated runs")
    assert "Seeds: 0, 1, 2." in repeats
    assert "| Agreement | 72.33% | 1.25% | 71.00% | 73.50% | 3 |" in repeats


def test_usage_says_cached_calls_count_at_their_price_and_shows_what_was_spent() -> None:
    summary = pairwise_summary()
    usage = " ".join(section(render_markdown(summary), "Usage and cost").split())
    assert "Total and Per instance count the cached calls at their price, as if made" in usage
    assert "What a run spent is in its summary on the terminal and in judgments.run.json." in usage
    assert "Calls made" not in usage
    made = {"calls": 288, "input_tokens": 120000, "output_tokens": 7000, "cost_usd": 1.2}
    summary["usage"]["made"] = made
    usage = " ".join(section(render_markdown(summary), "Usage and cost").split())
    assert "| Calls made (spent) | 288 | 0 | 120,000 | 7,000 | $1.2000 |" in usage
    assert "Calls made is what was spent." in usage
    summary["usage"]["cached_calls"] = 0
    usage = " ".join(section(render_markdown(summary), "Usage and cost").split())
    assert "No call was answered from the response cache: the cost is what was spent." in usage
    assert "Calls made" not in usage


def test_examples_show_disagreements_escaped_for_tables() -> None:
    instances, judgments = pairwise_records()
    examples = section(render_markdown(pairwise_summary(), instances, judgments), "Examples of disagreement")
    assert "### Example 1: p2" in examples
    assert "Example 2" not in examples  # p1 and p3 agree; p4 failed to parse
    assert "| Query | What? &lt;script&gt;alert(1)&lt;/script&gt; \\| a b |" in examples
    assert "| Human label | 2 |" in examples
    assert "| Judge verdict | 1 |" in examples
    assert "| Same verdict in both orders | no |" in examples
    assert "| accuracy | 0.60 | 8.00, 3.00 | Because &lt;script&gt;" in examples
    assert "<script" not in examples
    assert_tables_are_rectangular(examples)


def assert_tables_are_rectangular(markdown: str) -> None:
    """Every row of each table has as many cells as its header: no pipe or newline broke a row."""
    widths: list[int] = []
    for line in [*markdown.splitlines(), ""]:
        if line.startswith("|"):
            widths.append(len(re.findall(r"(?<!\\)\|", line)))
        elif widths:
            assert len(set(widths)) == 1, widths
            widths = []


def test_failures_name_each_instance_its_status_and_error() -> None:
    instances, judgments = pairwise_records()
    markdown = render_markdown(pairwise_summary(), instances, judgments)
    failures = section(markdown, "Failures")
    assert "1 failed or unreadable, 0 not judged: each counts as a disagreement." in failures
    assert "| p4 | parse error | no verdict found |" in failures
    assert "| p1 |" not in failures and "more" not in failures
    assert markdown.index("## Status") < markdown.index("## Failures") < markdown.index("## Measured")
    assert "## Failures" not in render_markdown(pairwise_summary(), instances[:3], judgments[:3])


def test_failures_list_ten_escaped_and_cut_short_then_say_how_many_more() -> None:
    instances, _ = pairwise_records()
    many = [instances[0].model_copy(update={"id": f"f{k}"}) for k in range(14)]
    error = f"HTTP 500: {HOSTILE} " + "x" * 400
    judgments = [
        *(Judgment(id=f"f{k}", method="dna", status="error", error=error) for k in range(12)),
        Judgment(id="f12", method="dna", status="ok", verdict=1),
    ]  # f13 has no judgment
    failures = section(render_markdown(pairwise_summary(), many, judgments), "Failures")
    assert "12 failed or unreadable, 1 not judged" in failures
    rows = [line for line in failures.splitlines() if line.startswith("| f")]
    assert len(rows) == 10 and rows[0].startswith("| f0 | error | HTTP 500: &lt;script&gt;alert(1)")
    assert all(row.endswith("… |") and len(row) < 220 for row in rows)
    assert "And 3 more, of 13" in failures
    assert "<script" not in failures
    assert_tables_are_rectangular(failures)
    unjudged = section(render_markdown(pairwise_summary(), many, judgments[:12]), "Failures")
    assert "| f13 | not judged | no judgment of this instance |" not in unjudged  # past the first ten
    assert "12 failed or unreadable, 2 not judged" in unjudged


def test_examples_can_be_turned_off_and_long_queries_are_truncated() -> None:
    instances, judgments = pairwise_records()
    long = instances[1].model_copy(update={"query": "word " * 200})
    markdown = render_markdown(pairwise_summary(), [instances[0], long], judgments)
    query = next(line for line in markdown.splitlines() if line.startswith("| Query |"))
    assert len(query) < 320
    assert query.endswith("… |")
    assert "Examples" not in render_markdown(pairwise_summary(), instances, judgments, examples=0)


def test_verdicts_against_labels_from_the_records() -> None:
    instances, judgments = pairwise_records()
    table = section(render_markdown(pairwise_summary(), instances, judgments), "Judge vs human distributions")
    assert "| 1 | 1 | 2 |" in table
    assert "| tie | 1 | 0 |" in table
    assert "| no verdict | 0 | 1 |" in table
    assert "| Human-preferred candidates | 3 | 6.73 |" in table


def test_pointwise_correlations_alpha_and_examples() -> None:
    instances, judgments = pointwise_records()
    markdown = render_markdown(pointwise_summary(), instances, judgments)
    correlations = section(markdown, "Correlation with human scores")
    assert "| Aspect | Level | n | Pearson | Spearman | Kendall |" in correlations
    assert "| coherence | sample | 40 | 0.512 [0.401, 0.610] | 0.488 | 0.391 † |" in correlations
    assert "| coherence | system | 4 | 0.900 | 0.800 | 0.667 |" in correlations
    alpha = section(markdown, "Inter-rater agreement (Krippendorff's α)")
    assert "| coherence | Interval | 0.610 | 0.550 | — |" in alpha
    assert "| coherence | Average pairwise pearson annotators | — | — | 0.700 |" in alpha
    assert "| Total | 40 | 0 | 4,000 | 400 | unknown |" in markdown
    examples = section(markdown, "Examples of disagreement")
    assert "### Example 1: s5" in examples
    assert "| Human score | 1.00 |" in examples
    assert "| Judge score | 9.00 |" in examples
    assert "| Judge's reply | Great summary. &lt;script&gt;x&lt;/script&gt; Score: 9 |" in examples
    assert "Example 2" not in examples
    assert "Agreement" not in markdown


def test_an_almost_empty_summary_still_reports_its_status() -> None:
    markdown = render_markdown({"benchmark": "b"})
    assert markdown.startswith("# b\n")
    status = section(markdown, "Status")
    assert "The summary records no status counts." in status
    assert "| Parse errors | — |" in status
    assert "## Headline" not in markdown
    assert render_markdown({}).startswith("# Meta-evaluation report\n")


@pytest.mark.parametrize(
    "confusion",
    [
        {"labels": [1, 2, 0], "matrix": [[30, 5, 2], [6, 28, 1], [3, 4, 5]]},
        {"rows": ["1", "2", "0"], "columns": [1, 2, 0], "counts": [[30, 5, 2], [6, 28, 1], [3, 4, 5]]},
        {"1": {"1": 30, "2": 5, "0": 2}, "2": {"1": 6, "2": 28, "0": 1}, "0": {"1": 3, "2": 4, "0": 5}},
        {
            "matrix": {
                "2": {"2": 28, "1": 6, "0": 1},
                "1": {"1": 30, "2": 5, "0": 2},
                "0": {"0": 5, "1": 3, "2": 4},
            }
        },
        [
            {"human": h, "judge": j, "count": c}
            for h, row in zip([1, 2, 0], [[30, 5, 2], [6, 28, 1], [3, 4, 5]], strict=True)
            for j, c in zip([1, 2, 0], row, strict=True)
        ],
    ],
)
def test_confusion_shapes(confusion: Any) -> None:
    summary = {"confusion": confusion}
    table = section(render_markdown(summary), "Confusion matrix")
    assert "| Human ↓ / judge → | 1 | 2 | tie | Total |" in table
    assert "| 1 | 30 | 5 | 2 | 37 |" in table
    assert "| tie | 3 | 4 | 5 | 12 |" in table


def test_confusion_with_no_verdict_column_and_unlabelled_matrices() -> None:
    with_none = {"labels": {"rows": [1, 2], "columns": [1, 2, None]}, "matrix": [[3, 1, 1], [0, 4, 2]]}
    assert "| Human ↓ / judge → | 1 | 2 | no verdict | Total |" in render_markdown({"confusion": with_none})
    assert "| 0 | 1 | 2 | 3 |" in render_markdown({"confusion": [[1, 2], [3, 4]]})
    as_metrics_writes_it = {
        "rows": ["1", "2", "tie"],
        "columns": ["1", "2", "tie", "none"],
        "matrix": [[5, 1, 0, 1], [2, 4, 0, 0], [1, 1, 1, 2]],
    }
    table = section(render_markdown({"confusion": as_metrics_writes_it}), "Confusion matrix")
    assert "| Human ↓ / judge → | 1 | 2 | tie | no verdict | Total |" in table
    assert "| tie | 1 | 1 | 1 | 2 | 5 |" in table
    for junk in ("n/a", {}, {"matrix": "x"}, [[]], {"a": 1}, None):
        assert "Confusion" not in render_markdown({"confusion": junk})


def test_wrong_types_are_shown_as_absent_not_raised() -> None:
    summary: dict[str, Any] = {
        "benchmark": "b|x",
        "judge": "j",
        "status": {"ok": "many"},
        "agreement": {"value": "high", "hits": None, "n": 3, "ci": [0.1]},
        "cohen_kappa": {"value": float("nan")},
        "by_category": {"c": {"agreement": 0.5}, "d": "oops"},
        "facet_weights": {"(all)": {"x": 0.3, "y": {"mean": None}}, "bad": []},
        "usage": {"calls": None},
        "sweep": "none",
        "repeats": {"seeds": 3, "agreement": {"values": ["a"]}},
        "correlations": {"coherence": {"sample": {"pearson": 0.4}}, "fluency": "x"},
        "alpha": {"coherence": 0.2},
        "reported": {"agreement": "?"},
    }
    markdown = render_markdown(summary)
    assert markdown.startswith("# b\\|x × j\n")
    assert "| Agreement | — | — | 3 | — |" in markdown
    assert "| Cohen's κ | — | — | — | — |" in markdown
    assert "| c | 50.0% | — | — |" in markdown
    assert "| coherence | sample | — | 0.400 |" in markdown
    assert "| coherence | Alpha | 0.200 |" in markdown
    assert "| (all) | x | 30.0% | — |" in markdown
    assert "| Agreement | — | — | — | — | 0 |" in markdown


def test_same_inputs_same_markdown() -> None:
    instances, judgments = pairwise_records()
    first = render_markdown(pairwise_summary(), instances, judgments)
    again = render_markdown(copy.deepcopy(pairwise_summary()), list(instances), list(judgments))
    assert first == again
    assert_tables_are_rectangular(first)


def test_headline_includes_unknown_rate_entries_and_mt_bench_votes() -> None:
    summary = {
        "agreement": rate(0.5, 1, 2),
        "brier_agreement": rate(0.25, 1, 4, (0.1, 0.4)),
        "votes": {"with_ties": rate(0.66, 66, 100), "without_ties": rate(0.85, 85, 100)},
    }
    headline = section(render_markdown(summary), "Headline")
    assert "| Brier agreement | 25.0% | [10.0%, 40.0%] | 1 / 4 | 0 |" in headline
    assert "| MT-Bench votes, with ties | 66.0% | — | 66 / 100 | 0 |" in headline
    assert "| MT-Bench votes, without ties | 85.0% |" in headline


def test_excluded_items_get_a_column_when_a_metric_left_some_out() -> None:
    without_ties = rate(0.846, 727, 859) | {"excluded": 484}
    headline = section(render_markdown({"agreement_without_ties": without_ties, "n": 1343}), "Headline")
    assert "Instances: 1,343." in headline
    assert "| Metric | Value | 95% CI | Hits / n | No verdict | Excluded |" in headline
    assert "| Agreement without ties | 84.6% | — | 727 / 859 | 0 | 484 |" in headline


def test_an_exact_match_has_no_sign_and_recorded_runs_say_they_made_no_calls() -> None:
    summary = {"agreement": rate(0.5496, 1, 2), "reported": {"agreement": 0.54960001}, "usage": {"calls": 0}}
    markdown = render_markdown(summary)
    assert "| Agreement | 54.96% | 54.96% | 0.00 pp | ✓ |" in markdown
    assert "No LLM calls were made" in markdown


def test_an_example_judged_in_both_orders_shows_the_original_orders_reply() -> None:
    instances, judgments = pairwise_records()
    swapped = Judgment(
        id="p3",
        method="direct",
        status="ok",
        verdict=1,
        scores=[6.0, 4.0],
        consistent=True,
        orders=[OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=1)],
        trace=[
            TraceEntry(stage="direct", messages=[], raw="8 4 (as shown)", order=[1, 2]),
            TraceEntry(stage="direct", messages=[], raw="4 8 (swapped)", order=[2, 1]),
        ],
    )
    judgments = [swapped if j.id == "p3" else j for j in judgments]
    examples = section(render_markdown(pairwise_summary(), instances, judgments), "Examples of disagreement")
    assert "| Judge's reply, original order | 8 4 (as shown) |" in examples
    assert "swapped)" not in examples
