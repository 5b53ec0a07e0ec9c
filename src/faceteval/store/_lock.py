"""One run at a time writes an output: a lock file beside it, held while the run writes.

Two runs given the same ``--out`` would each put their own file in place, the second silently over
the first. The first to start holds ``.NAME.lock`` beside the output (an ``flock``, which the system
lets go of however the process ends, a kill -9 included); the second is refused while it is held,
with the holder's process id, before it writes anything.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from faceteval._util.files import PRIVATE_FILE, make_private_dirs
from faceteval.errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: runs are not kept apart
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".lock"


def lock_path(path: Path) -> Path:
    """The lock file of the output ``path``: ``.NAME.lock`` beside it.

    Examples:
        >>> lock_path(Path("runs/out.run.json")).as_posix()
        'runs/.out.run.json.lock'
    """
    return path.with_name(f".{path.name}{LOCK_SUFFIX}")


class OutputLock:
    """The hold of a run on the output ``path`` (`lock_path` beside it), until `release`.

    Raises:
        StoreError: Another run holds it (its process id named), or the lock file cannot be made.

    Examples:
        >>> import tempfile
        >>> out = Path(tempfile.mkdtemp()) / "out.jsonl"
        >>> held = OutputLock(out)
        >>> OutputLock(out)
        Traceback (most recent call last):
        ...
        faceteval.errors.StoreError: ...out.jsonl is being written by another run (process ...): ...
        >>> held.release()
        >>> OutputLock(out).release()
    """

    def __init__(self, path: Path, *, what: Path | None = None) -> None:
        self.path = lock_path(path)
        self._fd: int | None = None
        if fcntl is None:  # pragma: no cover - not POSIX
            return
        shown = path if what is None else what
        while self._fd is None:
            fd = self._open(shown)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _holder(fd)
                os.close(fd)
                raise StoreError(
                    f"{shown} is being written by another run (process {holder}): wait for it to end, "
                    "or give another output"
                ) from None
            if _same_file(fd, self.path):  # not a file the run before let go of and removed meanwhile
                self._fd = fd
            else:
                os.close(fd)
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
            os.write(self._fd, f"{os.getpid()}\n".encode())

    def _open(self, shown: Path) -> int:
        try:
            if not self.path.parent.exists():
                make_private_dirs(self.path.parent)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
        except OSError as exc:
            raise StoreError(f"cannot write {shown}: {exc.strerror or exc}") from exc

    def release(self) -> None:
        """Let go of the output (and remove the lock file). Nothing happens if already done."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            if _same_file(fd, self.path):
                self.path.unlink()
        with contextlib.suppress(OSError):
            os.close(fd)

    @property
    def held(self) -> bool:
        """Whether this run still holds the output."""
        return self._fd is not None


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return text if text.isdigit() else "unknown"


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except OSError:
        return False
