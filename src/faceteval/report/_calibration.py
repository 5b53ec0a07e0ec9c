"""The calibration of a pairwise summary's confidence (``calibration``): AUROC, expected calibration
error with its reliability bins, and the shares of tied confidences."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from faceteval._util.numbers import number
from faceteval.report._format import DASH, count, mapping, percent
from faceteval.report._model import Section, Table, numeric_columns

CONCENTRATED = 0.5
"""A largest tied share above this is noted as confidence that hardly ranks the verdicts."""


def calibration(summary: Mapping[str, Any]) -> Section | None:
    """The estimator, AUROC and ECE of the judgments' confidence, its reliability bins and tied shares."""
    block = mapping(summary.get("calibration"))
    if not block:
        return None
    notes = [
        f"Confidence estimator: {block.get('estimator') or DASH}. AUROC {_number(block.get('auroc'))}: the "
        "chance that a verdict agreeing with the humans is more confident than one that does not (ties "
        "count half; 0.5 ranks no better than chance; failed judgments rank lowest). "
        f"The expected calibration error (ECE) {_number(block.get('ece'))}: the mean gap between "
        "confidence and agreement over equal-width bins, weighted by their verdicts "
        f"({count(block.get('with_confidence'))} verdicts with a confidence).",
    ]
    if (tied := tied_note(block)) is not None:
        notes.append(tied)
    tables = [table for table in (_bins_table(block.get("bins")), _ties_table(block)) if table is not None]
    return Section("calibration", "Calibration of confidence", tuple(notes), tuple(tables))


def tied_note(block: Mapping[str, Any]) -> str | None:
    """How many verdicts share the most common confidence, and what that does to selective accuracy."""
    shares = _entries(block.get("tied_shares"))
    if not shares:
        return None
    top, n = shares[0], block.get("n")
    share = number(top.get("share"))
    note = (
        f"{count(top.get('n'))} of {count(n)} verdicts ({percent(share)}) share the "
        f"{_confidence(top.get('confidence'))}."
    )
    if share is not None and share > CONCENTRATED:
        note += (
            " Confidence hardly ranks these verdicts: which of them are kept at a coverage is a matter of "
            "how their ties are ordered, so selective accuracy is given in expectation over every order "
            "with the range the orders span."
        )
    return note


def _bins_table(bins: Any) -> Table | None:
    rows = []
    for entry in _entries(bins):
        mean, rate = number(entry.get("mean_confidence")), number(entry.get("agreement"))
        if not entry.get("n") or mean is None or rate is None:
            continue
        rows.append(
            (
                f"{_number(entry.get('low'), 1)}-{_number(entry.get('high'), 1)}",
                count(entry.get("n")),
                _number(mean),
                percent(rate),
                _number(abs(rate - mean)),
            )
        )
    if not rows:
        return None
    columns = ("Confidence", "Verdicts", "Mean confidence", "Agreement with humans", "Gap")
    return Table(
        columns, tuple(rows), title="Reliability (bins of confidence)", numeric=numeric_columns(1, 4)
    )


def _ties_table(block: Mapping[str, Any]) -> Table | None:
    shares = _entries(block.get("tied_shares"))
    if not shares:
        return None
    rows = tuple(
        (
            DASH if entry.get("confidence") is None else _number(entry.get("confidence")),
            count(entry.get("n")),
            percent(entry.get("share")),
        )
        for entry in shares
    )
    return Table(
        ("Confidence", "Verdicts", "Share"),
        rows,
        title="The most common confidences",
        note=f"{DASH}: no confidence (a failed judgment, or one without evidence).",
        numeric=numeric_columns(0, 3),
    )


def _confidence(value: Any) -> str:
    return "absence of a confidence" if value is None else f"confidence {_number(value)}"


def _number(value: Any, digits: int = 3) -> str:
    found = number(value)
    return DASH if found is None else f"{found:.{digits}f}"


def _entries(value: Any) -> list[Mapping[str, Any]]:
    """The mappings of a list (a bin, a tied share); anything else is left out."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        return []
    return [entry for entry in value if isinstance(entry, Mapping)]
