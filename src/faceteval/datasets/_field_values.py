"""One row of a labelled file as the fields of an `Instance`, by a resolved `Plan` of its columns.

Each bad value raises `FieldProblem` naming the source column; the reader turns it into an
`InputError` at the row's line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from faceteval._util.files import UnreadableJSON, decode_json
from faceteval.datasets._field_map import (
    ALL_ASPECTS,
    DEFAULT_LABEL_WORDS,
    TEXT_FIELDS,
    FieldMap,
    FieldProblem,
    Plan,
)


def row_fields(
    row: Mapping[str, Any], plan: Plan, fields: FieldMap, line: int, *, cells: bool
) -> dict[str, Any]:
    """The `Instance` fields of one row; ``cells`` says values are CSV text (empty = absent)."""
    for name in plan.explicit:
        if name not in row:
            raise FieldProblem(name, "missing")
    columns = plan.columns
    query = columns["query"]
    assert query is not None  # resolved as required
    record: dict[str, Any] = {
        "id": _id(columns["id"], row, line),
        "query": _text(query, row[query]),
        "candidates": _candidates(plan.candidates, row, cells=cells),
        "label": _label(columns["label"], row, fields),
        "scores": _scores(plan.scores, row, cells=cells),
        "metadata": _metadata(plan.metadata, row),
    }
    if plan.systems and (systems := _systems(plan.systems, row, cells=cells)) is not None:
        record["systems"] = systems
    for name in TEXT_FIELDS:
        source = columns[name]
        record[name] = _optional_text(source, row[source]) if source else None
    if (source := columns["criteria"]) and (value := row[source]) not in (None, ""):
        record["criteria"] = _as_list(source, value, cells=cells)
    return record


def _id(column: str | None, row: Mapping[str, Any], line: int) -> str:
    value = row[column] if column else None
    if value is None or value == "":
        return str(line)
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise FieldProblem(column, f"expected text or an integer, got {_kind(value)}")


def raw_id(row: Mapping[str, Any], column: str | None) -> str | None:
    value = row.get(column or "id")
    return (
        str(value) if isinstance(value, str | int) and not isinstance(value, bool) and value != "" else None
    )


def _text(column: str, value: Any) -> str:
    if not isinstance(value, str):
        raise FieldProblem(column, f"expected text, got {_kind(value)}")
    return value


def _optional_text(column: str, value: Any) -> str | None:
    return None if value is None or value == "" else _text(column, value)


def _candidates(columns: tuple[str, ...], row: Mapping[str, Any], *, cells: bool) -> list[str]:
    if len(columns) > 1:
        return [_text(column, row[column]) for column in columns]
    column = columns[0]
    items = _as_list(column, row[column], cells=cells)
    for position, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise FieldProblem(column, f"item {position}: expected text, got {_kind(item)}")
    return items


def _systems(columns: tuple[str, ...], row: Mapping[str, Any], *, cells: bool) -> list[str] | None:
    """The systems behind the candidates; None when the row names none (empty cells, null)."""
    values = [row[column] for column in columns]
    if all(value is None or value == "" for value in values):
        return None
    if len(columns) > 1:
        return [_text(column, value) for column, value in zip(columns, values, strict=True)]
    items = _as_list(columns[0], values[0], cells=cells)
    for position, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise FieldProblem(columns[0], f"item {position}: expected text, got {_kind(item)}")
    return items


def _as_list(column: str, value: Any, *, cells: bool) -> list[Any]:
    """A list value; a CSV cell holding a JSON list is parsed, and a single text is a list of one."""
    if cells and isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = decode_json(value)
        except json.JSONDecodeError:
            return [value]
        except UnreadableJSON as exc:
            raise FieldProblem(column, exc.problem) from None
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [value]
    raise FieldProblem(column, f"expected a list or a text, got {_kind(value)}")


def _label(column: str | None, row: Mapping[str, Any], fields: FieldMap) -> int | None:
    value = row[column] if column else None
    if column is None or value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise FieldProblem(column, f"expected a label (a number or a word), got {_kind(value)}")
    key = _label_key(value)
    if fields.label_map is not None:
        for lookup in (value.strip() if isinstance(value, str) else key, key):
            if lookup in fields.label_map:
                return fields.label_map[lookup]
        raise FieldProblem(column, f"{column}={value!r} is not in the label map {fields.label_map}")
    if key.lstrip("-").isdigit():
        number = int(key)
        if number < 0:
            raise FieldProblem(
                column, f"{column}={value!r} is negative; labels count candidates from {fields.label_base}"
            )
        return number + 1 if fields.label_base == 0 else number
    if key.lower() in DEFAULT_LABEL_WORDS:
        return DEFAULT_LABEL_WORDS[key.lower()]
    base = (
        "1-based: 1 = first candidate, 0 = tie" if fields.label_base == 1 else "0-based: 0 = first candidate"
    )
    raise FieldProblem(
        column,
        f"{column}={value!r} is not a label: use a number ({base}), A/B, model_a/model_b or tie, "
        "or give a label map (e.g. model_a=1,model_b=2,tie=0)",
    )


_ZERO_FRACTION = re.compile(r"^-?\d+\.0+$")


def _label_key(value: str | int | float) -> str:
    """The text a label value is looked up by: ``2``, ``2.0``, ``"2"`` and ``"2.0"`` are all ``"2"``.

    A CSV cell is text, and tools write an integer column that has empty cells as ``2.0``. Only such
    a zero fraction is dropped: ``"01"`` stays ``"01"`` (a label map may name it so).
    """
    if isinstance(value, str):
        text = value.strip()
        return text.split(".")[0] if _ZERO_FRACTION.match(text) else text
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _scores(columns: Mapping[str, str], row: Mapping[str, Any], *, cells: bool) -> dict[str, float] | None:
    scores: dict[str, float] = {}
    for aspect, column in columns.items():
        value = row[column]
        if aspect != ALL_ASPECTS:
            _put_score(scores, aspect, column, value)
            continue
        if cells and isinstance(value, str) and value.strip():
            try:
                value = decode_json(value)
            except json.JSONDecodeError as exc:
                raise FieldProblem(column, f"not a JSON object of scores: {exc.msg}") from None
            except UnreadableJSON as exc:
                raise FieldProblem(column, exc.problem) from None
        if value is None or value == "":
            continue
        if not isinstance(value, dict):
            raise FieldProblem(
                column, f"expected an object of scores ({{aspect: number}}), got {_kind(value)}"
            )
        for name, score in value.items():
            _put_score(scores, str(name), f"{column}.{name}", score)
    return scores or None


def _put_score(scores: dict[str, float], aspect: str, column: str, value: Any) -> None:
    """A score as a float; an empty cell, null or NaN leaves the aspect out (not scored by humans)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if number is None:
        raise FieldProblem(column, f"the score {value!r} is not a number")
    if math.isinf(number):
        raise FieldProblem(column, f"the score {value!r} is not finite")
    if not math.isnan(number):
        scores[aspect] = number


def _metadata(columns: tuple[str, ...], row: Mapping[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    for column in columns:
        value = row[column]
        if column == "metadata" and isinstance(value, dict):
            metadata.update(value)
        else:
            metadata[column] = value
    return metadata


def _kind(value: Any) -> str:
    names = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "text"}
    names |= {list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)
