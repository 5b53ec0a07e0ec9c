"""Labelled data in any JSONL, JSON or CSV layout, mapped onto Instances column by column.

A `FieldMap` (see `faceteval.datasets._field_map` for the defaults and aliases) says which source
column (CSV) or key (JSON) feeds each `Instance` field; `load_labelled` reads a file by it, row by
row, and `parse_field_options` builds one from command-line options.
"""

from __future__ import annotations

import _csv
import csv
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from faceteval._util.files import UnreadableJSON, check_value, decode_json, read_json
from faceteval._util.text import plural
from faceteval.core import Instance
from faceteval.datasets._field_map import (
    CANDIDATE_ALIASES,
    DEFAULT_FIELD_MAP,
    FIELDS,
    LABEL_ALIASES,
    QUERY_ALIASES,
    FieldMap,
)
from faceteval.datasets._jsonl import _describe, canonical_instances
from faceteval.datasets._rows import RowContext, column_problem, read_rows
from faceteval.errors import ConfigError, InputError

TextFormat = Literal["jsonl", "json", "csv", "tsv"]
"""The text formats: JSON Lines, JSON (an array of objects, or JSON Lines), CSV, TSV."""

TEXT_SUFFIXES: Mapping[str, TextFormat] = {".jsonl": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv"}
CANONICAL_KEYS = frozenset({"query", "candidates"})
ALIAS_KEYS = frozenset(
    {*QUERY_ALIASES, *LABEL_ALIASES, *(column for group in CANDIDATE_ALIASES for column in group)}
)


def load_labelled(
    path: str | Path, fields: FieldMap | None = None, *, format: TextFormat | None = None
) -> Iterator[Instance | InputError]:
    """Instances from a JSONL, JSON-array, CSV or TSV file, streamed; a bad row yields an `InputError`.

    The format comes from the suffix (``.jsonl``/``.json``: JSON lines, or one JSON array; ``.csv``;
    ``.tsv``) unless given. A JSONL file whose first record uses the canonical ``query`` and
    ``candidates`` keys, read without a field map, is read exactly as `read_instances` reads it.
    Errors name the file, the line (CSV: the physical line, header = 1; JSON array: the record
    position) and the source column. A record without an id gets its line number; a repeated id is an
    error on the later line.

    Raises:
        InputError: The file cannot be read, is not UTF-8, or its header lacks a mapped column.
    """
    name = str(path)
    fmt = format or TEXT_SUFFIXES.get(Path(path).suffix.lower())
    if fmt is None:
        raise InputError(name, None, None, "unknown format: use a .jsonl, .json, .csv or .tsv file")
    fields = fields or DEFAULT_FIELD_MAP
    canonical = fields == DEFAULT_FIELD_MAP
    yield from load_text(RowContext(name, fields), fmt, strict_jsonl=False, canonical=canonical)


def load_text(
    ctx: RowContext, fmt: TextFormat, *, strict_jsonl: bool, canonical: bool
) -> Iterator[Instance | InputError]:
    """The instances of the text file ``ctx.name`` in ``fmt``, read as ``ctx`` maps its rows.

    ``canonical``: a JSON Lines file whose first record has a canonical key (``query``,
    ``candidates``) and no alias of one (``instruction``, ``output_1``...) is read as canonical instance
    JSONL (`faceteval.datasets._jsonl`: its own errors, messages and refusals). ``strict_jsonl``: a
    JSON array in a ``jsonl`` file is refused, not read.
    """
    if fmt in ("csv", "tsv"):
        yield from _load_csv(ctx, delimiter="\t" if fmt == "tsv" else ",")
        return
    first = _peek(ctx.name)
    if first == "array" and not (strict_jsonl and fmt == "jsonl"):
        ctx.unit = "record"
        yield from read_rows(ctx, _array_records(ctx.name))
    elif canonical and (first is None or first == "array" or _canonical(first)):
        yield from canonical_instances(ctx.name, ctx.systems, ctx.keys)
    else:
        yield from read_rows(ctx, _jsonl_records(ctx.name))


def _canonical(record: Mapping[str, Any]) -> bool:
    """Whether a record is canonical: a ``query`` or ``candidates`` key, and no alias of a field."""
    return bool(CANONICAL_KEYS & record.keys()) and not ALIAS_KEYS & record.keys()


def parse_field_options(
    options: Sequence[str], *, label_map: str | Mapping[str, int] | None = None, label_base: int = 1
) -> FieldMap:
    """A `FieldMap` from command-line options such as ``query=instruction`` or ``scores.coherence=coh``.

    ``candidates=a,b``, ``systems=a,b`` and ``metadata=a,b`` take column lists; ``scores=x,y`` takes
    columns named after their aspects, ``scores.ASPECT=COLUMN`` one aspect, ``scores.*=COLUMN`` a
    column holding all of them. ``label_map`` is ``value=label,...`` (e.g. ``model_a=1,model_b=2,tie=0``).

    Raises:
        ConfigError: A malformed option, an unknown field, or a field mapped twice.

    Examples:
        >>> parse_field_options(["label=winner"], label_map="model_a=1,model_b=2,tie=0").label_map
        {'model_a': 1, 'model_b': 2, 'tie': 0}
    """
    mapped: dict[str, Any] = {}
    given: dict[str, str] = {}
    scores: dict[str, str] = {}
    for option in options:
        key, sep, value = (part.strip() for part in option.partition("="))
        if key == "metadata" and sep and not value:
            value = ","  # ``metadata=`` carries no column
        if not sep or not key or not value:
            raise ConfigError(f"field option {option!r} is not FIELD=COLUMN (e.g. query=instruction)")
        if key.startswith("scores."):
            _add_score(scores, key.removeprefix("scores.").strip(), value, option)
        elif key == "scores":
            for column in _column_list(value, option):
                _add_score(scores, column, column, option)
        elif key not in (*FIELDS, "metadata"):
            known = ", ".join((*FIELDS, "scores.ASPECT", "metadata"))
            raise ConfigError(f"unknown field {key!r} in {option!r}; the fields are: {known}")
        elif key in given:
            raise ConfigError(f"{key} is mapped twice ({given[key]!r} and {option!r}); map it once")
        else:
            given[key] = option
            if key == "metadata" and value == ",":
                mapped[key] = ()
            else:
                lists = key in ("candidates", "metadata", "systems")
                mapped[key] = _column_list(value, option) if lists else value
    if label_base not in (0, 1):
        raise ConfigError(f"label base must be 0 or 1, got {label_base!r}")
    parsed_map = _parse_label_map(label_map) if isinstance(label_map, str) else label_map
    try:
        return FieldMap(**mapped, scores=scores or None, label_map=parsed_map, label_base=label_base)
    except ValidationError as exc:
        raise ConfigError(f"bad field options: {_describe(exc)[1]}") from exc


def _add_score(scores: dict[str, str], aspect: str, column: str, option: str) -> None:
    if not aspect:
        raise ConfigError(f"field option {option!r} names no aspect; use scores.ASPECT=COLUMN")
    if aspect in scores:
        raise ConfigError(f"score aspect {aspect!r} is mapped twice (in {option!r}); map it once")
    scores[aspect] = column


def _column_list(value: str, option: str) -> tuple[str, ...]:
    columns = tuple(part.strip() for part in value.split(","))
    if not all(columns):
        raise ConfigError(f"field option {option!r} has an empty column name in its list")
    return columns


def _parse_label_map(text: str) -> dict[str, int]:
    result: dict[str, int] = {}
    for item in (part.strip() for part in text.split(",")):
        value, sep, label = (part.strip() for part in item.partition("="))
        if not sep or not value or not label.isdigit():
            raise ConfigError(
                f"label map entry {item!r} is not VALUE=LABEL with LABEL a number "
                "(the 1-based better candidate, 0 for a tie), e.g. model_a=1,model_b=2,tie=0"
            )
        if value in result:
            raise ConfigError(f"label map lists {value!r} twice")
        result[value] = int(label)
    return result


# --- reading rows -------------------------------------------------------------------------------


MAX_CELL = 2**31 - 1
"""The largest CSV cell read, in characters: as large as Python's csv module allows everywhere (its
default, 128 KiB, would refuse a file for one long candidate that a JSONL line holds)."""


def _load_csv(ctx: RowContext, *, delimiter: str) -> Iterator[Instance | InputError]:
    if csv.field_size_limit() < MAX_CELL:  # (the csv module's limit is one for the process)
        csv.field_size_limit(MAX_CELL)
    reader = csv.reader(_lines(ctx.name), delimiter=delimiter)
    header = _header(ctx, reader)
    if (problem := column_problem(ctx, header, line=1)) is not None:
        raise problem
    yield from read_rows(ctx, _csv_records(ctx, reader, header), cells=True)


def _csv_records(
    ctx: RowContext, reader: _csv.Reader, header: list[str]
) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    while True:
        line = reader.line_num + 1
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):  # (where it ends cannot be told: no more is read)
                limit = csv.field_size_limit()
                raise ctx.error(line, None, f"a cell is longer than {limit:,} characters") from exc
            raise ctx.error(line, None, f"not valid CSV: {exc}") from exc
        if not values:
            continue
        if len(values) != len(header):
            short = header[len(values)] if len(values) < len(header) else None
            yield (
                line,
                ctx.error(
                    line, short, f"the row has {plural(len(values), 'field')}, the header {len(header)}"
                ),
            )
            continue
        yield line, dict(zip(header, values, strict=True))


def _header(ctx: RowContext, reader: _csv.Reader) -> list[str]:
    try:
        header = [column.strip() for column in next(reader)]
    except StopIteration:
        raise ctx.error(1, None, "empty file: no header line") from None
    except csv.Error as exc:
        raise ctx.error(1, None, f"not valid CSV: {exc}") from exc
    for column in header:
        if header.count(column) > 1:
            raise ctx.error(1, column, "the column appears twice in the header")
    return header


def _jsonl_records(name: str) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    for line_no, line in enumerate(_lines(name), start=1):
        if not line.strip():
            continue
        try:
            record = decode_json(line)
        except json.JSONDecodeError as exc:
            problem = f"not valid JSON: {exc.msg} (column {exc.colno})"
            yield line_no, InputError(name, line_no, None, problem)
            continue
        except UnreadableJSON as exc:
            yield line_no, InputError(name, line_no, exc.field, exc.problem)
            continue
        if not isinstance(record, dict):
            problem = f"expected a JSON object, got {type(record).__name__}"
            yield line_no, InputError(name, line_no, None, problem)
        else:
            yield line_no, record


def _array_records(name: str) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    data = read_json(Path(name), checked=False)  # checked record by record: one bad one fails alone
    if not isinstance(data, list):
        raise InputError(name, None, None, f"expected a JSON array of objects, got {type(data).__name__}")
    for position, record in enumerate(data, start=1):
        try:
            check_value(record)
        except UnreadableJSON as exc:
            yield position, InputError(name, position, exc.field, f"record {position}: {exc.problem}")
            continue
        if isinstance(record, dict):
            yield position, record
        else:
            problem = f"record {position}: expected a JSON object, got {type(record).__name__}"
            yield position, InputError(name, position, None, problem)


def _lines(name: str) -> Iterator[str]:
    """The file's lines as text, decoded one by one so that a bad byte is reported on its own line."""
    try:
        handle = Path(name).open("rb")  # noqa: SIM115  (closed by the with below; a generator)
    except OSError as exc:
        raise InputError(name, None, None, f"cannot open: {exc.strerror or exc}") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(name, number, None, f"not UTF-8 text ({exc.reason})") from exc


def _peek(name: str) -> Literal["array"] | dict[str, Any] | None:
    """The first JSON object of a JSONL file, ``"array"`` for a JSON array, None if neither is found."""
    try:
        with Path(name).open(encoding="utf-8-sig") as handle:
            for line in handle:
                text = line.strip()
                if text.startswith("["):
                    return "array"
                try:
                    record = decode_json(text, checked=False) if text else None
                except ValueError:  # not JSON, or not JSON we read: its own line says so later
                    continue
                if isinstance(record, dict):
                    return record
    except (OSError, UnicodeDecodeError):
        return None
    return None
