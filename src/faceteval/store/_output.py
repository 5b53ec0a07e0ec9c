"""Writing an output so that no crash leaves it half-written: a hidden partial file beside it, renamed
into place when the run ends.

A kill -9 or a power cut leaves the previous file as it was (and a ``.NAME.*.partial`` file that the
next run of the same output removes when it ends); a full disk leaves the partial file holding whole
writes only.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from faceteval._util.files import PRIVATE_FILE, make_private_dirs
from faceteval.errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: stale partial files are left alone
    fcntl = None  # type: ignore[assignment]

PARTIAL_SUFFIX = ".partial"
STALE_AFTER = 10.0
"""Seconds after which an unlocked partial file of another run is taken as left by a crash when a run
starts (another run making its partial file locks it at once: it is never this old unlocked)."""
LEFT_AFTER = 1.0
"""The same, when a run's output is put in place (or discarded): its run is over, so a partial file
of the same output unlocked for a second is a crashed run's."""

_NO_SPACE = {
    errno.ENOSPC: "",
    getattr(errno, "EDQUOT", errno.ENOSPC): " (disk quota exceeded)",  # (not on every system)
    errno.EFBIG: " (file size limit reached)",
}


def write_error(path: str | Path, exc: OSError) -> StoreError:
    """The one-line error for ``exc``, met writing ``path``; a full disk or quota is named as such.

    Examples:
        >>> str(write_error("out.jsonl", OSError(errno.ENOSPC, "No space left on device")))
        'no space left writing out.jsonl'
    """
    if exc.errno in _NO_SPACE:
        return StoreError(f"no space left writing {path}{_NO_SPACE[exc.errno]}")
    return StoreError(f"cannot write {path}: {exc.strerror or exc}")


@dataclass(frozen=True, slots=True)
class Mark:
    """A point of an `OutputFile` to `OutputFile.rewind` to."""

    size: int
    lines: int
    digest: Any


class OutputFile:
    """An output written to a hidden partial file beside ``path``, renamed onto ``path`` by `commit`.

    Each `write` is kept whole or not at all: one that fails (a full disk) is cut from the file, and
    the file takes no more writes, but `commit` still puts what it holds in place. `discard` (or an
    error leaving a ``with`` block) removes the partial file and leaves ``path`` as it was. The file
    gets the permissions of the one it replaces; a new one is its owner's alone (0600, and the folders
    made for it 0700), whatever the umask: outputs hold prompts, candidates and replies.

    Args:
        path: The output.
        reserve: Bytes to claim on the disk at once, so that a write of up to that size succeeds
            later even if the disk fills meanwhile (a run record).

    Raises:
        StoreError: The partial file cannot be made (or ``reserve`` claimed), naming ``path``.

    Examples:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> with OutputFile(folder / "out.jsonl") as out:
        ...     out.write('{"id": "1"}\\n')
        >>> (folder / "out.jsonl").read_text(), out.lines
        ('{"id": "1"}\\n', 1)
    """

    def __init__(self, path: str | Path, *, reserve: int = 0) -> None:
        self.path = Path(path)
        self.lines = 0
        """Newlines written."""
        self.size = 0
        """Bytes written."""
        self.failed: StoreError | None = None
        """The error that stopped the writes, if one did."""
        self._digest = hashlib.sha256()
        self._reserved = reserve
        self.partial, fd = _create(self.path)
        self._fd: int | None = fd
        if reserve:
            self._reserve(reserve)

    @property
    def sha256(self) -> str:
        """The SHA-256 of what was written, in hex."""
        return self._digest.hexdigest()

    def write(self, text: str | bytes) -> None:
        """Append ``text`` (UTF-8), whole.

        Raises:
            StoreError: It could not be written (nothing of it is kept), or an earlier write failed.
        """
        if self.failed is not None:
            raise StoreError(str(self.failed))
        fd = self._open_fd()
        data = text.encode("utf-8") if isinstance(text, str) else text
        view, done = memoryview(data), 0
        try:
            while done < len(data):
                done += os.write(fd, view[done:])
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self.size)
            self.failed = write_error(self.path, exc)
            raise self.failed from exc
        self.size += len(data)
        self.lines += data.count(b"\n")
        self._digest.update(data)

    def mark(self) -> Mark:
        """Where the file is now, for `rewind`."""
        return Mark(self.size, self.lines, self._digest.copy())

    def rewind(self, mark: Mark) -> None:
        """Undo the writes made since ``mark`` (one of a pair that must be written together failed).

        Raises:
            StoreError: The file could not be cut back; it takes no more writes.
        """
        fd = self._open_fd()
        try:
            os.ftruncate(fd, mark.size)
            os.lseek(fd, mark.size, os.SEEK_SET)
        except OSError as exc:
            self.failed = write_error(self.path, exc)
            raise self.failed from exc
        self.size, self.lines, self._digest = mark.size, mark.lines, mark.digest.copy()

    def write_lines(self, lines: Iterable[str]) -> None:
        """Write each of ``lines`` with a newline after it."""
        for line in lines:
            self.write(f"{line}\n")

    def commit(self) -> Path:
        """Put what was written in place of ``path`` (flushed to disk first); returns ``path``.

        Raises:
            StoreError: It could not be flushed or renamed; ``path`` is left as it was.
        """
        fd = self._open_fd()
        self._fd = None
        try:
            try:
                if self._reserved:
                    os.ftruncate(fd, self.size)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(self.partial, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                self.partial.unlink()
            raise write_error(self.path, exc) from exc
        _sync_folder(self.path.parent)
        _clean_stale(self.path, older_than=LEFT_AFTER)
        return self.path

    def discard(self) -> None:
        """Remove the partial file; ``path`` is left as it was. Nothing happens if already done."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = None
        with contextlib.suppress(OSError):
            self.partial.unlink()
        _clean_stale(self.path, older_than=LEFT_AFTER)

    @property
    def done(self) -> bool:
        """Whether the file was committed or discarded."""
        return self._fd is None

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.done:
            return
        if kind is None:
            self.commit()
        else:
            self.discard()

    def _open_fd(self) -> int:
        if self._fd is None:
            raise StoreError(f"{self.path}: the output was already committed or discarded")
        return self._fd

    def _reserve(self, size: int) -> None:
        fd = self._open_fd()
        try:
            os.write(fd, bytes(size))
            os.lseek(fd, 0, os.SEEK_SET)
        except OSError as exc:
            self.discard()
            raise write_error(self.path, exc) from exc


def write_atomic(path: str | Path, text: str | bytes) -> Path:
    """Write ``text`` to ``path`` whole (through `OutputFile`): a crash or a full disk leaves the
    earlier file as it was. Makes the folder. Returns ``path``.

    Raises:
        StoreError: It could not be written, naming ``path`` (and a full disk as such).

    Examples:
        >>> import tempfile
        >>> target = Path(tempfile.mkdtemp()) / "summary.json"
        >>> write_atomic(target, "{}\\n").read_text()
        '{}\\n'
    """
    with OutputFile(path) as out:
        out.write(text)
    return out.path


def partial_files(path: str | Path) -> list[Path]:
    """The partial files of ``path`` there are now (its own run's, or left by a crash).

    Examples:
        >>> partial_files("/nonexistent/out.jsonl")
        []
    """
    target = Path(path)
    return sorted(target.parent.glob(f".{_glob_escape(target.name)}.*{PARTIAL_SUFFIX}"))


def _create(path: Path) -> tuple[Path, int]:
    """A new partial file beside ``path`` (its folder made), open for writing, locked while it lives: its
    owner's alone (0600, its folders 0700) unless it replaces a file, whose mode it takes."""
    try:
        if not path.parent.exists():  # (a file in its place: "not a directory", from os.open below)
            make_private_dirs(path.parent)
        mode = stat.S_IMODE(path.stat().st_mode) if path.is_file() else None
    except OSError as exc:
        raise write_error(path, exc) from exc
    _clean_stale(path)
    while True:
        partial = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}{PARTIAL_SUFFIX}")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            fd = os.open(partial, flags, PRIVATE_FILE)
        except FileExistsError:
            continue
        except OSError as exc:
            raise write_error(path, exc) from exc
        break
    if fcntl is not None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    if mode is not None and hasattr(os, "fchmod"):
        with contextlib.suppress(OSError):
            os.fchmod(fd, mode)
    return partial, fd


def _clean_stale(path: Path, *, older_than: float = STALE_AFTER) -> None:
    """Remove partial files of ``path`` left by runs that crashed: unlocked, and made by a process that
    is gone (its pid is in the name) or not written to for ``older_than`` seconds (one just made is
    locked a moment later; a clock that steps back makes a file look newer than it is, a pid does not)."""
    if fcntl is None:  # pragma: no cover - not POSIX
        return
    for partial in partial_files(path):
        try:
            if not _maker_gone(partial) and time.time() - partial.stat().st_mtime < older_than:
                continue
            fd = os.open(partial, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a live run holds its lock
            partial.unlink()
        except OSError:
            pass
        finally:
            os.close(fd)


def _maker_gone(partial: Path) -> bool:
    """Whether the process that made ``partial`` (``.NAME.PID-TOKEN.partial``) has ended; False when
    the name holds no pid (an older run's) or the pid is alive (this one's, another run's, or reused).

    Examples:
        >>> mine = Path(f".out.jsonl.{os.getpid()}-00ff00ff.partial")
        >>> _maker_gone(mine), _maker_gone(Path(".out.jsonl.00ff00ff.partial"))
        (False, False)
    """
    token = partial.name.removesuffix(PARTIAL_SUFFIX).rpartition(".")[2]
    pid, dash, _ = token.partition("-")
    if not dash or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: alive
        return False
    return False


def _sync_folder(folder: Path) -> None:
    """Flush the folder's entries, so that a rename survives a power cut (where the system allows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)
