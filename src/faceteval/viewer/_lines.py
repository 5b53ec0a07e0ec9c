"""Reading a JSONL file by the byte offsets of its lines, and telling when it changed.

The index of a run (`faceteval.viewer._index`) keeps where each line starts; these read a line back
at its offset, checking that it still starts and ends there, and tell a file appended to from one
replaced or edited (`FileState`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from faceteval.errors import RunGone

__all__ = ["BOM", "TAIL", "FileState", "RunGone", "Stale", "file_lines", "json_bytes", "read_at", "tail_of"]

TAIL = 256
"""Bytes before the end of what was indexed that must be unchanged for a longer file to be an append."""
BOM = b"\xef\xbb\xbf"


class Stale(Exception):
    """A line is not where the index says: the file changed after it was last indexed."""


@dataclass(frozen=True, slots=True)
class FileState:
    """A file as it was indexed: its identity (device, inode, size, modification time), how far it was
    indexed (``indexed_to`` bytes, ``lines`` lines), and the `TAIL` bytes before that point."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    indexed_to: int
    lines: int
    tail: bytes

    def same(self, stat: os.stat_result) -> bool:
        return (self.device, self.inode, self.size, self.mtime_ns) == (
            stat.st_dev,
            stat.st_ino,
            stat.st_size,
            stat.st_mtime_ns,
        )

    def appended(self, stat: os.stat_result, path: Path) -> bool:
        """Whether the file is this one with lines added at its end."""
        if (self.device, self.inode) != (stat.st_dev, stat.st_ino) or stat.st_size <= self.size:
            return False
        return tail_of(path, self.indexed_to) == self.tail


def file_lines(path: Path, start: int, lines: int) -> Iterator[tuple[int, int, bytes, bool]]:
    """``(line number, offset, bytes without the line feed, whether it ends in one)`` of each non-blank
    line of ``path`` from byte ``start`` (``lines`` lines before it). A leading byte-order mark is part
    of the first line's bytes (`_text` leaves it out)."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise RunGone(f"{path}: cannot be read ({exc.strerror or exc})") from None
    with handle:
        handle.seek(start)
        offset, line_no = start, lines
        for raw in handle:
            line_no += 1
            complete = raw.endswith(b"\n")
            body = raw[:-1] if complete else raw
            if json_bytes(body, offset).strip():
                yield line_no, offset, body, complete
            offset += len(raw)


def json_bytes(body: bytes, offset: int) -> bytes:
    """A line's bytes as JSON: the first line's byte-order mark left out."""
    return body.removeprefix(BOM) if offset == 0 else body


def read_at(path: Path, offset: int, length: int) -> bytes:
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, offset - 1))
            before = handle.read(1) if offset else b"\n"
            body = handle.read(length)
            after = handle.read(1)
    except FileNotFoundError as exc:
        raise RunGone(f"{path}: no longer there") from exc
    except OSError as exc:
        raise Stale(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    if before != b"\n" or len(body) != length or after not in (b"\n", b""):
        raise Stale(f"{path}: changed since it was indexed")
    return json_bytes(body, offset)


def tail_of(path: Path, end: int) -> bytes:
    """The `TAIL` bytes of ``path`` before byte ``end``."""
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, end - TAIL))
            return handle.read(min(TAIL, end))
    except OSError:
        return b""
