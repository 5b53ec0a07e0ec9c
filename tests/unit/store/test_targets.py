"""Outputs are refused over files that are not ours: named, with what they are; --force for most."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from faceteval.errors import ConfigError
from faceteval.store import OutputKind, SQLiteCache
from faceteval.store.internal import (
    INSTANCES,
    JUDGMENTS,
    REPORT,
    RUN_RECORD,
    SUMMARY,
    check_outputs,
)
from faceteval.workflows.fennec._records import BRIDGE_RECORDS, CHATS, CORRECTIONS, SFT_STATS

JUDGMENT = '{"id": "1", "method": "dna", "status": "ok"}\n'


@pytest.mark.parametrize(
    ("kind", "ours", "not_ours"),
    [
        (JUDGMENTS, "\n" + JUDGMENT + "not even JSON\n", '{"id": "1", "status": "ok"}\n'),
        (CORRECTIONS, '{"id": "1", "candidate": 1, "status": "kept"}\n', JUDGMENT),
        (BRIDGE_RECORDS, '{"id": "1", "benchmark": "b", "status": "ok"}\n', JUDGMENT),
        (CHATS, '{"messages": []}\n', JUDGMENT),
        (INSTANCES, '{"id": "1", "query": "q", "candidates": ["a"]}\n', JUDGMENT),
        (RUN_RECORD, '{\n "schema_version": 1,\n "faceteval_version": "0.1"\n}\n', "[1, 2]\n"),
        (SUMMARY, '{"schema_version": 1, "n": 3}', '{"n": 3}'),
        (SFT_STATS, '{"sets": {}, "total": 0}', '{"sets": {}}'),
        (REPORT, "# a × b\n\n*faceteval 0.1.0*\n", "# notes\n"),
    ],
)
def test_a_file_is_told_to_be_of_its_kind_or_not(
    tmp_path: Path, kind: OutputKind, ours: str, not_ours: str
) -> None:
    path = tmp_path / "f"
    for text, expected in ((ours, True), (not_ours, False), ("", True), (" \n\n", True)):
        path.write_text(text)
        assert kind.holds(path) is expected, text
    path.write_bytes(b"\xff\xfe binary \x00")
    assert not kind.holds(path)


def sqlite_database(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    return path


def test_a_file_not_ours_is_named_with_what_it_is_and_written_over_only_when_forced(tmp_path: Path) -> None:
    database, table = sqlite_database(tmp_path / "review.sqlite"), tmp_path / "table.csv"
    table.write_text("id,score\n")
    SQLiteCache(tmp_path / "old-cache.sqlite").close()
    for target, what in (
        (database, "an SQLite database (a response cache or a review project?)"),
        (tmp_path / "old-cache.sqlite", "an SQLite database"),
        (table, "a file of something else"),
    ):
        with pytest.raises(ConfigError) as refused:
            check_outputs([(target, JUDGMENTS)], given=target)
        assert str(refused.value).startswith(f"--out {target} would overwrite {target}, {what}")
        assert str(refused.value).endswith("not judgments JSONL; write the output to another file, "
                                           "or pass --force to overwrite it")  # fmt: skip
        check_outputs([(target, JUDGMENTS)], given=target, force=True)


def test_the_input_the_cache_and_a_directory_are_refused_even_when_forced(tmp_path: Path) -> None:
    source, cache, folder = tmp_path / "in.jsonl", tmp_path / "new-cache.sqlite", tmp_path / "d"
    source.write_text(JUDGMENT)
    folder.mkdir()
    for target, message in (
        (tmp_path / "." / "in.jsonl", f"would overwrite the input {tmp_path / '.' / 'in.jsonl'}"),
        (cache, f"would overwrite the response cache {cache}"),  # not made yet: it would be
        (folder, f"would overwrite {folder}, a directory"),
    ):
        with pytest.raises(ConfigError, match=message):
            check_outputs([(target, JUDGMENTS)], given=target, inputs=[source], cache=cache, force=True)
    check_outputs([(tmp_path / "new.jsonl", JUDGMENTS)], given=tmp_path, inputs=[source], cache=cache)
