"""The index of a run's lines: where each line starts, and the few fields the filters need.

A run of 100,000 judgments is paged from disk: the index (SQLite, in a folder of indexes) holds each
line's offset and length, its id, status, verdict and orders' agreement, the facets it scores, and
the input's instances by id with their human labels and systems; a page reads its rows' lines alone.
The index is built the first time a run is opened, and kept up to date as the files change: a file
appended to is indexed from where the index ended, one replaced (a run written again) or edited is
indexed again whole. A file's identity is its device, inode, size and modification time.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from faceteval._util.files import create_private
from faceteval.errors import StoreError
from faceteval.viewer._fields import input_fields, line_fields
from faceteval.viewer._filters import Filters
from faceteval.viewer._index_db import open_index
from faceteval.viewer._lines import FileState, RunGone, file_lines, json_bytes, read_at, tail_of
from faceteval.viewer._record import Command

__all__ = ["BATCH", "Choices", "IndexedRow", "Page", "RunIndex"]

BATCH = 2000
"""Lines indexed between two writes to the index."""
MAX_FACETS = 500
"""Facets offered to filter by (the most frequent); any other can still be typed."""

_COLUMNS = (
    "r.line, r.offset, r.length, r.id, r.status, r.problem, r.verdict, r.consistent, "
    "i.label, i.line, i.offset, i.length"
)
_FROM = "FROM rows r LEFT JOIN inputs i ON i.id = r.id"


@dataclass(frozen=True, slots=True)
class IndexedRow:
    """A line of a run as the index has it, with its instance's place in the input."""

    line: int
    offset: int
    length: int
    id: str | None
    status: str
    problem: str | None
    verdict: int | None
    consistent: bool | None
    label: int | None
    input_line: int | None
    input_offset: int | None
    input_length: int | None

    @property
    def agrees(self) -> bool | None:
        """Whether the verdict is the human label (None without both)."""
        return None if self.label is None or self.verdict is None else self.verdict == self.label


@dataclass(frozen=True, slots=True)
class Page:
    """One page of the rows a filter keeps."""

    rows: list[IndexedRow]
    total: int
    """Rows the filter keeps, on every page."""
    number: int
    """1-based."""
    size: int

    @property
    def pages(self) -> int:
        """How many pages the rows fill (1 when there are none)."""
        return max(1, -(-self.total // self.size))


@dataclass(frozen=True, slots=True)
class Choices:
    """What the filters of a run can be set to: the values found in it."""

    statuses: list[tuple[str, int]]
    """Each status, with its count."""
    verdicts: list[int | None]
    facets: list[str]
    systems: list[str]
    labelled: bool
    """Some instance has a human label."""
    orders: bool
    """Some line was judged in several orders (``--swap``)."""


class RunIndex:
    """The index of one run's lines (and of its input's instances), in ``folder``.

    Args:
        command: The command that wrote the lines.
        lines: The run's JSONL.
        inputs: The instances it judged, to join by id (None: none to join).
        folder: Where indexes are kept (made if need be).
        run_systems: The systems the run names for every instance (``--systems A,B``).

    Raises:
        StoreError: The folder cannot be made or the index opened there.
    """

    def __init__(
        self,
        command: Command,
        lines: Path,
        inputs: Path | None,
        folder: Path,
        run_systems: Sequence[str] = (),
    ) -> None:
        self.command, self.lines, self.inputs = command, lines, inputs
        self.run_systems = tuple(run_systems)
        self.path = folder / f"{_digest(lines, inputs, self.run_systems)}.sqlite"
        self._lock = threading.RLock()
        self._choices: Choices | None = None
        self._names: dict[tuple[str, str], int] = {}
        try:
            create_private(self.path)  # it holds the runs' texts: its owner's alone, as the runs are
            self._db = open_index(self.path)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"{folder}: cannot keep the index of {lines} there ({exc}); choose another"
            ) from exc

    def close(self) -> None:
        """Close the index (it stays on disk for the next time)."""
        with self._lock:
            self._db.close()

    def refresh(self, *, force: bool = False) -> bool:
        """Bring the index up to date with the files (all of it again with ``force``); whether it changed.

        Raises:
            RunGone: The run's file is no longer there.
        """
        with self._lock:
            changed = self._refresh("lines", self.lines, self._index_lines, force=force)
            if self.inputs is not None and self.inputs.is_file():
                changed |= self._refresh("inputs", self.inputs, self._index_inputs, force=force)
            if changed:
                self._choices = None
            return changed

    def page(self, filters: Filters, number: int, size: int) -> Page:
        """The ``number``-th page (1-based) of ``size`` rows that ``filters`` keep, in file order."""
        where, params = self._where(filters)
        with self._lock:
            total = self._db.execute(f"SELECT COUNT(*) {_FROM} WHERE {where}", params).fetchone()[0]
            number = min(max(1, number), max(1, -(-total // size)))
            found = self._db.execute(
                f"SELECT {_COLUMNS} {_FROM} WHERE {where} ORDER BY r.line LIMIT ? OFFSET ?",
                [*params, size, (number - 1) * size],
            ).fetchall()
        return Page([_row(values) for values in found], total, number, size)

    def row(self, line: int) -> IndexedRow | None:
        """The row of line ``line``, if it is one."""
        with self._lock:
            found = self._db.execute(f"SELECT {_COLUMNS} {_FROM} WHERE r.line = ?", (line,)).fetchone()
        return None if found is None else _row(found)

    def neighbours(self, line: int, filters: Filters) -> tuple[int | None, int | None]:
        """The lines before and after ``line`` that ``filters`` keep."""
        where, params = self._where(filters)
        with self._lock:
            before = self._db.execute(
                f"SELECT MAX(r.line) {_FROM} WHERE {where} AND r.line < ?", [*params, line]
            ).fetchone()[0]
            after = self._db.execute(
                f"SELECT MIN(r.line) {_FROM} WHERE {where} AND r.line > ?", [*params, line]
            ).fetchone()[0]
        return before, after

    def choices(self) -> Choices:
        """The values the filters of this run can take."""
        with self._lock:
            if self._choices is None:
                self._choices = self._find_choices()
            return self._choices

    def read(self, row: IndexedRow) -> bytes:
        """The bytes of ``row``'s line (its line feed left out).

        Raises:
            Stale: The line is no longer where the index says.
            RunGone: The file is no longer there.
        """
        return read_at(self.lines, row.offset, row.length)

    def read_input(self, row: IndexedRow) -> bytes | None:
        """The bytes of ``row``'s instance in the input (None when it has none).

        Raises:
            Stale: The instance is no longer where the index says.
        """
        if self.inputs is None or row.input_offset is None or row.input_length is None:
            return None
        return read_at(self.inputs, row.input_offset, row.input_length)

    # -- building ------------------------------------------------------------------------------------

    def _refresh(
        self, role: str, path: Path, index: Callable[[Path, int, int], tuple[int, int]], *, force: bool
    ) -> bool:
        try:
            stat = path.stat()
        except OSError as exc:
            raise RunGone(f"{path}: no longer there ({exc.strerror or exc})") from None
        known = self._source(role)
        if known is not None and known.same(stat) and not force:
            return False
        appended = known is not None and not force and known.appended(stat, path)
        start, lines = (known.indexed_to, known.lines) if known is not None and appended else (0, 0)
        with self._db:
            self._forget(role, start)
            indexed_to, lines = index(path, start, lines)
            self._db.execute(
                "INSERT OR REPLACE INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (role, str(path), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, indexed_to,
                 lines, tail_of(path, indexed_to)),
            )  # fmt: skip
        return True

    def _forget(self, role: str, start: int) -> None:
        """Drop what the index has of ``role`` from byte ``start`` on (all of it from 0)."""
        if role == "lines":
            self._db.execute(
                "DELETE FROM row_facets WHERE line IN (SELECT line FROM rows WHERE offset >= ?)", (start,)
            )
            self._db.execute("DELETE FROM rows WHERE offset >= ?", (start,))
        else:
            self._db.execute(
                "DELETE FROM input_systems WHERE id IN (SELECT id FROM inputs WHERE offset >= ?)", (start,)
            )
            self._db.execute("DELETE FROM inputs WHERE offset >= ?", (start,))

    def _index_lines(self, path: Path, start: int, lines: int) -> tuple[int, int]:
        rows, facets = [], []
        end = start, lines
        for line_no, offset, raw, complete in file_lines(path, start, lines):
            fields = line_fields(self.command, path, line_no, json_bytes(raw, offset))
            consistent = None if fields.consistent is None else int(fields.consistent)
            rows.append((line_no, offset, len(raw), fields.id, fields.status, fields.problem, fields.verdict,
                         consistent))  # fmt: skip
            facets += [(self._name("facet", name), line_no) for name in fields.facets]
            if complete:
                end = offset + len(raw) + 1, line_no
            if len(rows) >= BATCH:
                self._write_rows(rows, facets)
                rows, facets = [], []
        self._write_rows(rows, facets)
        return end

    def _write_rows(self, rows: Sequence[tuple[object, ...]], facets: Sequence[tuple[int, int]]) -> None:
        self._db.executemany("INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self._db.executemany("INSERT OR IGNORE INTO row_facets VALUES (?, ?)", facets)

    def _index_inputs(self, path: Path, start: int, lines: int) -> tuple[int, int]:
        instances: list[tuple[object, ...]] = []
        systems: list[tuple[object, ...]] = []
        end = start, lines
        for line_no, offset, raw, complete in file_lines(path, start, lines):
            found = input_fields(line_no, json_bytes(raw, offset), self.run_systems)
            if found is not None:
                instances.append((found.id, line_no, offset, len(raw), found.label))
                systems += [
                    (self._name("system", s), found.id, i, found.id, line_no)
                    for i, s in enumerate(found.systems, 1)
                ]
            if complete:
                end = offset + len(raw) + 1, line_no
            if len(instances) >= BATCH:
                self._write_inputs(instances, systems)
                instances, systems = [], []
        self._write_inputs(instances, systems)
        return end

    def _write_inputs(
        self, instances: Sequence[tuple[object, ...]], systems: Sequence[tuple[object, ...]]
    ) -> None:
        """Instances of the input (of an id given twice, the first line's, as the shared reader reads it)."""
        self._db.executemany("INSERT OR IGNORE INTO inputs VALUES (?, ?, ?, ?, ?)", instances)
        self._db.executemany(
            "INSERT OR IGNORE INTO input_systems SELECT ?, ?, ? "
            "WHERE (SELECT line FROM inputs WHERE id = ?) = ?",
            systems,
        )

    def _name(self, kind: str, name: str) -> int:
        """The id of a facet's or system's name, given it the first time it is met."""
        key = (kind, name)
        if key not in self._names:
            found = self._db.execute("SELECT name_id FROM names WHERE kind = ? AND name = ?", key).fetchone()
            if found is None:
                found = (self._db.execute("INSERT INTO names(kind, name) VALUES (?, ?)", key).lastrowid,)
            self._names[key] = int(found[0])
        return self._names[key]

    def _source(self, role: str) -> FileState | None:
        found = self._db.execute(
            "SELECT device, inode, size, mtime_ns, indexed_to, lines, tail FROM sources WHERE role = ? "
            "AND path = ?",
            (role, str(self.lines if role == "lines" else self.inputs)),
        ).fetchone()
        return None if found is None else FileState(*found)

    # -- reading ---------------------------------------------------------------------------------------

    def _where(self, filters: Filters) -> tuple[str, list[object]]:
        clauses, params = filters.clauses()
        resolved: list[object] = []
        for param in params:
            if isinstance(param, tuple):  # (kind, name): a facet's or system's id
                found = self._db.execute(
                    "SELECT name_id FROM names WHERE kind = ? AND name = ?", param
                ).fetchone()
                resolved.append(-1 if found is None else found[0])
            else:
                resolved.append(param)
        return " AND ".join(clauses) or "1", resolved

    def _find_choices(self) -> Choices:
        db = self._db
        statuses = db.execute("SELECT status, COUNT(*) FROM rows GROUP BY status ORDER BY status").fetchall()
        verdicts = [v for (v,) in db.execute("SELECT DISTINCT verdict FROM rows ORDER BY verdict")]
        facets = db.execute(
            "SELECT n.name FROM row_facets f JOIN names n ON n.name_id = f.name_id GROUP BY f.name_id "
            "ORDER BY COUNT(*) DESC, n.name LIMIT ?",
            (MAX_FACETS,),
        ).fetchall()
        systems = db.execute(
            "SELECT DISTINCT n.name FROM input_systems s JOIN names n ON n.name_id = s.name_id "
            "ORDER BY n.name"
        ).fetchall()
        labelled = db.execute("SELECT 1 FROM inputs WHERE label IS NOT NULL LIMIT 1").fetchone() is not None
        orders = db.execute("SELECT 1 FROM rows WHERE consistent IS NOT NULL LIMIT 1").fetchone() is not None
        return Choices(
            [(s, n) for s, n in statuses],
            verdicts,
            sorted(f for (f,) in facets),
            [s for (s,) in systems],
            labelled,
            orders,
        )


def _digest(lines: Path, inputs: Path | None, systems: Sequence[str]) -> str:
    key = "\0".join([str(lines), str(inputs or ""), *systems])
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def _row(values: Sequence[object]) -> IndexedRow:
    line, offset, length, id_, status, problem, verdict, consistent, label, i_line, i_offset, i_length = (
        values
    )
    return IndexedRow(
        line=int(line),  # type: ignore[call-overload]
        offset=int(offset),  # type: ignore[call-overload]
        length=int(length),  # type: ignore[call-overload]
        id=id_ if isinstance(id_, str) else None,
        status=str(status),
        problem=problem if isinstance(problem, str) else None,
        verdict=verdict if isinstance(verdict, int) else None,
        consistent=None if consistent is None else bool(consistent),
        label=label if isinstance(label, int) else None,
        input_line=i_line if isinstance(i_line, int) else None,
        input_offset=i_offset if isinstance(i_offset, int) else None,
        input_length=i_length if isinstance(i_length, int) else None,
    )
