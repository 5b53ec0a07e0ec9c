"""Reading a confusion matrix from whatever shape the metrics module gives it in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from faceteval._util.numbers import number
from faceteval.report._format import label_name

_MATRIX_KEYS = ("matrix", "counts", "table", "values", "data", "cells")
_ROW_KEYS = ("rows", "row_labels", "human", "human_labels", "labels_human", "true", "y_true")
_COLUMN_KEYS = ("columns", "column_labels", "cols", "judge", "judge_verdicts", "verdicts", "pred", "y_pred")
_RECORD_ROW = ("human", "label", "row", "true")
_RECORD_COLUMN = ("judge", "verdict", "column", "pred")


@dataclass(frozen=True, slots=True)
class Confusion:
    """Counts of human labels (rows) against judge verdicts (columns)."""

    rows: tuple[str, ...]
    columns: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    @property
    def total(self) -> int:
        """All counts."""
        return sum(sum(row) for row in self.counts)


def read_confusion(raw: Any) -> Confusion | None:
    """A confusion matrix from a summary's ``confusion`` entry, or None when it has no recognisable shape.

    Accepts ``{"labels"|"rows"/"columns": [...], "matrix"|"counts": [[...]]}``, nested
    ``{human: {verdict: count}}`` mappings, lists of ``{human, judge, count}`` records and bare
    lists of lists.

    Examples:
        >>> read_confusion({"labels": [1, 2, 0], "matrix": [[5, 1, 0], [2, 4, 0], [1, 1, 1]]}).rows
        ('1', '2', 'tie')
        >>> read_confusion({"1": {"1": 3, "2": 1}, "2": {"2": 4}}).counts
        ((3, 1), (0, 4))
    """
    if isinstance(raw, Mapping):
        matrix = next((raw[key] for key in _MATRIX_KEYS if key in raw), None)
        if matrix is None:
            return _from_nested(raw)
        if isinstance(matrix, Mapping):
            return _from_nested(matrix)
        if _is_records(matrix):
            return _from_records(matrix)
        return _from_lists(matrix, *_labels(raw))
    if _is_records(raw):
        return _from_records(raw)
    return _from_lists(raw, None, None)


def _labels(raw: Mapping[str, Any]) -> tuple[Any, Any]:
    rows = next((raw[key] for key in _ROW_KEYS if key in raw), None)
    columns = next((raw[key] for key in _COLUMN_KEYS if key in raw), None)
    labels = raw.get("labels")
    if isinstance(labels, Mapping):
        rows = rows if rows is not None else next((labels[k] for k in _ROW_KEYS if k in labels), None)
        columns = (
            columns if columns is not None else next((labels[k] for k in _COLUMN_KEYS if k in labels), None)
        )
    elif labels is not None:
        rows = labels if rows is None else rows
        columns = labels if columns is None else columns
    return rows, columns


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _is_records(value: Any) -> bool:
    return _is_list(value) and bool(value) and all(isinstance(item, Mapping) for item in value)


def _cell(value: Any) -> int:
    x = number(value)
    return 0 if x is None else round(x)


def _names(labels: Any, size: int) -> tuple[str, ...]:
    if _is_list(labels) and len(labels) == size:
        return tuple(label_name(label) for label in labels)
    return tuple(str(index) for index in range(size))


def _from_lists(matrix: Any, rows: Any, columns: Any) -> Confusion | None:
    if not _is_list(matrix) or not matrix or not all(_is_list(row) for row in matrix):
        return None
    width = max(len(row) for row in matrix)
    if width == 0:
        return None
    counts = tuple(tuple(_cell(row[j]) if j < len(row) else 0 for j in range(width)) for row in matrix)
    return Confusion(_names(rows, len(matrix)), _names(columns, width), counts)


def _order(label: str) -> tuple[int, float, str]:
    """Candidates 1, 2, ... first, then ties, then anything else, then no verdict."""
    if label == "no verdict":
        return (3, 0.0, label)
    if label == "tie":
        return (1, 0.0, label)
    x = number(_as_number(label))
    return (0, x, label) if x is not None else (2, 0.0, label)


def _as_number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _build(cells: Mapping[tuple[str, str], int]) -> Confusion | None:
    if not cells:
        return None
    rows = tuple(sorted({row for row, _ in cells}, key=_order))
    columns = tuple(sorted({column for _, column in cells}, key=_order))
    counts = tuple(tuple(cells.get((row, column), 0) for column in columns) for row in rows)
    return Confusion(rows, columns, counts)


def _from_nested(raw: Mapping[Any, Any]) -> Confusion | None:
    if not raw or not all(isinstance(inner, Mapping) for inner in raw.values()):
        return None
    cells: dict[tuple[str, str], int] = {}
    for row, inner in raw.items():
        for column, value in inner.items():
            if number(value) is None:
                return None
            key = (label_name(row), label_name(column))
            cells[key] = cells.get(key, 0) + _cell(value)
    return _build(cells)


def _from_records(records: Sequence[Mapping[str, Any]]) -> Confusion | None:
    cells: dict[tuple[str, str], int] = {}
    for record in records:
        row = next((k for k in _RECORD_ROW if k in record), None)
        column = next((k for k in _RECORD_COLUMN if k in record), None)
        if row is None or column is None:
            return None
        key = (label_name(record[row]), label_name(record[column]))
        cells[key] = cells.get(key, 0) + _cell(record.get("count", record.get("n", 1)))
    return _build(cells)
