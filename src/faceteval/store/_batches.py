"""The ledger of provider batches, kept in the response cache's SQLite file.

A batch is recorded the moment its input file is uploaded (without a batch id), and its id the moment
the provider answers the create call, before anything else happens: a killed run finds every batch it
paid for here when re-run, polls it, and never submits its requests again. The ``batch_refusals`` table
keeps why a batch did not answer a request (``--batch files``: the error lines ``batch import`` read), for
the run that asks it again, and whether a run gave it up after rounds without answers.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from faceteval.errors import StoreError

SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    row INTEGER PRIMARY KEY,
    provider TEXT NOT NULL,
    identity TEXT NOT NULL,
    model TEXT NOT NULL,
    round INTEGER NOT NULL,
    input_file_id TEXT NOT NULL,
    batch_id TEXT UNIQUE,
    requests INTEGER NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX IF NOT EXISTS batches_status ON batches (provider, status);
CREATE TABLE IF NOT EXISTS batch_refusals (
    batch INTEGER NOT NULL,
    custom_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    given_up INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (batch, custom_id)
);
"""

DONE = "imported"
"""The status of a batch whose results are in the cache (the provider's statuses are kept until then)."""


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One submitted batch.

    Attributes:
        row: Its row in the ledger.
        provider: ``openai`` or ``anthropic``.
        identity: The cache identity of the endpoint its replies are cached under.
        model: The model its requests ask.
        round: The pass that collected its requests (1 is the first).
        input_file_id: The uploaded request file.
        batch_id: The provider's id; None until the create call answered.
        requests: How many requests it holds.
        status: The provider's last status, or ``imported``.
        created_at: When it was recorded (UTC, ISO 8601).
        finished_at: When its results were imported.
    """

    row: int
    provider: str
    identity: str
    model: str
    round: int
    input_file_id: str
    batch_id: str | None
    requests: int
    status: str
    created_at: str
    finished_at: str | None


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request a batch did not answer, as recorded for a later run.

    Attributes:
        row: The ledger row of its batch.
        custom_id: The request's custom id (its cache key).
        reason: Why, as the batch said.
        given_up: A run gave it up after rounds without answers (a later run asks it again).
    """

    row: int
    custom_id: str
    reason: str
    given_up: bool


class BatchLedger:
    """The ``batches`` (and ``batch_refusals``) tables of a response cache; every write is committed
    before it returns."""

    def __init__(self, db: sqlite3.Connection, lock: threading.Lock, path: str) -> None:
        self._db = db
        self._lock = lock
        self._path = path

    def uploaded(
        self, *, provider: str, identity: str, model: str, round: int, input_file_id: str, requests: int
    ) -> int:
        """Record a request file uploaded for a batch not yet created; its row."""
        row = self._write(
            "INSERT INTO batches (provider, identity, model, round, input_file_id, requests, status, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, 'uploaded', ?)",
            (provider, identity, model, round, input_file_id, requests, _now()),
        )
        assert row is not None
        return row

    def created(self, row: int, batch_id: str, status: str) -> None:
        """Record the provider's id of the batch made from ``row``'s file."""
        self._write("UPDATE batches SET batch_id = ?, status = ? WHERE row = ?", (batch_id, status, row))

    def status(self, row: int, status: str) -> None:
        """Record the provider's latest status of a batch."""
        self._write("UPDATE batches SET status = ? WHERE row = ?", (status, row))

    def imported(self, row: int) -> None:
        """Record that a batch's results are in the cache: it is never polled again."""
        self._write("UPDATE batches SET status = ?, finished_at = ? WHERE row = ?", (DONE, _now(), row))

    def refused(self, row: int, reasons: Mapping[str, str]) -> None:
        """Record why requests of batch ``row`` were not answered (by custom id), for a later run to tell
        (``--batch files``, whose replies are imported by another command)."""
        if reasons:
            self._write_many(
                "INSERT OR REPLACE INTO batch_refusals (batch, custom_id, reason) VALUES (?, ?, ?)",
                [(row, custom_id, reason) for custom_id, reason in reasons.items()],
            )

    def refusals(self, rows: Iterable[int]) -> list[Refusal]:
        """The refusals recorded for the batches ``rows``."""
        wanted = list(rows)
        marks = ", ".join("?" * len(wanted))
        sql = f"SELECT * FROM batch_refusals WHERE batch IN ({marks}) ORDER BY batch, custom_id"
        with self._lock:
            try:
                found = self._db.execute(sql, wanted).fetchall() if wanted else []
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the batches of {self._path}: {exc}") from exc
        return [Refusal(row, custom_id, reason, bool(given_up)) for row, custom_id, reason, given_up in found]

    def give_up(self, rows: Iterable[int]) -> None:
        """Record that a run gave up the refused requests of the batches ``rows``: a later run starts
        counting its rounds without answers anew."""
        self._write_many("UPDATE batch_refusals SET given_up = 1 WHERE batch = ?", [(row,) for row in rows])

    def pending(self, provider: str) -> list[BatchRow]:
        """The batches of ``provider`` whose results are not yet in the cache, oldest first."""
        return self._read(
            "SELECT * FROM batches WHERE provider = ? AND status != ? ORDER BY row", (provider, DONE)
        )

    def all(self) -> list[BatchRow]:
        """Every batch recorded, oldest first."""
        return self._read("SELECT * FROM batches ORDER BY row", ())

    def _read(self, sql: str, args: tuple[object, ...]) -> list[BatchRow]:
        with self._lock:
            try:
                rows = self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the batches of {self._path}: {exc}") from exc
        return [BatchRow(*row) for row in rows]

    def _write_many(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        """``sql`` for each of ``rows``, in one transaction."""
        with self._lock:
            try:
                self._db.execute("BEGIN")
                try:
                    self._db.executemany(sql, rows)
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot record a batch in {self._path}: {exc}") from exc

    def _write(self, sql: str, args: tuple[object, ...]) -> int | None:
        with self._lock:
            try:
                return self._db.execute(sql, args).lastrowid
            except sqlite3.Error as exc:
                raise StoreError(f"cannot record a batch in {self._path}: {exc}") from exc


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
