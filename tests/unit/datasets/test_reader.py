"""The one reader: every format (JSONL, JSON arrays, CSV/TSV, Parquet, Hugging Face datasets, DataFrames,
iterables of dicts), field maps on each, and bad rows named by source, row and column while the rest read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from faceteval import read_instances
from faceteval.core import Instance
from faceteval.datasets import FieldMap, InstanceFile, Reading
from faceteval.datasets.internal import measure_input
from faceteval.errors import ConfigError, InputError

ROWS: list[dict[str, Any]] = [
    {"prompt": "What is 2+2?", "output_a": "4", "output_b": "5", "winner": "a"},
    {"prompt": "Capital of France?", "output_a": "Lyon", "output_b": "Paris", "winner": "b"},
    {"prompt": 7, "output_a": "x", "output_b": "y", "winner": "tie"},  # bad: the prompt is a number
    {"prompt": "Name a prime.", "output_a": "4", "output_b": "7", "winner": "tie"},
]
FIELDS = ["query=prompt", "candidates=output_a,output_b", "label=winner"]
LABELS = "a=1,b=2,tie=0"


def split(items: Any) -> tuple[list[Instance], list[InputError]]:
    listed = list(items)
    return [i for i in listed if isinstance(i, Instance)], [i for i in listed if isinstance(i, InputError)]


def check_rows(items: Any, *, name: str, bad_row: int, column: str = "prompt") -> list[Instance]:
    """The good rows are read in order, and the bad one is an error naming source, row and column."""
    good, bad = split(items)
    assert [(i.query, i.candidates, i.label) for i in good] == [
        ("What is 2+2?", ("4", "5"), 1),
        ("Capital of France?", ("Lyon", "Paris"), 2),
        ("Name a prime.", ("4", "7"), 0),
    ]
    (error,) = bad
    assert (error.path, error.line, error.field) == (name, bad_row, column)
    assert "expected text, got a number" in error.problem
    assert str(error).startswith(f"{name}:{bad_row}: field '{column}'")
    return good


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict[str, Any]], *, row_group_size: int = 2) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([{**r, "prompt": str(r["prompt"])} for r in rows])
    if any(not isinstance(r["prompt"], str) for r in rows):  # a bad row: the prompt column holds null
        table = table.set_column(
            0, "prompt", pa.array([r["prompt"] if isinstance(r["prompt"], str) else None for r in rows])
        )
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


# --- text files ---------------------------------------------------------------------------------


def test_a_jsonl_file_in_other_names_is_read_by_its_aliases_and_a_label_map(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    items = read_instances(path, label_map=LABELS)
    assert isinstance(items, InstanceFile) and items.path == path
    check_rows(items, name=str(path), bad_row=3)


def test_a_json_array_is_read_and_its_errors_name_the_record(tmp_path: Path) -> None:
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(ROWS, indent=2), encoding="utf-8")
    good, bad = split(read_instances(path, fields=FIELDS, label_map=LABELS))
    assert len(good) == 3 and [i.id for i in good] == ["1", "2", "4"]
    assert measure_input(path, Reading())[0] == 0  # not known before reading: no record is a line
    assert (bad[0].line, bad[0].field) == (3, "prompt") and bad[0].problem.startswith("record 3: ")


@pytest.mark.parametrize(("suffix", "delimiter"), [(".csv", ","), (".tsv", "\t")])
def test_csv_and_tsv_with_a_field_map(tmp_path: Path, suffix: str, delimiter: str) -> None:
    path = tmp_path / f"pairs{suffix}"
    header = ["prompt", "output_a", "output_b", "winner"]
    lines = [delimiter.join(header)]
    for row in ROWS:
        values = [str(row[c]) for c in header]
        lines.append(delimiter.join(values if row is not ROWS[2] else ["Q", "x", "y", "maybe"]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    good, bad = split(read_instances(path, fields=FIELDS, label_map=LABELS))
    assert [i.label for i in good] == [1, 2, 0] and [i.id for i in good] == ["2", "3", "5"]  # header = line 1
    (error,) = bad
    assert (error.path, error.line, error.field) == (str(path), 4, "winner")
    assert "winner='maybe' is not in the label map" in error.problem


def test_a_csv_that_lacks_a_mapped_column_fails_at_its_header(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("prompt,a,b\nQ,x,y\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        list(read_instances(path, fields={"candidates": ["a", "b"], "label": "winner"}))
    assert (caught.value.line, caught.value.field) == (1, "winner")


def test_canonical_jsonl_is_read_as_before_with_its_own_messages(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [{"query": "Q", "candidates": ["a", "b"]}, {"query": "Q"}])
    items = read_instances(path)
    assert items.reading.plain
    good, bad = split(items)
    assert len(good) == 1 and str(bad[0]) == f"{path}:2: field 'candidates': Field required"


def test_systems_name_the_candidates_of_rows_that_name_none(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", [{"prompt": "Q", "output_a": "x", "output_b": "y"}])
    (instance,) = read_instances(path, systems=["base", "tuned"])
    assert isinstance(instance, Instance) and instance.systems == ("base", "tuned")
    (error,) = read_instances(path, systems=["only"])
    assert isinstance(error, InputError) and error.field == "systems"
    assert error.problem.endswith("as given for every instance that names no systems")


def test_systems_from_columns(tmp_path: Path) -> None:
    rows = [{"prompt": "Q", "output_a": "x", "output_b": "y", "model_a": "m1", "model_b": "m2"}]
    path = write_jsonl(tmp_path / "pairs.jsonl", rows)
    (instance,) = read_instances(path, fields=["systems=model_a,model_b"])
    assert isinstance(instance, Instance) and instance.systems == ("m1", "m2")
    assert "model_a" not in instance.metadata


# --- Parquet ------------------------------------------------------------------------------------


def test_parquet_is_read_by_row_groups_and_a_bad_row_is_named(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "pairs.parquet", ROWS)
    items = read_instances(path, label_map=LABELS)
    good, bad = split(items)
    assert [(i.query, i.label) for i in good] == [
        ("What is 2+2?", 1),
        ("Capital of France?", 2),
        ("Name a prime.", 0),
    ]
    (error,) = bad
    assert (error.path, error.line, error.field) == (str(path), 3, "prompt")
    assert error.problem == "row 3: expected text, got null"
    assert measure_input(path)[0] == 4


def test_parquet_streams_a_batch_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    from faceteval.datasets import _tables

    rows = [{"prompt": f"Q{n}", "output_a": "x", "output_b": "y"} for n in range(10)]
    path = write_parquet(tmp_path / "many.parquet", rows, row_group_size=2)
    batches: list[int] = []
    original = pq.ParquetFile.iter_batches

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        for batch in original(self, *args, **kwargs):
            batches.append(batch.num_rows)
            yield batch

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", counted)
    monkeypatch.setattr(_tables, "BATCH_ROWS", 2)
    items = read_instances(path)
    first = next(items)
    assert isinstance(first, Instance) and first.query == "Q0"
    assert batches == [2]  # one batch read for the first instance, not the whole file
    assert len(list(items)) == 9 and batches == [2] * 5


def test_a_file_that_is_not_parquet_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.parquet"
    path.write_text("not parquet", encoding="utf-8")
    with pytest.raises(InputError, match="cannot read as Parquet") as caught:
        list(read_instances(path))
    assert caught.value.path == str(path)


def test_a_parquet_column_the_map_names_and_the_file_lacks_fails_before_any_row(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "pairs.parquet", ROWS[:2])
    with pytest.raises(InputError, match="no such column; the columns are: prompt, output_a") as caught:
        list(read_instances(path, fields=["label=verdict"]))
    assert caught.value.field == "verdict"


# --- DataFrames and iterables -------------------------------------------------------------------


def test_a_data_frame_with_numpy_values_and_missing_ones(tmp_path: Path) -> None:
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(ROWS)
    frame["winner"] = [1.0, 2.0, np.nan, 0.0]  # a label column with a hole is a float column
    frame["rating"] = np.array([1, 2, 3, 4], dtype=np.int64)
    good, bad = split(read_instances(frame, fields=FIELDS))
    assert [(i.query, i.label) for i in good] == [
        ("What is 2+2?", 1),
        ("Capital of France?", 2),
        ("Name a prime.", 0),
    ]
    assert good[0].metadata == {"rating": 1} and type(good[0].metadata["rating"]) is int
    (error,) = bad
    assert str(error) == "DataFrame:3: field 'prompt': row 3: expected text, got a number"


def test_an_iterable_of_dicts_and_what_is_not_one() -> None:
    rows = [*ROWS, "not a dict"]
    good, bad = split(read_instances(iter(rows), label_map=LABELS))
    assert len(good) == 3
    assert [(e.path, e.line, e.field) for e in bad] == [("records", 3, "prompt"), ("records", 5, None)]
    assert "expected a dict" in bad[1].problem
    with pytest.raises(ConfigError, match="one record: pass a list of them"):
        read_instances(ROWS[0])


def test_a_hugging_face_dataset_object_is_an_iterable_of_dicts() -> None:
    import datasets

    dataset = datasets.Dataset.from_list([{**r, "prompt": str(r["prompt"])} for r in ROWS])
    good, bad = split(read_instances(dataset, label_map=LABELS))
    assert len(good) == 4 and not bad


# --- Hugging Face datasets ----------------------------------------------------------------------


def test_a_dataset_saved_to_disk_with_its_split(tmp_path: Path) -> None:
    import datasets

    clean = [{**r, "prompt": str(r["prompt"]) if r is not ROWS[2] else ""} for r in ROWS]
    both = datasets.DatasetDict(
        {"train": datasets.Dataset.from_list(clean[:1]), "test": datasets.Dataset.from_list(clean)}
    )
    both.save_to_disk(str(tmp_path / "saved"))
    items = read_instances(tmp_path / "saved", split="test", label_map=LABELS)
    good, bad = split(items)
    assert len(good) == 4 and not bad and good[1].candidates == ("Lyon", "Paris")
    with pytest.raises(InputError, match="no split given; the splits are: train, test") as caught:
        list(read_instances(tmp_path / "saved"))
    assert caught.value.path == str(tmp_path / "saved")
    with pytest.raises(InputError, match="no split 'dev'"):
        list(read_instances(tmp_path / "saved", split="dev"))
    assert measure_input(tmp_path / "saved") == (0, None)


def test_a_folder_of_data_files_is_loaded_by_load_dataset_and_bad_rows_named(tmp_path: Path) -> None:
    folder = tmp_path / "hub-layout"
    folder.mkdir()
    write_jsonl(folder / "test.jsonl", ROWS)
    items = read_instances(folder, format="hf", split="test", fields=FIELDS, label_map=LABELS)
    check_rows(items, name=f"{folder}[test]", bad_row=3)


def test_a_dataset_that_cannot_be_loaded_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(
        InputError, match=r"cannot load the dataset \(no such directory here; a dataset on the Hub"
    ):
        list(read_instances(tmp_path / "nothing-here", format="hf"))


# --- keywords -----------------------------------------------------------------------------------


def test_bad_keywords_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown preset 'alpaca'; the presets are: alpacaeval"):
        read_instances("x.jsonl", preset="alpaca")
    with pytest.raises(ConfigError, match="a label map needs the column it maps"):
        read_instances("x.jsonl", preset="hh-rlhf", label_map="a=1")
    with pytest.raises(ConfigError, match="unknown format 'xlsx'"):
        read_instances("x.xlsx", format="xlsx")  # type: ignore[call-overload]
    with pytest.raises(ConfigError, match="format= and split= are for a path"):
        read_instances([], split="test")


def test_a_field_map_object_and_the_reading_recorded() -> None:
    reading = read_instances("x.csv", fields=FieldMap(query="prompt"), label_map={"a": 1}).reading
    assert reading == Reading(fields=FieldMap(query="prompt", label_map={"a": 1}))
    assert reading.model_dump(mode="json", exclude_none=True) == {
        "fields": {"query": "prompt", "label_map": {"a": 1}, "label_base": 1}
    }


# --- optional extras ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blocked", "source", "keywords", "extra"),
    [
        (("pyarrow", "pyarrow.parquet"), "x.parquet", {}, "pandas"),
        (("datasets",), "some/dataset", {"format": "hf"}, "datasets"),
    ],
)
def test_a_missing_extra_is_named_with_its_install_command(
    monkeypatch: pytest.MonkeyPatch,
    blocked: tuple[str, ...],
    source: str,
    keywords: dict[str, Any],
    extra: str,
) -> None:
    import sys

    from faceteval.errors import MissingDependencyError

    for name in blocked:
        monkeypatch.setitem(sys.modules, name, None)  # import raises ModuleNotFoundError
    with pytest.raises(MissingDependencyError, match=rf"pip install 'faceteval\[{extra}\]'"):
        list(read_instances(source, **keywords))


def test_faceteval_imports_and_reads_jsonl_without_pandas_pyarrow_or_datasets(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = write_jsonl(tmp_path / "p.jsonl", ROWS[:2])
    code = (
        "import sys\n"
        "for name in ('pandas', 'pyarrow', 'datasets'): sys.modules[name] = None\n"
        "import faceteval\n"
        f"items = list(faceteval.read_instances({str(path)!r}))\n"
        "print(len(items), sorted(m for m in ('pandas', 'pyarrow', 'datasets') if sys.modules.get(m)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2 []"
