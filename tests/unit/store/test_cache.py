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
