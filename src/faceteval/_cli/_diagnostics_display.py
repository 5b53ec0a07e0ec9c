"""What ``meta-eval`` prints of a pairwise judge's biases, selective accuracy and calibration, after its
headline table."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from faceteval._cli._console import Console, escape
from faceteval._util.numbers import NO_SPREAD, flat
from faceteval._util.text import plural
from faceteval.report.internal import BIAS_NOTE, bias_rows

console = Console(highlight=False, soft_wrap=True, emoji=False)


def show_diagnostics(summary: dict[str, Any]) -> None:
    """The bias table (judge vs humans), agreement by length gap, selective accuracy and the calibration of
    confidence, when present."""
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
    if coverages := (summary.get("selective_accuracy") or {}).get("coverages"):
        _selective_table(coverages)
    if line := calibration_line(summary.get("calibration") or {}):
        console.print(line)


def _selective_table(coverages: list[dict[str, Any]]) -> None:
    """Agreement at each coverage; in a record written before the range, the one order's rate."""
    table = Table(title="selective accuracy: abstaining on the least confident", title_justify="left")
    for column in ("coverage", "agreement", "over tie orders", "tied at cut", "kept"):
        table.add_column(column, justify="right")
    for row in coverages:
        rate = row.get("agreement") or {}
        low, high = rate.get("low"), rate.get("high")
        spread = "" if low is None or high is None or low == high else f"{100 * low:.1f}-{100 * high:.1f}"
        tied = row.get("tied_at_cut")
        table.add_row(
            f"{100 * row['coverage']:.0f}%",
            _percent(rate.get("value")),
            spread,
            "" if tied is None else f"{tied:,}",
            f"{row.get('kept', 0):,}",
        )
    console.print(table)


def calibration_line(calibration: dict[str, Any]) -> str | None:
    """The calibration of confidence in one line: its estimator, AUROC, ECE and largest tied share.

    Examples:
        >>> calibration_line({"estimator": "signals", "auroc": 0.671, "ece": 0.15, "n": 319,
        ...     "tied_shares": [{"confidence": 1.0, "n": 294, "share": 0.92}]})
        'confidence (signals): AUROC 0.671, ECE 0.150; 294 of 319 verdicts tied at 1.000'
    """
    if not calibration:
        return None
    auroc, ece = calibration.get("auroc"), calibration.get("ece")
    line = (
        f"confidence ({escape(str(calibration.get('estimator')))}): "
        f"AUROC {'n/a' if auroc is None else f'{auroc:.3f}'}, ECE {'n/a' if ece is None else f'{ece:.3f}'}"
    )
    if shares := calibration.get("tied_shares"):
        top = shares[0]
        value = "no confidence" if top.get("confidence") is None else f"{top['confidence']:.3f}"
        line += f"; {top.get('n', 0):,} of {plural(calibration.get('n', 0), 'verdict')} tied at {value}"
    return line


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
    if flat(ci):
        return NO_SPREAD
    return f"{100 * ci[0]:.1f}-{100 * ci[1]:.1f}" if ci and None not in ci else ""
