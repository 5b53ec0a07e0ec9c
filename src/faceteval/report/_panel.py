"""A judge panel's section: each judge beside the panel, and how far the judges agree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from faceteval.report._format import DASH, decimal, interval, mapping, metric_name, percent, value_of
from faceteval.report._model import Section, Table, numeric_columns
from faceteval.report._pointwise import LEVELS, METHODS, SIGNIFICANCE, _coefficient, _ordered, _size


def panel(summary: Mapping[str, Any]) -> Section | None:
    """The panel's members with their agreement (pairwise) or correlations (pointwise), then the
    panel's own, and Krippendorff's alpha among the judges."""
    found = summary.get("panel")
    if not isinstance(found, Mapping) or not isinstance(found.get("judges"), list):
        return None
    if summary.get("kind") == "pointwise":
        return _score_panel(summary, found)
    rows = [
        (str(member.get("judge")), *_cells(member.get("agreement")))
        for member in found["judges"]
        if isinstance(member, Mapping)
    ]
    rows.append((f"panel ({found.get('vote')})", *_cells(summary.get("agreement"))))
    table = Table(("Judge", "Agreement", "95% CI", "Count"), tuple(rows), numeric=numeric_columns(1, 3))
    alpha, unanimous = mapping(found.get("alpha")), mapping(found.get("unanimous"))
    note = (
        f"Agreement among the judges: Krippendorff's α (nominal, on verdicts) {decimal(value_of(alpha))} "
        f"over {alpha.get('n', 0)} instances; all judges gave the same verdict on "
        f"{percent(value_of(unanimous))} of the {unanimous.get('n', 0)} every judge judged."
    )
    return Section("panel", "Judge panel", (note,), (table,))


def _score_panel(summary: Mapping[str, Any], found: Mapping[str, Any]) -> Section:
    """Per aspect and level, each judge's correlations and then the panel's (the run's own)."""
    judges = [
        (str(member.get("judge")), mapping(member.get("correlations")))
        for member in found["judges"]
        if isinstance(member, Mapping)
    ]
    correlations = mapping(summary.get("correlations"))
    judges.append((f"panel ({found.get('vote')})", correlations))
    rows = []
    for aspect in dict.fromkeys(aspect for _, by_aspect in judges for aspect in by_aspect):
        levels = dict.fromkeys(level for _, by_aspect in judges for level in mapping(by_aspect.get(aspect)))
        for level in _ordered(list(levels), LEVELS):
            for judge, by_aspect in judges:
                by_method = mapping(mapping(by_aspect.get(aspect)).get(level))
                coefficients = (_coefficient(by_method.get(m)) for m in METHODS)
                rows.append((str(aspect), str(level), judge, _size(by_method), *coefficients))
    columns = ("Aspect", "Level", "Judge", "n", *(metric_name(m) for m in METHODS))
    note = f"Each cell: coefficient [95% CI]; † marks p ≥ {SIGNIFICANCE}."
    table = Table(columns, tuple(rows), note=note, numeric=numeric_columns(3, 1 + len(METHODS)))
    alphas = "; ".join(
        f"{aspect} {decimal(value_of(alpha))} over {mapping(alpha).get('n', 0)} instances"
        for aspect, alpha in mapping(found.get("alpha")).items()
    )
    agreement = f"Agreement among the judges: Krippendorff's α (interval, on scores): {alphas or DASH}."
    return Section("panel", "Judge panel", (agreement,), (table,))


def _cells(rate: Any) -> tuple[str, str, str]:
    if not isinstance(rate, Mapping):
        return DASH, DASH, DASH
    ci = interval(rate)
    shown = f"{100 * ci[0]:.1f}–{100 * ci[1]:.1f}" if ci else DASH
    return percent(value_of(rate)), shown, f"{rate.get('hits', 0)} / {rate.get('n', 0)}"
