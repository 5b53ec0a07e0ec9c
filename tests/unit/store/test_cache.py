import sqlite3
from pathlib import Path

import pytest

from faceteval.errors import StoreError
from faceteval.llm import Completion, TokenLogprob
from faceteval.store import SQLiteCache


def test_completions_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "cache.sqlite"
    completion = Completion(
        text="8 6",
        input_tokens=12,
        output_tokens=3,
        finish_reason="stop",
        model="m",
        logprobs=(TokenLogprob("8", -0.1, (("8", -0.1), ("7", -2.5))),),
    )
    with SQLiteCache(path) as cache:
        cache.put("k", completion, identity="openai", model="m")
    with SQLiteCache(path) as cache:
        assert cache.get("k") == completion
        assert cache.get("other") is None
        assert len(cache) == 1


def test_foreign_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    SQLiteCache(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99"):
        SQLiteCache(path)


def test_unusable_path_names_the_file_and_the_way_out(tmp_path: Path) -> None:
    not_a_db = tmp_path / "cache.sqlite"
    not_a_db.write_text("this is not a database" * 100)
    with pytest.raises(StoreError, match=r"cache\.sqlite.*--no-cache"):
        SQLiteCache(not_a_db)


def test_a_folder_that_cannot_be_made_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with pytest.raises(StoreError, match=r"afile/c\.sqlite: .*--no-cache"):
        SQLiteCache(tmp_path / "afile" / "c.sqlite")


def test_an_entry_damaged_outside_is_asked_again_and_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "c.sqlite"
    completion = Completion(text="7", input_tokens=1, output_tokens=1, finish_reason="stop", model="m")
    with SQLiteCache(path) as cache:
        cache.put("k", completion, identity="openai", model="m")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE responses SET completion = '{not json'")
    with SQLiteCache(path) as cache:
        assert cache.get("k") is None  # a miss: the request is made again
        assert "unreadable entry" in caplog.text
        cache.put("k", completion, identity="openai", model="m")
        assert cache.get("k") == completion


@pytest.mark.parametrize(
    "damage",
    [
        "'null'",
        "'5'",
        "'\"x\"'",
        "'{\"text\": 5}'",
        '\'{"text": "7", "input_tokens": "many"}\'',
        "CAST(X'FF' AS TEXT)",
    ],
)
def test_every_kind_of_damaged_entry_is_a_miss(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "c.sqlite"
    completion = Completion(text="7", input_tokens=1, output_tokens=1, finish_reason="stop", model="m")
    with SQLiteCache(path) as cache:
        cache.put("k", completion, identity="openai", model="m")
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE responses SET completion = {damage}")
    with SQLiteCache(path) as cache:
        assert cache.get("k") is None
