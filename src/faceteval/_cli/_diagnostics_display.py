"""What ``meta-eval`` prints of a pairwise judge's biases and selective accuracy, after its headline table."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from faceteval._cli._console import Console, escape
from faceteval.report.internal import BIAS_NOTE, bias_rows

console = Console(highlight=False, soft_wrap=True, emoji=False)


def show_diagnostics(summary: dict[str, Any]) -> None:
    """The bias table (judge vs humans), agreement by length gap, and selective accuracy, when present."""
    bias: dict[str, Any] = summary.get("bias") or {}
    if rows := bias_rows(bias):
        table = Table(title="bias: preference rates, judge vs humans", title_justify="left")
        for column in ("preference for", "judge", "95% CI", "humans", "count"):
            table.add_column(column, justify="left" if column == "preference for" else "right")
        for name, judge, human in rows:
            judge, human = judge or {}, human or {}
            table.add_row(
                escape(name),
                _percent(judge.get("value")),
                _ci(judge),
                _percent(human.get("value")),
                f"{judge.get('hits', 0):,} / {judge.get('n', 0):,}",
            )
        console.print(table)
        console.print(BIAS_NOTE)
    if bins := (bias.get("length") or {}).get("bins") or []:
        _agreement_table(
            "agreement by length gap (characters, quartiles)",
            "|len a - len b|",
            [(f"{entry['low']:,}-{entry['high']:,}", entry["agreement"]) for entry in bins],
        )
    selective = summary.get("selective_accuracy") or {}
    if coverages := selective.get("coverages"):
        _agreement_table(
            "selective accuracy: abstaining on the least confident",
            "coverage",
            [(f"{100 * row['coverage']:.0f}%", row["agreement"]) for row in coverages],
        )


def _agreement_table(title: str, first: str, rows: list[tuple[str, dict[str, Any]]]) -> None:
    """A table of agreement rates, one row per subset (a length-gap bin, a coverage)."""
    table = Table(title=title, title_justify="left")
    for column in (first, "agreement", "95% CI", "count"):
        table.add_column(column, justify="right")
    for label, rate in rows:
        table.add_row(label, _percent(rate["value"]), _ci(rate), f"{rate['hits']:,} / {rate['n']:,}")
    console.print(table)


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def _ci(rate: dict[str, Any]) -> str:
    ci = rate.get("ci")
    return f"{100 * ci[0]:.1f}-{100 * ci[1]:.1f}" if ci and None not in ci else ""
