"""One reader for every input: canonical JSONL, JSON, CSV/TSV, Parquet, Hugging Face datasets,
pandas DataFrames and iterables of dicts, mapped by a field map or a preset.

`read_instances` is what ``judge``, ``meta-eval``, ``hdeval`` and ``review import`` read through, and
the Python API's way in. A path gives an `InstanceFile` (streamed, its ``path`` and `Reading` kept for
the run record, so later commands read the input again as it was read); a DataFrame or an iterable of
dicts gives the instances as an iterator. A canonical JSONL file read without a mapping is read exactly
as before (`faceteval.datasets._jsonl`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict

from faceteval.core import Instance
from faceteval.datasets._field_map import DEFAULT_FIELD_MAP, FieldMap, named_columns
from faceteval.datasets._generic import TEXT_SUFFIXES, load_text, parse_field_options
from faceteval.datasets._keys import Keys
from faceteval.datasets._presets import get_preset
from faceteval.datasets._rows import RowContext, Unit, column_problem, read_rows
from faceteval.datasets._tables import (
    Records,
    dict_records,
    frame_records,
    hf_name,
    hf_records,
    is_data_frame,
    parquet_records,
)
from faceteval.errors import ConfigError, InputError

InputFormat = Literal["jsonl", "json", "csv", "tsv", "parquet", "hf"]
"""An input's format: JSON Lines, JSON (an array, or JSON Lines), CSV, TSV, Parquet, a Hugging Face
dataset."""

FORMATS: tuple[InputFormat, ...] = ("jsonl", "json", "csv", "tsv", "parquet", "hf")
SUFFIXES: Mapping[str, InputFormat] = {**TEXT_SUFFIXES, ".parquet": "parquet", ".pq": "parquet"}

FieldsGiven = FieldMap | Mapping[str, str | Sequence[str]] | Sequence[str] | None
"""A field map: a `FieldMap`, ``{"query": "prompt", "candidates": ["a", "b"]}``, or ``["query=prompt"]``."""


class Reading(BaseModel):
    """How an input is read: its format, preset, field map, split, and the fields its ids and systems
    are made of; recorded in a judge run's record (``inputs.input.read_as``) so that later commands
    read the input as the run did.

    Examples:
        >>> Reading(format="csv", fields=FieldMap(query="prompt")).plain
        False
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: InputFormat | None = None
    """None: from the path (its suffix; a directory is a Hugging Face dataset; else JSON Lines)."""
    preset: str | None = None
    fields: FieldMap | None = None
    split: str | None = None
    """The split of a Hugging Face dataset (None: its only one)."""
    id_fields: tuple[str, ...] | None = None
    """The fields (or metadata keys) each instance's id is made of, joined by ``|`` (``--id doc,system``);
    None: the id field's own."""
    system_by: str | None = None
    """The field (or metadata key) naming the system behind the candidates of an instance that names
    none of its own (``--system-by``): a name (one candidate), or a list of one per candidate."""

    @property
    def plain(self) -> bool:
        """Whether the input is read as it is, with nothing said of how (canonical JSONL by default)."""
        return self == PLAIN

    def format_of(self, path: str | Path) -> InputFormat:
        """The format of ``path`` read this way."""
        if self.format is not None:
            return self.format
        if Path(path).is_dir():
            return "hf"
        return SUFFIXES.get(Path(path).suffix.lower(), "jsonl")

    @property
    def keys(self) -> Keys:
        """How the reader makes ids and systems of the instances' fields."""
        return Keys(self.id_fields, self.system_by)


PLAIN = Reading()


def reading_of(
    *,
    fields: FieldsGiven = None,
    preset: str | None = None,
    label_map: str | Mapping[str, int] | None = None,
    format: InputFormat | None = None,
    split: str | None = None,
    id_fields: str | Sequence[str] | None = None,
    system_by: str | None = None,
) -> Reading:
    """The `Reading` of `read_instances`'s keywords.

    Raises:
        ConfigError: An unknown preset or format, a malformed field map or label map, a label map
            for a preset's own label (map ``label=COLUMN`` with it), id fields beside an id column
            (``id=COLUMN``), or a blank or repeated id field.
    """
    if format is not None and format not in FORMATS:
        raise ConfigError(f"unknown format {format!r}; the formats are: {', '.join(FORMATS)}")
    field_map = _field_map(fields, label_map)
    names = _id_fields(id_fields)
    if names is not None and field_map is not None and field_map.id is not None:
        raise ConfigError(
            f"the id is read from the column {field_map.id!r} (id=COLUMN) and made of {','.join(names)} "
            "(id fields): give one of them"
        )
    if system_by is not None and not system_by.strip():
        raise ConfigError("system_by names no field: give the field or column holding each system's name")
    if preset is not None:
        get_preset(preset)
        if field_map is not None and field_map.label_map is not None and field_map.label is None:
            raise ConfigError(
                f"the preset {preset} reads its own label; a label map needs the column it maps "
                "(--field label=COLUMN)"
            )
    return Reading(
        format=format, preset=preset, fields=field_map, split=split, id_fields=names, system_by=system_by
    )


def _id_fields(given: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """The fields an id is made of: a list, or a text of comma-separated names."""
    if given is None:
        return None
    names = tuple(name.strip() for name in (given.split(",") if isinstance(given, str) else given))
    if not names or not all(names):
        raise ConfigError(f"id fields {given!r}: give one or more field names, separated by commas")
    if len(set(names)) < len(names):
        raise ConfigError(f"id fields {given!r} name a field twice")
    return names


def _field_map(fields: FieldsGiven, label_map: str | Mapping[str, int] | None) -> FieldMap | None:
    if isinstance(fields, FieldMap):
        if label_map is None:
            return fields
        parsed = parse_field_options([], label_map=label_map).label_map
        return fields.model_copy(update={"label_map": parsed})
    if fields is None and label_map is None:
        return None
    if isinstance(fields, Mapping):
        options = [f"{k}={v if isinstance(v, str) else ','.join(v)}" for k, v in fields.items()]
    elif isinstance(fields, str):
        raise ConfigError(f"fields={fields!r}: give a list of FIELD=COLUMN, a dict or a FieldMap")
    else:
        options = list(fields or ())
    return parse_field_options(options, label_map=label_map)


class InstanceFile(Iterator[Instance | InputError]):
    """The instances of an input file (or Hugging Face dataset), streamed (what `read_instances` of a
    path returns); ``path`` names it and ``reading`` says how it is read, so that a run judging them
    can record both (``judge(read_instances(path), ..., out=...)``)."""

    def __init__(
        self, path: str | Path, *, systems: Sequence[str] | None = None, reading: Reading = PLAIN
    ) -> None:
        self.path = Path(path)
        self.systems = None if systems is None else tuple(systems)
        """The systems named for the instances that name none (`read_instances`'s ``systems``)."""
        self.reading = reading
        self._items = read_path(path, reading, self.systems)

    def __iter__(self) -> InstanceFile:
        return self

    def __next__(self) -> Instance | InputError:
        return next(self._items)


@overload
def read_instances(
    source: str | os.PathLike[str],
    *,
    fields: FieldsGiven = None,
    preset: str | None = None,
    label_map: str | Mapping[str, int] | None = None,
    format: InputFormat | None = None,
    split: str | None = None,
    systems: Sequence[str] | None = None,
    id_fields: str | Sequence[str] | None = None,
    system_by: str | None = None,
) -> InstanceFile: ...


@overload
def read_instances(
    source: Iterable[Mapping[str, Any]] | Any,
    *,
    fields: FieldsGiven = None,
    preset: str | None = None,
    label_map: str | Mapping[str, int] | None = None,
    format: InputFormat | None = None,
    split: str | None = None,
    systems: Sequence[str] | None = None,
    id_fields: str | Sequence[str] | None = None,
    system_by: str | None = None,
) -> Iterator[Instance | InputError]: ...


def read_instances(
    source: Any,
    *,
    fields: FieldsGiven = None,
    preset: str | None = None,
    label_map: str | Mapping[str, int] | None = None,
    format: InputFormat | None = None,
    split: str | None = None,
    systems: Sequence[str] | None = None,
    id_fields: str | Sequence[str] | None = None,
    system_by: str | None = None,
) -> Iterator[Instance | InputError]:
    """The instances of ``source``, streamed; a bad row yields an `InputError` in its place.

    ``source`` is a path (JSONL, JSON, CSV, TSV or Parquet by its suffix, a directory written by a
    Hugging Face dataset's ``save_to_disk``; ``format`` says otherwise, ``format="hf"`` with a dataset
    name or folder for ``datasets.load_dataset``, ``split`` its split), a pandas DataFrame, or any
    iterable of dicts. ``fields`` maps the instance fields to the source's columns (``{"query":
    "prompt", "candidates": ["output_a", "output_b"]}``; unmapped fields take their own names or common
    aliases), ``label_map`` reads the label column's values (``{"a": 1, "b": 2, "tie": 0}``), and
    ``preset`` names a published layout (`faceteval.datasets.PRESETS`: ``alpacaeval``, ``mt-bench``,
    ``chatbot-arena``, ``hh-rlhf``, ``ultrafeedback``, ``ultrafeedback-binarized``). ``systems`` names
    the system behind each candidate of the instances that name none (`Instance.systems`).

    ``id_fields`` (``["doc", "system"]`` or ``"doc,system"``) makes each instance's id of those
    fields' values (an instance field such as ``category``, else a metadata key: a column no field
    uses), joined by ``|``; a value holding ``|`` is a bad row. ``system_by`` names the field (or
    metadata key) holding the system behind an instance's candidates (a name for a single output, or a
    list of one per candidate) for instances that name no ``systems`` of their own; ``systems`` then
    names those of the instances that have neither.

    A canonical JSONL file read without a mapping is read as ever: blank lines and a byte-order mark
    skipped, lines split at line feeds only, a record without ``id`` given its line number, a repeated
    id an error on the later line, a line that is not UTF-8 an error on that line. Other sources give a
    row without an id its row number (CSV: its line, the header being line 1). Errors name the source
    (the file, ``DataFrame``, ``records``, or ``NAME[SPLIT]``), the row and the source's column.

    pandas (for a DataFrame), pyarrow (Parquet) and ``datasets`` are imported only when needed.

    Raises:
        ConfigError: A bad keyword (unknown preset or format, malformed field map).
        InputError: The source cannot be opened or read, or is not of its format (when the first
            instance is read, for a path).
        MissingDependencyError: The extra its kind of source needs is not installed.

    Examples:
        >>> rows = [{"prompt": "2+2?", "output_a": "4", "output_b": "5", "winner": "a"}]
        >>> [(i.query, i.candidates, i.label) for i in read_instances(rows, fields={"label": "winner"})]
        [('2+2?', ('4', '5'), 1)]
    """
    reading = reading_of(
        fields=fields, preset=preset, label_map=label_map, format=format, split=split,
        id_fields=id_fields, system_by=system_by,
    )  # fmt: skip
    if isinstance(source, str | os.PathLike):
        return InstanceFile(os.fspath(source), systems=systems, reading=reading)
    if format is not None or split is not None:
        raise ConfigError("format= and split= are for a path; a DataFrame or records need neither")
    if is_data_frame(source):
        columns, records = frame_records(source)
        return _read_table(_context("DataFrame", reading, systems, "row"), columns, records)
    if isinstance(source, Mapping) or not isinstance(source, Iterable):
        raise ConfigError(
            f"read_instances reads a path, a pandas DataFrame or an iterable of dicts, not "
            f"{type(source).__name__}"
            + (" (one record: pass a list of them)" if isinstance(source, Mapping) else "")
        )
    ctx = _context("records", reading, systems, "row")
    return read_rows(ctx, dict_records(ctx.name, source))


def read_path(
    path: str | Path, reading: Reading, systems: Sequence[str] | None
) -> Iterator[Instance | InputError]:
    """The instances of the file (or dataset) at ``path``, read as ``reading`` says."""
    fmt = reading.format_of(path)
    if fmt == "hf":
        ctx = _context(hf_name(path, reading.split), reading, systems, "row")
        columns, records = hf_records(path, reading.split)
        yield from _read_table(ctx, columns, records)
    elif fmt == "parquet":
        ctx = _context(str(path), reading, systems, "row")
        columns, records = parquet_records(ctx.name)
        yield from _read_table(ctx, columns, records)
    else:
        ctx = _context(str(path), reading, systems, "line")
        canonical = reading.preset is None and reading.fields is None
        yield from load_text(ctx, fmt, strict_jsonl=True, canonical=canonical)


def _context(name: str, reading: Reading, systems: Sequence[str] | None, unit: Unit) -> RowContext:
    fields = reading.fields or DEFAULT_FIELD_MAP
    named = None if systems is None else tuple(systems)
    if reading.preset is None:
        return RowContext(name, fields, unit=unit, systems=named, keys=reading.keys)
    preset = get_preset(reading.preset)
    keyed = (*(reading.id_fields or ()), *([reading.system_by] if reading.system_by else []))
    keep = frozenset((*preset.keep, *named_columns(fields), *keyed))
    return RowContext(
        name, fields, unit=unit, prepare=preset.prepare, keep=keep, systems=named, keys=reading.keys
    )


def _read_table(
    ctx: RowContext, columns: list[str] | None, records: Records
) -> Iterator[Instance | InputError]:
    if columns is not None and (problem := column_problem(ctx, columns)) is not None:
        raise problem
    yield from read_rows(ctx, records)


def measure_input(path: Path, reading: Reading = PLAIN) -> tuple[int, str | None]:
    """How many instances the input at ``path`` holds, about (for a progress bar: non-blank lines; a
    CSV's less its header; a Parquet file's rows; 0 when not known, as for a JSON array or a dataset),
    and the SHA-256
    of its bytes (None for a dataset directory or name).

    The input is read more than once (measured, then judged, and again by later commands), so it must
    be a file or a dataset: not standard input, nor a pipe.

    Raises:
        InputError: The input is not a file, or cannot be read.
    """
    fmt = reading.format_of(path)
    if fmt == "hf":
        return 0, None
    if str(path) == "-" or (path.exists() and not path.is_file()):
        raise InputError(
            str(path),
            None,
            None,
            "not a file (standard input or a pipe?): the input is read more than once, by this "
            "command and by later ones, so save it to a file and judge that",
        )
    count, digest = 0, hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for line in handle:
                count += bool(line.strip())
                digest.update(line)
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    if fmt == "parquet":
        count = _parquet_rows(path)
    elif fmt in ("csv", "tsv"):
        count = max(count - 1, 0)
    elif fmt == "json" and _starts_an_array(path):
        count = 0  # its records are not its lines
    return count, digest.hexdigest()


def _starts_an_array(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[")


def _parquet_rows(path: Path) -> int:
    try:
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # not installed, or not Parquet: reading it says so
        return 0
