"""Labelled data in any JSONL, JSON or CSV layout, mapped onto Instances column by column.

A `FieldMap` says which source column (CSV) or key (JSON) feeds each `Instance` field. A field left
unmapped takes its canonical name when the file has it, else one of these aliases when exactly one of
them is present (two or more is an error that asks for a mapping):

| field          | aliases                                                                     |
|----------------|-----------------------------------------------------------------------------|
| ``query``      | ``instruction``, ``input``, ``question``, ``prompt``                        |
| ``candidates`` | ``output_1``, ``output_2`` (+ ``output_3``...); ``response_a``, ``response_b`` |
| ``label``      | ``winner``, ``preference``                                                  |

``id``, ``reference``, ``criteria``, ``task``, ``category`` and ``scores`` (an object column) are read
under their canonical names only. Columns no field uses are carried into ``metadata`` unless
``metadata`` lists the columns to carry; a ``metadata`` column holding an object is merged into it.

Labels: with a label map, exactly its values (as text) are accepted. Without one, numbers count
candidates from ``label_base`` (1: ``1``, ``2``..., ``0`` = tie; 0: ``0``, ``1``...), and the words of
`DEFAULT_LABEL_WORDS` are understood (``A``/``B``, ``model_a``/``model_b``, ``tie``...). An empty
cell or null is no label; an empty or null score leaves that aspect out.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from faceteval.core import Instance
from faceteval.datasets._files import UnreadableJSON, check_value, decode_json, read_json
from faceteval.datasets._jsonl import _describe, read_instances
from faceteval.errors import ConfigError, InputError

Format = Literal["jsonl", "csv", "tsv"]

QUERY_ALIASES = ("instruction", "input", "question", "prompt")
CANDIDATE_ALIASES = (("output_1", "output_2"), ("response_a", "response_b"))
LABEL_ALIASES = ("winner", "preference")
DEFAULT_LABEL_WORDS: Mapping[str, int] = dict(
    a=1, b=2, model_a=1, model_b=2, response_a=1, response_b=2, output_1=1, output_2=2, tie=0
)
"""Label words understood without a label map (case-insensitive)."""

ALL_ASPECTS = "*"
"""The ``scores`` key naming one column that holds an ``{aspect: score}`` object."""

_SUFFIXES: Mapping[str, Format] = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv"}
_TEXT_FIELDS = ("reference", "task", "category")
_FIELDS = ("id", "query", "candidates", "reference", "criteria", "category", "task", "label", "scores")


class FieldMap(BaseModel):
    """Which source column feeds each `Instance` field; None takes the default (see the module docs).

    Examples:
        >>> FieldMap(query="instruction", candidates=["output_1", "output_2"], label="winner").candidates
        ('output_1', 'output_2')
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    """The id column; without one, an instance's id is its line number."""
    query: str | None = None
    candidates: tuple[str, ...] | None = None
    """Several columns (one candidate each), or one column holding a list (CSV: a JSON list) or one text."""
    reference: str | None = None
    criteria: str | None = None
    """One column holding a list of criteria (CSV: a JSON list) or one criterion name."""
    category: str | None = None
    task: str | None = None
    label: str | None = None
    scores: dict[str, str] | None = None
    """Aspect -> numeric column; the key ``*`` names one column holding an ``{aspect: score}`` object."""
    label_map: dict[str, Annotated[int, Field(ge=0)]] | None = None
    """Source label value (as text) -> label (1-based candidate, 0 tie); values not in it are errors."""
    label_base: Literal[0, 1] = 1
    """Numbering of numeric labels read without a label map: 1 (0 = tie) or 0 (first candidate = 0)."""
    metadata: tuple[str, ...] | None = None
    """The columns to carry into ``metadata``; None carries every column no field uses."""

    @field_validator("candidates", "metadata", mode="before")
    @classmethod
    def _one_as_tuple(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("candidates")
    @classmethod
    def _some_candidates(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None and not value:
            raise ValueError("must name at least one column, or be left out")
        return value


DEFAULT_FIELD_MAP = FieldMap()


def load_labelled(
    path: str | Path, fields: FieldMap | None = None, *, format: Format | None = None
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
    fmt = format or _SUFFIXES.get(Path(path).suffix.lower())
    if fmt is None:
        raise InputError(name, None, None, "unknown format: use a .jsonl, .json, .csv or .tsv file")
    fields = fields or DEFAULT_FIELD_MAP
    if fmt != "jsonl":
        yield from _load_csv(_Context(name, fields), delimiter="\t" if fmt == "tsv" else ",")
        return
    first = _peek(name)
    if first == "array":
        yield from _load_json(_Context(name, fields, positions=True), _array_records(name))
    elif fields == DEFAULT_FIELD_MAP and isinstance(first, dict) and {"query", "candidates"} <= first.keys():
        yield from read_instances(path)
    else:
        yield from _load_json(_Context(name, fields), _jsonl_records(name))


def parse_field_options(
    options: Sequence[str], *, label_map: str | Mapping[str, int] | None = None, label_base: int = 1
) -> FieldMap:
    """A `FieldMap` from command-line options such as ``query=instruction`` or ``scores.coherence=coh``.

    ``candidates=a,b`` and ``metadata=a,b`` take column lists; ``scores=x,y`` takes columns named after
    their aspects, ``scores.ASPECT=COLUMN`` one aspect, ``scores.*=COLUMN`` a column holding all of
    them. ``label_map`` is ``value=label,...`` (e.g. ``model_a=1,model_b=2,tie=0``).

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
        elif key not in (*_FIELDS, "metadata"):
            known = ", ".join((*_FIELDS, "scores.ASPECT", "metadata"))
            raise ConfigError(f"unknown field {key!r} in {option!r}; the fields are: {known}")
        elif key in given:
            raise ConfigError(f"{key} is mapped twice ({given[key]!r} and {option!r}); map it once")
        else:
            given[key] = option
            if key == "metadata" and value == ",":
                mapped[key] = ()
            else:
                lists = key in ("candidates", "metadata")
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


# --- resolving a field map against the columns a file has -------------------------------------


class _Problem(Exception):
    """A bad value or column: becomes an `InputError` at the current line."""

    def __init__(self, column: str | None, problem: str) -> None:
        super().__init__(problem)
        self.column = column
        self.problem = problem


@dataclass(frozen=True, slots=True)
class _Plan:
    """The concrete columns one layout of the file is read from."""

    columns: Mapping[str, str | None]
    """Instance field -> source column (candidates and scores aside)."""
    candidates: tuple[str, ...]
    scores: Mapping[str, str]
    metadata: tuple[str, ...]
    explicit: tuple[str, ...]
    """Columns the field map names: they must be present."""

    def source(self, field: str | None) -> str | None:
        """The source column behind an Instance field's dotted path (for error messages)."""
        if field is None:
            return None
        head, _, rest = field.partition(".")
        if head == "candidates" and rest.isdigit() and len(self.candidates) > 1:
            return self.candidates[int(rest)]
        if head == "candidates":
            return self.candidates[0]
        if head == "scores":
            return self.scores.get(rest) or self.scores.get(ALL_ASPECTS) or field
        return self.columns.get(head) or field


def _resolve(fields: FieldMap, columns: Sequence[str]) -> _Plan:
    present = set(columns)
    query = fields.query or _default("query", QUERY_ALIASES, present, required=True)
    label = fields.label or _default("label", LABEL_ALIASES, present, required=False)
    mapped = {"query": query, "label": label}
    for name in ("id", "criteria", *_TEXT_FIELDS):
        mapped[name] = getattr(fields, name) or (name if name in present else None)
    candidates = fields.candidates or _default_candidates(present)
    if fields.scores is not None:
        scores: Mapping[str, str] = fields.scores
    else:
        scores = {ALL_ASPECTS: "scores"} if "scores" in present else {}
    used = {c for c in mapped.values() if c} | set(candidates) | set(scores.values())
    metadata = tuple(c for c in columns if c not in used) if fields.metadata is None else fields.metadata
    named = [getattr(fields, name) for name in _FIELDS if name not in ("candidates", "scores")]
    named += [*(fields.candidates or ()), *(fields.scores or {}).values(), *(fields.metadata or ())]
    explicit = tuple(dict.fromkeys(c for c in named if c is not None))
    return _Plan(mapped, candidates, scores, metadata, explicit)


def _default(field: str, aliases: Sequence[str], present: set[str], *, required: bool) -> str | None:
    if field in present:
        return field
    found = [alias for alias in aliases if alias in present]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        listed = " and ".join(repr(c) for c in found)
        raise _Problem(
            field, f"ambiguous: the columns {listed} could each be the {field}; map one with {field}=COLUMN"
        )
    if required:
        raise _Problem(
            field, f"missing: no {field!r} column (nor {', '.join(aliases)}); map one with {field}=COLUMN"
        )
    return None


def _default_candidates(present: set[str]) -> tuple[str, ...]:
    if "candidates" in present:
        return ("candidates",)
    groups = [_extend(group, present) for group in CANDIDATE_ALIASES if set(group) <= present]
    if len(groups) == 1:
        return groups[0]
    if groups:
        listed = " and ".join(",".join(group) for group in groups)
        raise _Problem(
            "candidates", f"ambiguous: both {listed} could be the candidates; map one with candidates=A,B"
        )
    aliases = " or ".join(",".join(group) for group in CANDIDATE_ALIASES)
    raise _Problem(
        "candidates", f"missing: no 'candidates' column (nor {aliases}); map them with candidates=A,B"
    )


def _extend(group: tuple[str, ...], present: set[str]) -> tuple[str, ...]:
    """``output_1, output_2`` grows to ``output_3``... while those columns exist."""
    prefix, _, number = group[-1].rpartition("_")
    if not number.isdigit():
        return group
    extra = []
    n = int(number) + 1
    while f"{prefix}_{n}" in present:
        extra.append(f"{prefix}_{n}")
        n += 1
    return (*group, *extra)


# --- reading rows -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Context:
    """One file being read: its name, the field map, and the ids seen so far."""

    name: str
    fields: FieldMap
    positions: bool = False
    """True for a JSON array: "line" numbers are record positions, and messages say so."""
    seen: dict[str, int] = field(default_factory=dict)

    def error(self, line: int, column: str | None, problem: str, record_id: str | None = None) -> InputError:
        """An `InputError` at ``line`` (a record position, said in words, for a JSON array)."""
        text = f"record {line}: {problem}" if self.positions else problem
        return InputError(self.name, line, column, text, record_id=record_id)


def _load_csv(ctx: _Context, *, delimiter: str) -> Iterator[Instance | InputError]:
    reader = csv.reader(_lines(ctx.name), delimiter=delimiter)
    header = _header(ctx, reader)
    try:
        plan = _resolve(ctx.fields, header)
    except _Problem as problem:
        raise ctx.error(1, problem.column, problem.problem) from None
    for column in plan.explicit:
        if column not in header:
            raise ctx.error(1, column, f"no such column; the header has: {', '.join(header)}")
    while True:
        line = reader.line_num + 1
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ctx.error(line, None, f"not valid CSV: {exc}") from exc
        if not values:
            continue
        if len(values) != len(header):
            short = header[len(values)] if len(values) < len(header) else None
            yield ctx.error(line, short, f"the row has {len(values)} fields, the header {len(header)}")
            continue
        yield _read_row(ctx, line, dict(zip(header, values, strict=True)), plan, cells=True)


def _header(ctx: _Context, reader: Iterator[list[str]]) -> list[str]:
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


def _load_json(
    ctx: _Context, records: Iterator[tuple[int, dict[str, Any] | InputError]]
) -> Iterator[Instance | InputError]:
    plans: dict[tuple[str, ...], _Plan | _Problem] = {}
    for line, record in records:
        if isinstance(record, InputError):
            yield record
            continue
        key = tuple(record)
        if key not in plans:
            if len(plans) > 256:
                plans.clear()
            try:
                plans[key] = _resolve(ctx.fields, key)
            except _Problem as problem:
                plans[key] = problem
        plan = plans[key]
        if isinstance(plan, _Problem):
            yield ctx.error(line, plan.column, plan.problem, _raw_id(record, None))
        else:
            yield _read_row(ctx, line, record, plan, cells=False)


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


def _read_row(
    ctx: _Context, line: int, row: Mapping[str, Any], plan: _Plan, *, cells: bool
) -> Instance | InputError:
    """One row as an Instance; ``cells`` says values are CSV text (empty = absent)."""
    record_id = _raw_id(row, plan.columns["id"])
    try:
        instance = Instance.model_validate(_record(row, plan, ctx.fields, line, cells=cells))
    except _Problem as problem:
        return ctx.error(line, problem.column, problem.problem, record_id)
    except ValidationError as exc:
        field_path, problem_text = _describe(exc)
        return ctx.error(line, plan.source(field_path), problem_text, record_id)
    if instance.id in ctx.seen:
        first = ctx.seen[instance.id]
        problem_text = (
            f"duplicate id {instance.id!r} (first on {'record' if ctx.positions else 'line'} {first})"
        )
        return ctx.error(line, plan.columns["id"] or "id", problem_text, record_id)
    ctx.seen[instance.id] = line
    return instance


def _record(
    row: Mapping[str, Any], plan: _Plan, fields: FieldMap, line: int, *, cells: bool
) -> dict[str, Any]:
    for name in plan.explicit:
        if name not in row:
            raise _Problem(name, "missing")
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
    for name in _TEXT_FIELDS:
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
    raise _Problem(column, f"expected text or an integer, got {_kind(value)}")


def _raw_id(row: Mapping[str, Any], column: str | None) -> str | None:
    value = row.get(column or "id")
    return (
        str(value) if isinstance(value, str | int) and not isinstance(value, bool) and value != "" else None
    )


def _text(column: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _Problem(column, f"expected text, got {_kind(value)}")
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
            raise _Problem(column, f"item {position}: expected text, got {_kind(item)}")
    return items


def _as_list(column: str, value: Any, *, cells: bool) -> list[Any]:
    """A list value; a CSV cell holding a JSON list is parsed, and a single text is a list of one."""
    if cells and isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = decode_json(value)
        except json.JSONDecodeError:
            return [value]
        except UnreadableJSON as exc:
            raise _Problem(column, exc.problem) from None
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [value]
    raise _Problem(column, f"expected a list or a text, got {_kind(value)}")


def _label(column: str | None, row: Mapping[str, Any], fields: FieldMap) -> int | None:
    value = row[column] if column else None
    if column is None or value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _Problem(column, f"expected a label (a number or a word), got {_kind(value)}")
    key = _label_key(value)
    if fields.label_map is not None:
        for lookup in (value.strip() if isinstance(value, str) else key, key):
            if lookup in fields.label_map:
                return fields.label_map[lookup]
        raise _Problem(column, f"{column}={value!r} is not in the label map {fields.label_map}")
    if key.lstrip("-").isdigit():
        number = int(key)
        if number < 0:
            raise _Problem(
                column, f"{column}={value!r} is negative; labels count candidates from {fields.label_base}"
            )
        return number + 1 if fields.label_base == 0 else number
    if key.lower() in DEFAULT_LABEL_WORDS:
        return DEFAULT_LABEL_WORDS[key.lower()]
    base = (
        "1-based: 1 = first candidate, 0 = tie" if fields.label_base == 1 else "0-based: 0 = first candidate"
    )
    raise _Problem(
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
                raise _Problem(column, f"not a JSON object of scores: {exc.msg}") from None
            except UnreadableJSON as exc:
                raise _Problem(column, exc.problem) from None
        if value is None or value == "":
            continue
        if not isinstance(value, dict):
            raise _Problem(column, f"expected an object of scores ({{aspect: number}}), got {_kind(value)}")
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
        raise _Problem(column, f"the score {value!r} is not a number")
    if math.isinf(number):
        raise _Problem(column, f"the score {value!r} is not finite")
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
