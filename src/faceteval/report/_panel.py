"""A judge panel's section: each judge beside the panel, and how far the judges agree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from faceteval.report._format import DASH, decimal, interval, percent, value_of
from faceteval.report._model import Section, Table, numeric_columns


def panel(summary: Mapping[str, Any]) -> Section | None:
    """The panel's members with their agreement, then the panel's own, and Krippendorff's alpha."""
    found = summary.get("panel")
    if not isinstance(found, Mapping) or not isinstance(found.get("judges"), list):
        return None
    rows = [
        (str(member.get("judge")), *_cells(member.get("agreement")))
        for member in found["judges"]
        if isinstance(member, Mapping)
    ]
    rows.append((f"panel ({found.get('vote')})", *_cells(summary.get("agreement"))))
    table = Table(("Judge", "Agreement", "95% CI", "Count"), tuple(rows), numeric=numeric_columns(1, 3))
    alpha, unanimous = _mapping(found.get("alpha")), _mapping(found.get("unanimous"))
    note = (
        f"Agreement among the judges: Krippendorff's α (nominal, on verdicts) {decimal(value_of(alpha))} "
        f"over {alpha.get('n', 0)} instances; all judges gave the same verdict on "
        f"{percent(value_of(unanimous))} of the {unanimous.get('n', 0)} every judge judged."
    )
    return Section("panel", "Judge panel", (note,), (table,))


def _cells(rate: Any) -> tuple[str, str, str]:
    if not isinstance(rate, Mapping):
        return DASH, DASH, DASH
    ci = interval(rate)
    shown = f"{100 * ci[0]:.1f}–{100 * ci[1]:.1f}" if ci else DASH
    return percent(value_of(rate)), shown, f"{rate.get('hits', 0)} / {rate.get('n', 0)}"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
