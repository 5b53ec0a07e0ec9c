"""The SQLite response cache."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from faceteval._util.files import create_private
from faceteval.errors import StoreError
from faceteval.llm import Completion, TokenLogprob
from faceteval.store import _batches

SCHEMA_VERSION = 1
logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    model TEXT NOT NULL,
    completion TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""


class SQLiteCache:
    """Completions in one SQLite file, keyed by `faceteval.llm.internal.cache_key`.

    Every ``put`` is committed before it returns (WAL journal), so an interrupted run keeps every
    reply it received. One file may be shared by runs of different methods and models.

    Examples:
        >>> cache = SQLiteCache(":memory:")
        >>> cache.get("missing") is None
        True
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            if self.path != ":memory:":  # replies hold prompts and candidates: a new cache is its
                create_private(Path(self.path))  # owner's alone (SQLite gives -wal and -shm its mode)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA + _batches.SCHEMA)
            self._check_version()
        except (sqlite3.Error, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise StoreError(
                f"cannot open the response cache {self.path}: {reason}; "
                "pass another file with --cache PATH, or run with --no-cache"
            ) from exc
        self.batches = _batches.BatchLedger(self._db, self._lock, self.path)
        """The provider batches whose replies this cache takes (`--batch`)."""

    def _check_version(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) != SCHEMA_VERSION:
            raise StoreError(
                f"the response cache {self.path} has schema version {row[0]}, this faceteval reads "
                f"version {SCHEMA_VERSION}; use another file with --cache PATH"
            )

    def get(self, key: str) -> Completion | None:
        """The completion stored under ``key``, or None (also for an entry that cannot be read: it is
        asked again, and the new reply replaces it)."""
        with self._lock:
            try:
                row = self._db.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                if isinstance(exc, sqlite3.OperationalError) and "decode" in str(exc):  # not UTF-8 text
                    self._damaged(exc)
                    return None
                raise StoreError(f"cannot read the response cache {self.path}: {exc}") from exc
        if row is None:
            return None
        try:
            return _decode(row[0])
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            self._damaged(exc)
            return None

    def _damaged(self, problem: Exception) -> None:
        """Say that an entry was damaged outside faceteval: it reads as a miss, asked again and replaced."""
        logger.warning("the response cache %s has an unreadable entry (%s): asking again", self.path, problem)

    def put(self, key: str, completion: Completion, *, identity: str, model: str) -> None:
        """Store ``completion`` under ``key`` (committed before returning)."""
        data = json.dumps(_encode(completion), ensure_ascii=False)
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock:
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)",
                    (key, identity, model, data, stamp),
                )
            except sqlite3.Error as exc:
                if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
                    raise StoreError(
                        f"no space left writing the response cache {self.path} (the replies stored so "
                        "far are kept: free some space and run the command again)"
                    ) from exc
                raise StoreError(f"cannot write the response cache {self.path}: {exc}") from exc

    def other_identities(self, model: str, identity: str) -> list[str]:
        """The endpoint identities other than ``identity`` that replies of ``model`` are kept under.

        Examples:
            >>> from faceteval.llm import Completion
            >>> cache = SQLiteCache(":memory:")
            >>> cache.put("k", Completion(text="A"), identity="vllm@http://127.0.0.1:8001/v1", model="qwen")
            >>> cache.other_identities("qwen", "vllm@http://127.0.0.1:8002/v1")
            ['vllm@http://127.0.0.1:8001/v1']
        """
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT DISTINCT identity FROM responses WHERE model = ? AND identity != ? "
                    "ORDER BY identity LIMIT 10",
                    (model, identity),
                ).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the response cache {self.path}: {exc}") from exc
        return [str(row[0]) for row in rows]

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(count)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> SQLiteCache:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _encode(completion: Completion) -> dict[str, Any]:
    logprobs = completion.logprobs
    return {
        "text": completion.text,
        "input_tokens": completion.input_tokens,
        "output_tokens": completion.output_tokens,
        **({"cached_input_tokens": completion.cached_input_tokens} if completion.cached_input_tokens else {}),
        "finish_reason": completion.finish_reason,
        "model": completion.model,
        "logprobs": None
        if logprobs is None
        else [
            {"token": t.token, "logprob": t.logprob, "top": [list(pair) for pair in t.top]} for t in logprobs
        ],
    }


_TOKEN_COUNTS = ("input_tokens", "output_tokens", "cached_input_tokens")


def _decode(data: object) -> Completion:
    """The completion a row holds (ValueError when it is not one: damaged outside faceteval)."""
    raw = json.loads(data) if isinstance(data, str) else None
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        raise ValueError("not a completion")
    if not all(isinstance(raw.get(n, 0), int) for n in _TOKEN_COUNTS):
        raise ValueError("token counts that are not whole numbers")
    logprobs = raw.pop("logprobs", None)
    if logprobs is not None:
        raw["logprobs"] = tuple(
            TokenLogprob(token=t["token"], logprob=t["logprob"], top=tuple((a, b) for a, b in t["top"]))
            for t in logprobs
        )
    return Completion(**raw)
