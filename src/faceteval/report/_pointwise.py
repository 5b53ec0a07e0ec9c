"""Correlation and inter-rater tables of a pointwise summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from faceteval._util.numbers import number
from faceteval.report._format import DASH, count, decimal, interval, metric_name, value_of
from faceteval.report._model import Section, Table, numeric_columns
from faceteval.report._sections import mapping

LEVELS = ("sample", "summary", "system")
METHODS = ("pearson", "spearman", "kendall")
SIGNIFICANCE = 0.05
_SYSTEM_COLUMNS = ("System", "n", "Judge mean", "Reference mean", "Judge rank", "Reference rank")
_ALPHA_COLUMNS = {"annotators": "Annotators", "annotators_and_judge": "Annotators + judge", "value": "Value"}


def _ordered(keys: list[str], preferred: tuple[str, ...]) -> list[str]:
    return [key for key in preferred if key in keys] + [key for key in keys if key not in preferred]


def correlations(summary: Mapping[str, Any]) -> Section | None:
    """Judge-human correlation per aspect and level, for each method."""
    aspects = {str(name): mapping(levels) for name, levels in mapping(summary.get("correlations")).items()}
    entries = [
        (aspect, level, mapping(levels[level]))
        for aspect, levels in aspects.items()
        for level in _ordered(list(levels), LEVELS)
    ]
    methods = _ordered(list(dict.fromkeys(m for _, _, by_method in entries for m in by_method)), METHODS)
    if not entries or not methods:
        return None
    rows = tuple(
        (aspect, str(level), _size(by_method), *(_coefficient(by_method.get(m)) for m in methods))
        for aspect, level, by_method in entries
    )
    columns = ("Aspect", "Level", "n", *(metric_name(m) for m in methods))
    note = f"Each cell: coefficient [95% CI]; † marks p ≥ {SIGNIFICANCE}."
    table = Table(columns, rows, note=note, numeric=numeric_columns(2, 1 + len(methods)))
    reference = str(summary.get("reference") or "humans")
    heading = "Correlation with human scores" if reference == "humans" else f"Correlation with {reference}"
    left_out = [f"{aspect}: {count(n)}" for aspect, n in mapping(summary.get("unjudged")).items()]
    notes = (
        (f"Left out for want of a judge score (failed or missing judgments): {', '.join(left_out)}.",)
        if left_out
        else ()
    )
    return Section("correlations", heading, notes, (table,))


def _size(by_method: Mapping[str, Any]) -> str:
    sizes = (mapping(entry).get("n") for entry in by_method.values())
    return next((count(n) for n in sizes if number(n) is not None), DASH)


def _coefficient(entry: Any) -> str:
    value = value_of(entry)
    if value is None:
        return DASH
    text = decimal(value)
    if (ci := interval(entry)) is not None:
        text += f" [{decimal(ci[0])}, {decimal(ci[1])}]"
    p = number(mapping(entry).get("p_value"))
    return text + " †" if p is not None and p >= SIGNIFICANCE else text


def systems(summary: Mapping[str, Any]) -> Section | None:
    """Each system's mean judge and reference score and its rank by each, one table per aspect."""
    reference = str(summary.get("reference") or "humans")
    tables = tuple(
        Table(
            _SYSTEM_COLUMNS,
            tuple(_system_row(mapping(row)) for row in rows),
            title=str(aspect),
            numeric=numeric_columns(1, len(_SYSTEM_COLUMNS) - 1),
        )
        for aspect, rows in mapping(summary.get("systems")).items()
        if isinstance(rows, Sequence) and not isinstance(rows, str) and rows
    )
    if not tables:
        return None
    note = (
        f"Reference: {reference}. Mean score of each system's outputs by the judge and by the reference, "
        "best reference mean first; rank 1 is the best, tied means share the best rank of their group."
    )
    return Section("systems", "Systems: mean scores and ranks", (note,), tables)


def _system_row(row: Mapping[str, Any]) -> tuple[str, ...]:
    return (
        str(row.get("system", DASH)),
        count(row.get("n")),
        decimal(row.get("judge")),
        decimal(row.get("reference")),
        count(row.get("judge_rank")),
        count(row.get("reference_rank")),
    )


def alpha(summary: Mapping[str, Any]) -> Section | None:
    """Krippendorff's alpha among the reference annotators, and with the judge as one more rater."""
    rows: list[tuple[str, str, dict[str, Any]]] = []
    for aspect, measures in mapping(summary.get("alpha")).items():
        if not isinstance(measures, Mapping):
            rows.append((str(aspect), "alpha", {"value": measures}))
            continue
        for measure, values in measures.items():
            cells = dict(values) if isinstance(values, Mapping) else {"value": values}
            rows.append((str(aspect), str(measure), cells))
    keys = _ordered(list(dict.fromkeys(key for _, _, cells in rows for key in cells)), tuple(_ALPHA_COLUMNS))
    if not rows:
        return None
    columns = ("Aspect", "Measure", *(_ALPHA_COLUMNS.get(key, metric_name(key)) for key in keys))
    body = tuple(
        (aspect, metric_name(measure), *(decimal(value_of(cells.get(key))) for key in keys))
        for aspect, measure, cells in rows
    )
    table = Table(columns, body, numeric=numeric_columns(2, len(keys)))
    return Section("alpha", "Inter-rater agreement (Krippendorff's α)", (), (table,))
