"""A JSON input line that gives a key twice is refused, naming the file, line and key (JSON would keep
the last value silently), in every reader of lines; a CSV cell is read at any length a JSONL line
holds, and one past the limit names its row."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from faceteval import read_instances
from faceteval.core import Instance
from faceteval.datasets import FieldMap, load_labelled, parse_field_options, read_judgments
from faceteval.errors import InputError

GOOD = '{"id": "ok", "query": "Why?", "candidates": ["a", "b"]}'
REPEATS = [
    ('{"id": "a", "id": "b", "query": "Why?", "candidates": ["a", "b"]}', "id"),
    ('{"id": "a", "query": "Why?", "candidates": ["a", "b"], "candidates": ["c", "d"]}', "candidates"),
    ('{"id": "a", "query": "Why?", "candidates": ["a", "b"], "metadata": {"k": 1, "k": 2}}', "k"),
    ('{"id": "a", "query": "Why?", "candidates": ["a", "b"], "label": 1, "label": 2}', "label"),
    ('{"id": "a", "query": "Why?", "candidates": ["a", "b"], "scores": {"x": 1, "x": 5}}', "x"),
]


def lines(path: Path, *texts: str) -> Path:
    path.write_text("".join(f"{text}\n" for text in texts), encoding="utf-8")
    return path


@pytest.mark.parametrize(("line", "key"), REPEATS)
def test_an_instance_line_giving_a_key_twice_is_refused_and_the_rest_read(
    tmp_path: Path, line: str, key: str
) -> None:
    path = lines(tmp_path / "in.jsonl", GOOD, line, GOOD.replace('"ok"', '"ok2"'))
    for items in (read_instances(path), load_labelled(path, FieldMap())):
        read = list(items)
        assert [i.id for i in read if isinstance(i, Instance)] == ["ok", "ok2"]
        (error,) = [i for i in read if isinstance(i, InputError)]
        assert str(error).startswith(f"{path}:2: field '{key}': the key '{key}' is given twice")


def test_a_mapped_jsonl_line_giving_a_column_twice_is_refused(tmp_path: Path) -> None:
    path = lines(tmp_path / "in.jsonl", '{"prompt": "q", "a": "x", "b": "y", "prompt": "p"}')
    (error,) = list(load_labelled(path, parse_field_options(["query=prompt", "candidates=a,b"])))
    assert isinstance(error, InputError) and "the key 'prompt' is given twice" in str(error)


def test_a_judgment_line_giving_a_key_twice_is_refused(tmp_path: Path) -> None:
    path = lines(
        tmp_path / "j.jsonl", '{"id": "a", "method": "m", "status": "ok", "verdict": 1, "verdict": 2}'
    )
    with pytest.raises(InputError, match=r"j\.jsonl:1: field 'verdict': the key 'verdict' is given twice"):
        list(read_judgments(path))


def test_keys_repeated_in_different_objects_are_not_repeats(tmp_path: Path) -> None:
    line = '{"id": "a", "query": "q", "candidates": ["x", "y"], "metadata": {"id": 1, "n": {"id": 2}}}'
    (instance,) = read_instances(lines(tmp_path / "in.jsonl", line))
    assert isinstance(instance, Instance) and instance.metadata == {"id": 1, "n": {"id": 2}}


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


def test_a_csv_cell_is_read_at_the_length_a_jsonl_line_holds(tmp_path: Path) -> None:
    long = "word " * 200_000  # 1 MB: past the csv module's own limit of 128 KiB
    path = write_csv(
        tmp_path / "in.csv", [["query", "output_a", "output_b"], ["q", long, "short"], ["r", "a", "b"]]
    )
    read = list(read_instances(path))
    assert [len(i.candidates[0]) for i in read if isinstance(i, Instance)] == [len(long), 1]
    jsonl = lines(tmp_path / "in.jsonl", json.dumps({"query": "q", "candidates": [long, "short"]}))
    assert [i.candidates for i in read_instances(jsonl)] == [read[0].candidates]  # type: ignore[union-attr]


def test_a_csv_cell_past_the_limit_names_its_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import faceteval.datasets._generic as generic

    before = csv.field_size_limit()
    monkeypatch.setattr(generic, "MAX_CELL", 1000)
    csv.field_size_limit(1000)
    try:
        rows = [["query", "output_a", "output_b"], ["q", "a", "b"], ["r", "x" * 5000, "b"], ["s", "a", "b"]]
        path = write_csv(tmp_path / "in.csv", rows)
        read = iter(read_instances(path))
        assert next(read).id == "2"  # type: ignore[union-attr]
        with pytest.raises(InputError, match=r"in\.csv:3: a cell is longer than 1,000 characters"):
            next(read)
    finally:
        csv.field_size_limit(before)
