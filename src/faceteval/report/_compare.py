"""Markdown for comparing runs: a paired difference table, and a cost table across runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from faceteval._util.numbers import number
from faceteval.report._format import (
    DASH,
    count,
    dollars,
    escape_markdown,
    interval,
    is_fraction,
    metric_name,
    metric_value,
    p_value,
    value_of,
)
from faceteval.report._markdown import table_lines
from faceteval.report._model import Table, numeric_columns
from faceteval.report._sections import lookup, mapping, signed, title, with_judgment

_TOLERANCE = 1e-9
_RUNS = ("a", "b")
"""Keys of a comparison that describe the two runs rather than a metric."""


def _run_title(summary: Mapping[str, Any], comparison: Mapping[str, Any], side: str) -> str:
    """The run's ``benchmark × judge``, completed from the comparison's description of the run."""
    about = mapping(comparison.get(side))
    merged = {"benchmark": comparison.get("benchmark"), "judge": about.get("judge") or about.get("dir")}
    return title({**{k: v for k, v in merged.items() if v is not None}, **summary})


def render_comparison(
    a_summary: Mapping[str, Any], b_summary: Mapping[str, Any], comparison: Mapping[str, Any]
) -> str:
    """Markdown comparing two runs on the same instances: each metric, the paired difference, CI and p-value.

    Args:
        a_summary: The first run's summary.
        b_summary: The second run's summary.
        comparison: ``{metric: {a, b, difference, ci: [lo, hi], p_value, method, n}}``; any key may be
            absent (``a`` and ``b`` then come from the summaries), and entries that are not mappings are
            listed as notes.

    Examples:
        >>> text = render_comparison({"judge": "x"}, {"judge": "y"}, {"agreement": {"a": 0.7, "b": 0.75}})
        >>> "| Agreement | 70.0% | 75.0% |" in text
        True
    """
    entries = mapping(comparison.get("metrics")) or comparison
    metrics = {
        str(key): entry for key, entry in entries.items() if isinstance(entry, Mapping) and key not in _RUNS
    }
    a_title, b_title = _run_title(a_summary, comparison, "a"), _run_title(b_summary, comparison, "b")
    lines = [f"# {escape_markdown(a_title)} vs {escape_markdown(b_title)}", ""]
    lines += [f"- A: {escape_markdown(a_title)}", f"- B: {escape_markdown(b_title)}", ""]
    rows = tuple(_comparison_row(key, entry, a_summary, b_summary) for key, entry in metrics.items())
    if rows:
        columns = ("Metric", "A", "B", "Difference", "95% CI", "p-value", "Test", "n")
        numeric = (False, True, True, True, True, True, False, True)
        lines += table_lines(Table(columns, rows, note=_direction(metrics), numeric=numeric))
    else:
        lines += ["No metric to compare.", ""]
    extras = [(key, value) for key, value in comparison.items() if not isinstance(value, Mapping)]
    lines += [
        f"- {escape_markdown(metric_name(key))}: {escape_markdown(str(value))}" for key, value in extras
    ]
    return "\n".join(lines).rstrip() + "\n"


def _comparison_row(
    key: str, entry: Mapping[str, Any], a_summary: Mapping[str, Any], b_summary: Mapping[str, Any]
) -> tuple[str, ...]:
    a = number(entry["a"]) if "a" in entry else _summary_value(a_summary, key)
    b = number(entry["b"]) if "b" in entry else _summary_value(b_summary, key)
    difference = number(entry.get("difference"))
    if difference is None and a is not None and b is not None:
        difference = b - a
    ci = interval(entry)
    ci_text = DASH if ci is None else f"[{_signed(key, ci[0])}, {_signed(key, ci[1])}]"
    method = entry.get("method")
    return (
        metric_name(key),
        metric_value(key, a),
        metric_value(key, b),
        _signed(key, difference),
        ci_text,
        f"{p_value(entry.get('p_value'))} {entry.get('significance') or ''}".strip(),
        DASH if method is None else str(method),
        count(entry.get("n")),
    )


def _summary_value(summary: Mapping[str, Any], key: str) -> float | None:
    """A summary's metric: a top-level entry, a dotted path, or ``aspect.method`` (sample-level)."""
    value = value_of(lookup(summary, key))
    if value is None and "." in key:
        aspect, method = key.rsplit(".", 1)
        value = value_of(
            mapping(mapping(mapping(summary.get("correlations")).get(aspect)).get("sample")).get(method)
        )
    return value


def _signed(key: str, value: float | None) -> str:
    """A difference: percentage points for rates, three decimals for coefficients, with its sign."""
    if value is None:
        return DASH
    return signed(f"{100 * value:.1f} pp" if is_fraction(key) else f"{value:.3f}")


def _direction(metrics: Mapping[str, Mapping[str, Any]]) -> str | None:
    for entry in metrics.values():
        a, b, d = number(entry.get("a")), number(entry.get("b")), number(entry.get("difference"))
        if a is None or b is None or d is None or abs(a - b) < _TOLERANCE:
            continue
        if abs(d - (b - a)) < 1e-6:
            return "Difference = B − A."
        if abs(d - (a - b)) < 1e-6:
            return "Difference = A − B."
    return None


def render_cost_table(summaries: Sequence[Mapping[str, Any]] | Mapping[str, Mapping[str, Any]]) -> str:
    """A Markdown table of calls, tokens and dollars per run (in the style of DnA-Eval's Appendix E).

    Args:
        summaries: Run summaries, named by their ``method`` or ``judge`` key; or a mapping from the name
            to show to the summary.

    Examples:
        >>> usage = {"calls": 10, "input_tokens": 900, "output_tokens": 100, "cost_usd": 0.02}
        >>> print(render_cost_table({"dna": {"n": 5, "usage": usage}}).splitlines()[2])
        | dna |   | 5 | 10 | — | 900 | 100 | $0.0200 | 2.0 | 200.0 | $0.004000 |
    """
    return "\n".join(table_lines(cost_table(summaries))).rstrip() + "\n"


def cost_table(summaries: Sequence[Mapping[str, Any]] | Mapping[str, Mapping[str, Any]]) -> Table:
    """The rows of `render_cost_table`, for any writer."""
    named = (
        [(str(name), summary) for name, summary in summaries.items()]
        if isinstance(summaries, Mapping)
        else [(_run_name(summary), summary) for summary in summaries]
    )
    columns = (
        "Method",
        "Benchmark",
        "Instances",
        "Calls",
        "Cached calls",
        "Input tokens",
        "Output tokens",
        "Cost (USD)",
        "Calls / instance",
        "Tokens / instance",
        "Cost / instance",
    )
    rows = tuple(_cost_row(name, summary) for name, summary in named)
    note = (
        "Cost counts cached calls at their price. Per-instance figures divide by the instances with a "
        "judgment, failed ones included: every instance of the run unless some were not judged."
    )
    return Table(columns, rows, note=note, numeric=numeric_columns(2, 9))


def _run_name(summary: Mapping[str, Any]) -> str:
    for key in ("method", "judge"):
        value = summary.get(key)
        if isinstance(value, Mapping):  # a method run's description: {"name": "dna", "model": ...}
            value = value.get("name")
        if value not in (None, ""):
            return str(value)
    return "?"


def _cost_row(name: str, summary: Mapping[str, Any]) -> tuple[str, ...]:
    usage = mapping(summary.get("usage"))
    per = mapping(usage.get("per_instance"))
    n = with_judgment(summary)
    tokens = [number(usage.get(k)) for k in ("input_tokens", "output_tokens")]
    total_tokens = None if None in tokens else sum(t for t in tokens if t is not None)
    per_tokens = [number(per.get(k)) for k in ("input_tokens", "output_tokens")]
    if None not in per_tokens:
        tokens_each: float | None = sum(t for t in per_tokens if t is not None)
    else:
        tokens_each = None if total_tokens is None or not n else total_tokens / n
    calls_each = number(per.get("calls")) if "calls" in per else _ratio(usage.get("calls"), n)
    cost_each = number(per.get("cost_usd")) if "cost_usd" in per else _ratio(usage.get("cost_usd"), n)
    return (
        name,
        str(summary.get("benchmark") or ""),
        count(summary.get("n")),
        *(count(usage.get(k)) for k in ("calls", "cached_calls", "input_tokens", "output_tokens")),
        dollars(usage.get("cost_usd")) if "cost_usd" in usage else DASH,
        count(float(calls_each)) if calls_each is not None else DASH,
        count(float(tokens_each)) if tokens_each is not None else DASH,
        dollars(cost_each, 6) if "cost_usd" in per or "cost_usd" in usage else DASH,
    )


def _ratio(value: Any, n: float | None) -> float | None:
    x = number(value)
    return None if x is None or not n else x / n
