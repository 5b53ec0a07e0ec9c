"""The ledger of provider batches in the response cache's SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from faceteval.store import SQLiteCache


def test_a_batch_is_recorded_at_upload_then_creation_and_kept_across_reopenings(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    with SQLiteCache(path) as cache:
        row = cache.batches.uploaded(
            provider="openai", identity="openai", model="m", round=2, input_file_id="file_1", requests=7
        )
        assert cache.batches.pending("openai")[0].batch_id is None
        cache.batches.created(row, "batch_1", "validating")
    with SQLiteCache(path) as cache:
        (pending,) = cache.batches.pending("openai")
        assert (pending.batch_id, pending.round, pending.requests, pending.status) == (
            "batch_1",
            2,
            7,
            "validating",
        )
        assert cache.batches.pending("anthropic") == []
        cache.batches.imported(row)
        assert cache.batches.pending("openai") == []
        (done,) = cache.batches.all()
        assert done.status == "imported" and done.finished_at is not None


def test_a_cache_written_before_batches_existed_gains_the_table_and_keeps_its_replies(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('schema_version', '1');"
        "CREATE TABLE responses (key TEXT PRIMARY KEY, identity TEXT NOT NULL, model TEXT NOT NULL,"
        " completion TEXT NOT NULL, created_at TEXT NOT NULL);"
        """INSERT INTO responses VALUES ('k', 'openai', 'm', '{"text": "hi"}', '2026-01-01');"""
    )
    db.commit()
    db.close()
    with SQLiteCache(path) as cache:
        assert cache.batches.all() == []
        hit = cache.get("k")
        assert hit is not None and hit.text == "hi"


def test_refusals_are_kept_by_batch_across_reopenings_and_marked_when_given_up(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    with SQLiteCache(path) as cache:
        first, second = (
            cache.batches.uploaded(
                provider="files", identity="x", model="m", round=n, input_file_id=f"f{n}", requests=2
            )
            for n in (1, 2)
        )
        cache.batches.refused(first, {"k1": "status 400: refused", "k2": "status 500"})
        cache.batches.refused(second, {"k1": "status 400: refused again"})
        cache.batches.refused(second, {})  # nothing to record
    with SQLiteCache(path) as cache:
        assert {(r.custom_id, r.reason) for r in cache.batches.refusals([first])} == {
            ("k1", "status 400: refused"),
            ("k2", "status 500"),
        }
        (again,) = cache.batches.refusals([second])
        assert (again.row, again.reason, again.given_up) == (second, "status 400: refused again", False)
        assert cache.batches.refusals([]) == []
        cache.batches.give_up([second])
        assert [r.given_up for r in cache.batches.refusals([first, second])] == [False, False, True]
