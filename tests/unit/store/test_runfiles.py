"""A record describes the files beside it, those it wrote and those already in place, and a reader
can tell files it describes from another run's."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from faceteval.errors import InputError, StoreError
from faceteval.store import RunFiles
from faceteval.store.internal import check_written


def test_a_record_describes_files_already_in_place_beside_those_it_writes(tmp_path: Path) -> None:
    earlier = tmp_path / "judgments.jsonl"
    earlier.write_text('{"id": "1"}\n{"id": "2"}\n')
    record = tmp_path / "summary.json"
    with RunFiles([tmp_path / "instances.jsonl"], record, described=[earlier]) as files:
        files[tmp_path / "instances.jsonl"].write('{"id": "1"}\n')
        files.finish({"schema_version": 1})
    written = json.loads(record.read_text())["written"]
    assert written == {
        "instances.jsonl": {"lines": 1, "sha256": hashlib.sha256(b'{"id": "1"}\n').hexdigest()},
        "judgments.jsonl": {"lines": 2, "sha256": hashlib.sha256(earlier.read_bytes()).hexdigest()},
    }
    check_written(json.loads(record.read_text()), record)


def test_a_described_file_that_is_gone_leaves_no_record(tmp_path: Path) -> None:
    record = tmp_path / "summary.json"
    with RunFiles([], record, described=[tmp_path / "judgments.jsonl"]) as files, pytest.raises(StoreError):
        files.finish({"schema_version": 1})
    assert not record.exists()


def test_files_other_than_those_described_are_refused_naming_them(tmp_path: Path) -> None:
    judgments, record = tmp_path / "judgments.jsonl", tmp_path / "summary.json"
    judgments.write_text('{"id": "1"}\n')
    with RunFiles([], record, described=[judgments]) as files:
        files.finish({"schema_version": 1})
    summary = json.loads(record.read_text())

    judgments.write_text('{"id": "1"}\n{"id": "other run"}\n')
    with pytest.raises(InputError) as changed:
        check_written(summary, record)
    assert str(changed.value) == (
        f"{judgments}: not the file summary.json describes: it was changed since, or is another run's "
        "(2 lines; it wrote 1); run the command again, or put back the file it wrote"
    )
    judgments.unlink()
    with pytest.raises(
        InputError, match=r"judgments\.jsonl: not the file summary\.json describes: it is missing"
    ):
        check_written(summary, record)
    check_written({"schema_version": 1}, record)  # written before records described their files
    with pytest.raises(InputError, match=r"field 'written': '\.\./judgments\.jsonl' is not a file name"):
        check_written({"written": {"../judgments.jsonl": {"sha256": "0"}}}, record)
