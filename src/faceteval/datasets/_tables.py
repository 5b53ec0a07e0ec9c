"""The rows of tables and datasets: Parquet files (streamed by batches), pandas DataFrames, Hugging Face
datasets, and any iterable of dicts, as ``(row number, record)`` pairs of plain Python values.

pyarrow, pandas and ``datasets`` are optional: each is imported only when its kind of input is read,
and a missing one is a `MissingDependencyError` naming the extra to install.
"""

from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from faceteval.errors import InputError, MissingDependencyError

BATCH_ROWS = 1024
"""Rows read at a time from a Parquet file."""

HF_SAVED_MARKERS = ("dataset_info.json", "state.json", "dataset_dict.json")
"""Files `datasets.Dataset.save_to_disk` leaves in the directory it writes."""

Records = Iterator[tuple[int, Mapping[str, Any] | InputError]]


def plain(value: Any) -> Any:
    """A value as plain JSON-like Python: numpy scalars and arrays as numbers and lists, NaN and pandas'
    missing values as None, dates as ISO text, decimals as floats (for the instance and its metadata)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if hasattr(value, "tolist"):  # a numpy array or scalar (item() of a 0-d one)
        return plain(value.tolist())
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas.NA, pandas.NaT
        return None
    if hasattr(value, "isoformat"):  # a pandas Timestamp
        return value.isoformat()
    return value


def parquet_records(name: str) -> tuple[list[str], Records]:
    """The column names of the Parquet file ``name`` and its rows, read a batch at a time.

    Raises:
        MissingDependencyError: pyarrow is not installed.
        InputError: The file cannot be opened or is not Parquet.
    """
    try:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyarrow.parquet as pq  # type: ignore[import-untyped]
    except ModuleNotFoundError as exc:
        raise MissingDependencyError("reading Parquet files", extra="pandas") from exc
    try:
        parquet = pq.ParquetFile(name)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(name, None, None, f"cannot read as Parquet: {exc}") from exc

    def rows() -> Records:
        number = 0
        for batch in parquet.iter_batches(batch_size=BATCH_ROWS):
            for record in batch.to_pylist():
                number += 1
                yield number, {key: plain(value) for key, value in record.items()}

    return list(parquet.schema_arrow.names), rows()


def is_data_frame(source: object) -> bool:
    """Whether ``source`` is a pandas DataFrame (told without importing pandas)."""
    return type(source).__name__ == "DataFrame" and type(source).__module__.startswith("pandas")


def frame_records(frame: Any) -> tuple[list[str], Records]:
    """The columns of a pandas DataFrame and its rows, numbered from 1 in order (not by index); its
    values as plain Python (`plain`), so pandas itself is not imported here."""
    columns = [str(column) for column in frame.columns]

    def rows() -> Records:
        for number, values in enumerate(frame.itertuples(index=False, name=None), start=1):
            yield number, {c: plain(v) for c, v in zip(columns, values, strict=True)}

    return columns, rows()


def dict_records(name: str, items: Iterable[Any]) -> Records:
    """The rows of an iterable of mappings; an item that is not one is an error on its row."""
    for number, item in enumerate(items, start=1):
        if isinstance(item, Mapping):
            yield number, {str(key): plain(value) for key, value in item.items()}
        else:
            problem = (
                f"row {number}: expected a dict (a mapping of field to value), got {type(item).__name__}"
            )
            yield number, InputError(name, number, None, problem)


def hf_name(name_or_path: str | Path, split: str | None) -> str:
    """How a Hugging Face dataset is named in messages: ``NAME`` or ``NAME[SPLIT]``."""
    return f"{name_or_path}[{split}]" if split else str(name_or_path)


def hf_records(name_or_path: str | Path, split: str | None) -> tuple[list[str] | None, Records]:
    """The columns (when known before reading) and rows of a Hugging Face dataset: a directory written
    by ``save_to_disk`` (memory-mapped, not loaded), else whatever ``datasets.load_dataset`` loads from
    ``name_or_path`` (a folder of data files here; a dataset on the Hub where there is a network),
    streamed.

    Raises:
        MissingDependencyError: ``datasets`` is not installed.
        InputError: The dataset cannot be loaded, or has several splits and ``split`` names none of them.
    """
    try:
        import datasets  # type: ignore[import-untyped]
    except ModuleNotFoundError as exc:
        raise MissingDependencyError("reading Hugging Face datasets", extra="datasets") from exc
    name = hf_name(name_or_path, split)
    path = Path(name_or_path)
    try:
        if path.is_dir() and any((path / marker).is_file() for marker in HF_SAVED_MARKERS):
            loaded: Any = datasets.load_from_disk(str(path))
        else:
            loaded = datasets.load_dataset(str(name_or_path), split=split, streaming=True)
    except Exception as exc:  # the library raises many kinds (not found, no network, bad files)
        hint = "" if path.exists() else " (no such directory here; a dataset on the Hub needs a network)"
        raise InputError(name, None, None, f"cannot load the dataset{hint}: {exc}") from exc
    loaded = _one_split(name, loaded, split)
    columns = getattr(loaded, "column_names", None)
    return (list(columns) if columns else None), dict_records(name, loaded)


def _one_split(name: str, loaded: Any, split: str | None) -> Any:
    """The split asked for of a dataset dict; its only split when none is asked for."""
    if not isinstance(loaded, Mapping):
        if split is not None and getattr(loaded, "split", None) not in (None, split):
            raise InputError(name, None, None, f"the dataset holds split {loaded.split!r}, not {split!r}")
        return loaded
    splits = list(loaded)
    if split is None and len(splits) == 1:
        return loaded[splits[0]]
    if split in loaded:
        return loaded[split]
    asked = "no split given" if split is None else f"no split {split!r}"
    raise InputError(
        name, None, None, f"{asked}; the splits are: {', '.join(splits)} (choose one with --split)"
    )
