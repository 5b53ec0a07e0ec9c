"""The prediction-powered section of a meta-evaluation report (``summary.ppi``, from
``meta-eval --ppi-labels``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from faceteval.report._format import count, decimal, percent
from faceteval.report._model import Section, Table, numeric_columns

_COLUMNS = (
    "Pair (win rate of the first)",
    "Items",
    "All-human win rate",
    "Judge's win rate",
    "PPI coverage",
    "Judge-only coverage",
    "Human-only coverage",
    "PPI width",
    "Judge-only width",
    "Human-only width",
)


def ppi(summary: Mapping[str, Any]) -> Section | None:
    """Each pair's coverage of its all-human win rate by the three intervals, their widths, and the
    pooled numbers."""
    block = summary.get("ppi")
    if not isinstance(block, Mapping):
        return None
    pairs = [pair for pair in block.get("pairs") or () if isinstance(pair, Mapping)]
    rows = [_row(pair, str(pair.get("pair"))) for pair in pairs]
    if pairs:
        rows.append(_row(block, "Pooled (mean over pairs)"))
    tables = (Table(_COLUMNS, tuple(rows), numeric=numeric_columns(1, 9)),) if rows else ()
    return Section("ppi", "Prediction-powered win rates", _notes(block), tables)


def _row(row: Mapping[str, Any], name: str) -> tuple[str, ...]:
    return (
        name,
        count(row.get("items")) if "items" in row else "",
        percent(row.get("human_win_rate")) if "human_win_rate" in row else "",
        percent(row.get("judge_win_rate")) if "judge_win_rate" in row else "",
        percent(row.get("coverage")),
        percent(row.get("coverage_judge_only")),
        percent(row.get("coverage_human_only")),
        decimal(row.get("width")),
        decimal(row.get("width_judge_only")),
        decimal(row.get("width_human_only")),
    )


def _notes(block: Mapping[str, Any]) -> tuple[str, ...]:
    labels = block.get("labels")
    drawn = (
        f"For each model pair, {count(labels)} of its human-labelled items are drawn at random, "
        f"{count(block.get('draws'))} times (seed {block.get('seed')}), and each draw's intervals at "
        f"{percent(block.get('level'))} are checked against the pair's all-human win rate (the first "
        "system's, ties half a win, over every labelled item of the pair). PPI: the judge's outcomes on "
        "the items not drawn, corrected by the drawn items' human labels (PPI++); judge-only: the judge's "
        "win rate over all the pair's items with its Wilson interval, as a judge run reports it (the same "
        "in every draw); human-only: the mean of the drawn labels alone."
    )
    notes = [drawn]
    if block.get("groups") == "positions":
        notes.append("The instances name no systems: the pair is position 1 against position 2.")
    if skipped := [s for s in block.get("skipped") or () if isinstance(s, Mapping)]:
        shown = ", ".join(f"{s.get('pair')} ({count(s.get('items'))})" for s in skipped)
        notes.append(f"Skipped, with fewer than {count(2 * int(labels or 0))} labelled items: {shown}.")
    if left_out := block.get("left_out"):
        notes.append(f"{count(left_out)} instances without a human label or two candidates are left out.")
    return tuple(notes)
