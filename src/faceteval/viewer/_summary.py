"""Any summary, shown as it is: whatever a record holds becomes keys and values, and tables where its
values line up (a mapping of mappings, a list of mappings).

The pages render these blocks alone, so a summary shows every field it has, including fields added
after this viewer was written. A metric as `faceteval.metrics` gives one (``{value, ci, n ...}``) is
one value: ``0.85 [0.74, 0.93] (n = 40)``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Block", "Pairs", "Table", "Text", "block_of", "number_text", "shown"]

MAX_DEPTH = 5
"""Levels of nesting shown as blocks; deeper values are shown as compact JSON."""
MAX_ROWS = 200
"""Rows of a table (items of a list) shown; the rest are counted."""
MAX_TEXT = 2000
"""Characters of a compact JSON value shown."""


@dataclass(frozen=True, slots=True)
class Text:
    """One value, as text."""

    text: str
    kind: str = "text"
    """``text``, ``number``, ``none`` or ``json`` (a value shown as compact JSON)."""


@dataclass(frozen=True, slots=True)
class Pairs:
    """Keys and their values."""

    items: list[tuple[str, Block]]


@dataclass(frozen=True, slots=True)
class Table:
    """Rows of values under the same columns; ``more`` rows are left out."""

    columns: list[str]
    rows: list[tuple[str, list[Block]]]
    """Each row's name (its key, or its position) and its cells."""
    more: int = 0


Block = Text | Pairs | Table


def block_of(value: Any, depth: int = 0) -> Block:
    """``value`` (anything JSON holds) as a block to render.

    Examples:
        >>> block_of({"value": 0.853, "ci": [0.74, 0.93], "n": 40})
        Text(text='0.853 [0.74, 0.93] (n = 40)', kind='number')
        >>> block_of({"A": {"wins": 3, "losses": 1}, "B": {"wins": 1, "losses": 3}}).columns
        ['wins', 'losses']
        >>> block_of([1, 2.5, None]).text
        '1, 2.5, —'
    """
    if (text := _scalar(value)) is not None:
        return text
    if depth >= MAX_DEPTH:
        return _json(value)
    if isinstance(value, Mapping):
        if (metric := _metric(value)) is not None:
            return metric
        if (table := _table(list(value.items()), depth)) is not None:
            return table
        return Pairs([(str(key), block_of(item, depth + 1)) for key, item in value.items()])
    if isinstance(value, Sequence) and not isinstance(value, str):
        if all(_scalar(item) is not None for item in value):
            shown = [_scalar(item).text for item in value[:MAX_ROWS]]  # type: ignore[union-attr]
            more = f" … and {len(value) - MAX_ROWS} more" if len(value) > MAX_ROWS else ""
            return Text(", ".join(shown) + more if shown else "(none)", "number" if shown else "none")
        rows = [(str(index), item) for index, item in enumerate(value, start=1)]
        return _table(rows, depth) or Pairs([(key, block_of(item, depth + 1)) for key, item in rows])
    return _json(value)


def shown(value: Any) -> str:
    """Any value in a few words: a number as `number_text`, yes or no, — for none, else compact JSON.

    Examples:
        >>> shown(True), shown(None), shown(1.0), shown({"a": 1})
        ('yes', '—', '1', '{"a": 1}')
    """
    return (_scalar(value) or _json(value)).text


def number_text(value: float) -> str:
    """A number as a reader wants it: whole numbers whole (with thousands), others to 3 significant digits.

    Examples:
        >>> number_text(12345), number_text(0.12345), number_text(2.0), number_text(float("nan"))
        ('12,345', '0.123', '2', 'nan')
    """
    if not math.isfinite(value):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.3g}"


def _scalar(value: Any) -> Text | None:
    if value is None:
        return Text("—", "none")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, int | float):
        return Text(number_text(value), "number")
    if isinstance(value, str):
        return Text(value)
    return None


def _metric(value: Mapping[str, Any]) -> Text | None:
    """A metric (``value`` with any of ``ci``, ``n``, ``hits``) as one line."""
    if "value" not in value or not ({"ci", "n"} & set(value)) or _scalar(value["value"]) is None:
        return None
    if not all(_scalar(v) is not None or k == "ci" for k, v in value.items()):
        return None
    text = _scalar(value["value"]).text  # type: ignore[union-attr]
    ci = value.get("ci")
    if isinstance(ci, list) and len(ci) == 2 and all(isinstance(c, int | float) for c in ci):
        text += f" [{number_text(ci[0])}, {number_text(ci[1])}]"
    if isinstance(value.get("n"), int):
        text += f" (n = {value['n']:,})"
    return Text(text, "number")


def _table(rows: list[tuple[Any, Any]], depth: int) -> Table | None:
    """Rows of mappings as a table, when there are two rows or more and they share columns."""
    if len(rows) < 2 or not all(isinstance(row, Mapping) and row for _, row in rows):
        return None
    columns: dict[str, None] = {}
    for _, row in rows:
        columns.update(dict.fromkeys(str(key) for key in row))
    if len(columns) > 12 or sum(len(row) for _, row in rows) < len(columns) * len(rows) / 2:
        return None  # mappings of their own shapes: each is shown as its keys and values
    shown = [
        (str(name), [block_of(row.get(column), depth + 1) for column in columns])
        for name, row in rows[:MAX_ROWS]
    ]
    return Table(list(columns), shown, max(0, len(rows) - MAX_ROWS))


def _json(value: Any) -> Text:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return Text(text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " …", "json")
