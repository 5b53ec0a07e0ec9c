"""Downloading a benchmark's public files into the data directory, checksum-verified and atomic."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from faceteval._util.text import plural
from faceteval.datasets._benchmark import Benchmark, RemoteFile
from faceteval.errors import ConfigError, FacetevalError

if TYPE_CHECKING:
    import httpx2

logger = logging.getLogger(__name__)

RETRY_DELAYS: tuple[float, ...] = (1.0, 3.0)
"""Seconds to wait before each retry after a 5xx reply or a failed connection (two retries)."""

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 60.0
"""Seconds without a byte from the server before a download is given up (then retried)."""

_CHUNK = 1 << 16

Progress = Callable[[RemoteFile, int, int | None], None]
"""Called as bytes arrive: ``(file, bytes so far, total bytes or None when unknown)``."""


@dataclass(frozen=True, slots=True)
class FetchedFile:
    """What `fetch` did with one file."""

    file: RemoteFile
    path: Path
    """Where the file is, in the data directory."""
    status: Literal["downloaded", "present"]
    """``present``: already there with the right checksum, so not downloaded again."""
    size: int
    """Size in bytes."""


@dataclass(frozen=True, slots=True)
class FetchReport:
    """The files of one benchmark after `fetch`: each downloaded or found present."""

    benchmark: str
    data_dir: Path
    files: tuple[FetchedFile, ...]

    @property
    def downloaded(self) -> tuple[FetchedFile, ...]:
        """The files that were downloaded."""
        return tuple(f for f in self.files if f.status == "downloaded")

    @property
    def present(self) -> tuple[FetchedFile, ...]:
        """The files already present with the right checksum (skipped)."""
        return tuple(f for f in self.files if f.status == "present")

    def __str__(self) -> str:
        """One line for people: ``4 files in data: 1 downloaded (2.1 MB), 3 already present``."""
        size = sum(f.size for f in self.downloaded)
        parts = [f"{len(self.downloaded)} downloaded ({size / 1e6:.1f} MB)" if self.downloaded else ""]
        parts.append(f"{len(self.present)} already present" if self.present else "")
        files = f"{len(self.files)} file{'s' if len(self.files) != 1 else ''}"
        return f"{files} in {self.data_dir}: {', '.join(filter(None, parts)) or 'none'}"


def fetch(
    benchmark: Benchmark,
    data_dir: str | Path,
    *,
    mirror: str | None = None,
    client: httpx2.Client | None = None,
    progress: Progress | None = None,
) -> FetchReport:
    """Download every file of ``benchmark.fetch`` into ``data_dir``, verifying each one's sha256.

    Each file streams to a temporary file beside its destination and is renamed into place only once
    its checksum matches, so an interrupted or corrupted download never leaves a partial file, and an
    existing file is replaced only by a verified one. Files already present with the right checksum
    are skipped. 5xx replies and connection failures are retried twice.

    Args:
        benchmark: The benchmark whose files to download.
        data_dir: The data directory (created if needed).
        mirror: A base URL that replaces each file URL's scheme and host, e.g. ``http://host:8123/``
            turns ``https://raw.githubusercontent.com/a/b.json`` into
            ``http://host:8123/raw.githubusercontent.com/a/b.json``.
        client: The ``httpx2.Client`` to download with (the caller closes it); by default, one with
            timeouts that follows redirects.
        progress: Called as bytes arrive (see `Progress`).

    Raises:
        FacetevalError: No download is registered, a download failed (naming the URL and the HTTP
            status), or a checksum did not match (naming the URL and both checksums).
        ConfigError: The mirror is not an http(s) URL.
    """
    if not benchmark.fetch:
        notes = f" ({benchmark.notes})" if benchmark.notes else ""
        raise FacetevalError(
            f"no public download is registered for {benchmark.name}; see its SOURCE notes{notes}"
        )
    if mirror is not None and urlsplit(mirror).scheme not in ("http", "https"):
        raise ConfigError(f"mirror {mirror!r} is not an http(s) URL, e.g. http://127.0.0.1:8123/")
    root = Path(data_dir)
    targets = [(file, _destination(root, file)) for file in benchmark.fetch]
    http = client if client is not None else _default_client()
    try:
        files = tuple(_fetch_one(http, file, dest, mirror, progress) for file, dest in targets)
    finally:
        if client is None:
            http.close()
    return FetchReport(benchmark=benchmark.name, data_dir=root, files=files)


def mirrored(url: str, mirror: str | None) -> str:
    """``url`` with its scheme and host replaced by the ``mirror`` base URL (unchanged without one).

    Examples:
        >>> mirrored("https://raw.githubusercontent.com/a/b/c.json", "http://127.0.0.1:8123/")
        'http://127.0.0.1:8123/raw.githubusercontent.com/a/b/c.json'
    """
    if mirror is None:
        return url
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    query = f"?{parts.query}" if parts.query else ""
    return f"{mirror.rstrip('/')}/{host}{parts.path}{query}"


def _destination(root: Path, file: RemoteFile) -> Path:
    relative = PurePosixPath(file.path)
    if not file.path or relative.is_absolute() or ".." in relative.parts:
        raise FacetevalError(f"{file.url}: the target path {file.path!r} is not inside the data directory")
    return root.joinpath(*relative.parts)


def _default_client() -> httpx2.Client:
    import httpx2

    timeout = httpx2.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT)
    return httpx2.Client(timeout=timeout, follow_redirects=True)


def _fetch_one(
    http: httpx2.Client, file: RemoteFile, dest: Path, mirror: str | None, progress: Progress | None
) -> FetchedFile:
    if dest.is_file() and _sha256(dest) == file.sha256.lower():
        logger.debug("%s is present with the right checksum", dest)
        return FetchedFile(file=file, path=dest, status="present", size=dest.stat().st_size)
    url = mirrored(file.url, mirror)
    where = url if url == file.url else f"{url} (mirror of {file.url})"
    dest.parent.mkdir(parents=True, exist_ok=True)
    size = _download_with_retries(http, url, where, file, dest, progress)
    return FetchedFile(file=file, path=dest, status="downloaded", size=size)


class _Retryable(Exception):
    """A failure another attempt may not repeat (5xx, a dropped connection)."""


def _download_with_retries(
    http: httpx2.Client, url: str, where: str, file: RemoteFile, dest: Path, progress: Progress | None
) -> int:
    delays = RETRY_DELAYS
    for attempt in range(len(delays) + 1):
        try:
            return _download(http, url, where, file, dest, progress)
        except _Retryable as exc:
            if attempt == len(delays):
                raise FacetevalError(
                    f"cannot download {where}: {exc} (after {plural(attempt + 1, 'attempt')})"
                ) from exc.__cause__
            logger.warning("download of %s failed (%s); retrying in %.1f s", url, exc, delays[attempt])
            time.sleep(delays[attempt])
    raise AssertionError("unreachable")  # pragma: no cover


def _download(
    http: httpx2.Client, url: str, where: str, file: RemoteFile, dest: Path, progress: Progress | None
) -> int:
    """One attempt: stream to a temporary file, verify, rename into place; the bytes written."""
    import httpx2

    temp: Path | None = None
    try:
        with http.stream("GET", url, follow_redirects=True) as response:
            if response.status_code >= 400:
                status = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
                if response.status_code >= 500:
                    raise _Retryable(status)
                raise FacetevalError(f"cannot download {where}: {status}")
            encoded = "content-encoding" in response.headers
            length = response.headers.get("content-length")
            total = int(length) if length and length.isdigit() and not encoded else None
            handle, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
            temp = Path(name)
            digest = hashlib.sha256()
            done = 0
            with os.fdopen(handle, "wb") as out:
                for chunk in response.iter_bytes(_CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(file, done, total)
                out.flush()
                os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != file.sha256.lower():
            raise FacetevalError(
                f"checksum mismatch for {where}: expected sha256 {file.sha256.lower()}, got {actual}; "
                f"the download was discarded and {dest} left as it was"
            )
        os.replace(temp, dest)
        temp = None
        return done
    except (httpx2.UnsupportedProtocol, httpx2.InvalidURL) as exc:
        raise FacetevalError(f"cannot download {where}: {exc}") from exc
    except httpx2.TransportError as exc:
        raise _Retryable(f"no complete reply ({type(exc).__name__}: {exc})") from exc
    finally:
        if temp is not None:
            temp.unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
