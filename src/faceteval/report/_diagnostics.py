"""The bias diagnostics and selective accuracy of a pairwise summary (``bias``, ``selective_accuracy``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from faceteval.report._format import (
    DASH,
    count,
    hits,
    interval_note,
    mapping,
    metric_interval,
    percent,
    value_of,
)
from faceteval.report._model import Section, Table, numeric_columns

BIAS_NOTE = (
    "Preference rates count decisive verdicts only: a tie prefers neither candidate and is left out; "
    "both rates are over the instances the judge gave a verdict on (a tie included, failed judgments "
    "left out). An unbiased judge is close to the humans' rate."
)
_ORDER_NAMES = {
    "1,2": "shown first, original order",
    "2,1": "shown first, swapped order",
    "pooled": "shown first, both orders",
}


def bias_rows(bias: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(what, judge rate, humans' rate)`` for each bias rate of a summary's ``bias``."""
    rows: list[tuple[str, Any, Any]] = []
    for order, rates in mapping(bias.get("position")).items():
        rates = mapping(rates)
        rows.append((f"Position: {_ORDER_NAMES.get(order, order)}", rates.get("judge"), rates.get("human")))
    length = mapping(bias.get("length"))
    if length:
        rows.append(
            (f"Length: the longer ({length.get('unit', 'characters')})", length["judge"], length["human"])
        )
    own = mapping(bias.get("self_preference"))
    if own:
        names = ", ".join(str(name) for name in own.get("systems") or ())
        rows.append((f"Self-preference: its own output ({names})", own.get("judge"), own.get("human")))
    return rows


def bias(summary: Mapping[str, Any]) -> Section | None:
    """Position, length and self-preference rates of the judge next to the humans'."""
    diagnostics = mapping(summary.get("bias"))
    rows = bias_rows(diagnostics)
    if not rows:
        return None
    columns = ("Preference for", "Judge", "95% CI", "Judge hits / n", "Humans", "Humans hits / n")
    cells = tuple(
        (
            name,
            percent(value_of(judge)),
            metric_interval("rate", judge),
            hits(judge),
            percent(value_of(human)),
            hits(human),
        )
        for name, judge, human in rows
    )
    note = " ".join(filter(None, (BIAS_NOTE, interval_note(judge for _, judge, _ in rows))))
    tables = [Table(columns, cells, note=note, numeric=numeric_columns(1, len(columns) - 1))]
    bins = mapping(diagnostics.get("length")).get("bins") or []
    if bins:
        bin_rows = tuple(
            (
                f"{count(entry.get('low'))}-{count(entry.get('high'))}",
                percent(value_of(entry.get("agreement"))),
                metric_interval("rate", entry.get("agreement")),
                hits(entry.get("agreement")),
            )
            for entry in map(mapping, bins)
        )
        tables.append(
            Table(
                ("Length gap", "Agreement", "95% CI", "Hits / n"),
                bin_rows,
                title="Agreement by length difference (quartiles of |len a - len b|, characters)",
                numeric=numeric_columns(1, 3),
            )
        )
    return Section("bias", "Bias diagnostics", (), tuple(tables))


def selective(summary: Mapping[str, Any]) -> Section | None:
    """Agreement when abstaining on the least confident verdicts, at each coverage, with its range over
    the orders of tied confidences (a record written before the range: one order's rate and its CI)."""
    selective = mapping(summary.get("selective_accuracy"))
    rows = [mapping(row) for row in selective.get("coverages") or ()]
    if not rows:
        return None
    ranged = any("low" in mapping(row.get("agreement")) for row in rows)
    table = _ranged_table(rows) if ranged else _one_order_table(rows)
    ties = (
        "equal confidences have no order, so agreement is the expectation over every order of the tied "
        "verdicts at the cut, with the lowest and highest any order gives"
        if ranged
        else "equal confidences are ordered by the SHA-256 of the instance id (one order of the ties)"
    )
    notes = (
        f"{count(selective.get('with_confidence'))} of {count(selective.get('n'))} labelled verdicts have a "
        f"confidence (failed judgments have none and are abstained on first); {ties}.",
    )
    return Section("selective", "Selective accuracy", notes, (table,))


def _ranged_table(rows: list[Mapping[str, Any]]) -> Table:
    cells = []
    for row in rows:
        rate = mapping(row.get("agreement"))
        low, high = value_of(rate.get("low")), value_of(rate.get("high"))
        spread = DASH if low is None or high is None or low == high else f"{percent(low)}-{percent(high)}"
        cells.append((*_coverage_cells(row), percent(value_of(rate)), spread, count(row.get("tied_at_cut"))))
    columns = ("Coverage", "Kept", "Lowest confidence kept", "Agreement", "Range over tie orders")
    return Table((*columns, "Tied at cut"), tuple(cells), numeric=numeric_columns(1, 5))


def _one_order_table(rows: list[Mapping[str, Any]]) -> Table:
    cells = tuple(
        (
            *_coverage_cells(row),
            percent(value_of(row.get("agreement"))),
            metric_interval("rate", row.get("agreement")),
            hits(row.get("agreement")),
        )
        for row in rows
    )
    columns = ("Coverage", "Kept", "Lowest confidence kept", "Agreement", "95% CI", "Hits / n")
    note = interval_note(row.get("agreement") for row in rows)
    return Table(columns, cells, note=note, numeric=numeric_columns(1, 5))


def _coverage_cells(row: Mapping[str, Any]) -> tuple[str, str, str]:
    lowest = value_of(row.get("min_confidence"))
    return (
        percent(row.get("coverage"), 0),
        count(row.get("kept")),
        DASH if lowest is None else f"{lowest:.3f}",
    )
