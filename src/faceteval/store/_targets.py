"""Before a run writes anything: refuse an output path that would destroy a file that is not ours.

A command's outputs may replace files of their own kind (an earlier run's). They never replace a
directory, the input, or the response cache in use; an SQLite database (a cache, a review project)
or a file of another kind is replaced only when the user says so (``--force``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from faceteval.errors import ConfigError

SQLITE_MAGIC = b"SQLite format 3\x00"
FIRST_LINE_LIMIT = 64 * 1024 * 1024
"""Bytes read for the first line of a JSONL file (a judgment with its trace can be large)."""
DOCUMENT_LIMIT = 256 * 1024 * 1024
"""Bytes read of a JSON or text output to tell whether it is ours."""


@dataclass(frozen=True, slots=True)
class OutputKind:
    """What a command writes to a file, and how to tell a file of that kind from another one.

    Attributes:
        what: Its name in messages ("judgments JSONL").
        form: ``jsonl`` (its first record is checked), ``json`` (one object) or ``text``.
        keys: Fields its (first) record has; for ``text``, words the file holds.
    """

    what: str
    form: Literal["jsonl", "json", "text"]
    keys: tuple[str, ...]

    def holds(self, path: Path) -> bool:
        """Whether the existing file ``path`` is of this kind (an empty file is of every kind).

        Examples:
            >>> import tempfile
            >>> path = Path(tempfile.mkdtemp()) / "j.jsonl"
            >>> _ = path.write_text('{"id": "1", "method": "dna", "status": "ok"}\\n')
            >>> JUDGMENTS.holds(path), CORRECTIONS.holds(path)
            (True, False)
        """
        try:
            with path.open("rb") as handle:
                text = _first_line(handle) if self.form == "jsonl" else handle.read(DOCUMENT_LIMIT)
        except OSError:
            return False
        if not text.strip():
            return True
        try:
            decoded = text.decode("utf-8")
            if self.form == "text":
                return all(key in decoded for key in self.keys)
            value = json.loads(decoded)
        except ValueError:
            return False
        return isinstance(value, dict) and all(key in value for key in self.keys)


JUDGMENTS = OutputKind("judgments JSONL", "jsonl", ("id", "method", "status"))
CORRECTIONS = OutputKind("corrections JSONL", "jsonl", ("id", "candidate", "status"))
BRIDGE_RECORDS = OutputKind("bridged records JSONL", "jsonl", ("id", "benchmark", "status"))
CHATS = OutputKind("training chats JSONL", "jsonl", ("messages",))
INSTANCES = OutputKind("instances JSONL", "jsonl", ("id", "query", "candidates"))
RUN_RECORD = OutputKind("a run record", "json", ("schema_version", "faceteval_version"))
SUMMARY = OutputKind("a meta-evaluation summary", "json", ("schema_version",))
SFT_STATS = OutputKind("SFT statistics", "json", ("sets", "total"))
REPORT = OutputKind("a faceteval report", "text", ("faceteval",))


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are the same existing file (False when either does not exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def check_outputs(
    targets: Iterable[tuple[Path, OutputKind]],
    *,
    given: Path,
    inputs: Sequence[Path] = (),
    cache: Path | None = None,
    force: bool = False,
) -> None:
    """Before anything is opened: refuse to write ``targets`` over a file that is not ours.

    Each target may be missing, empty, or a file of its kind. Never a directory, one of ``inputs``,
    or the response ``cache`` (which may not exist yet: it would be made, then written over); with
    ``force``, any other file.

    Args:
        targets: Each file the command writes, with its kind.
        given: The path as the user gave it (``--out``), for messages.
        inputs: The files the command reads.
        cache: The response cache in use, if any.
        force: Overwrite files that are not of their kind.

    Raises:
        ConfigError: A target would destroy something, naming it and what it is.
    """
    for target, kind in targets:
        _check(target, kind, given=given, inputs=inputs, cache=cache, force=force)


def _check(
    target: Path, kind: OutputKind, *, given: Path, inputs: Sequence[Path], cache: Path | None, force: bool
) -> None:
    other = "write the output to another file"
    for source in inputs:
        if same_file(target, source):
            raise ConfigError(f"--out {given} would overwrite the input {target}; {other}")
    if cache is not None and (same_file(target, cache) or target.resolve() == cache.resolve()):
        raise ConfigError(f"--out {given} would overwrite the response cache {cache}; {other}")
    if target.is_dir():
        raise ConfigError(f"--out {given} would overwrite {target}, a directory; {other}")
    if force or not target.exists() or kind.holds(target):
        return
    if not target.is_file():
        raise ConfigError(f"--out {given} would write over {target}, which is not a regular file; {other}")
    raise ConfigError(
        f"--out {given} would overwrite {target}, {_describe(target)}, not {kind.what}; "
        f"{other}, or pass --force to overwrite it"
    )


def _describe(path: Path) -> str:
    """What a file that is not ours seems to be, in words."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        return f"a file that cannot be read ({exc.strerror or exc})"
    if head == SQLITE_MAGIC:
        return "an SQLite database (a response cache or a review project?)"
    return "a file of something else"


def _first_line(handle: BinaryIO) -> bytes:
    """The first line of ``handle`` that is not blank (at most `FIRST_LINE_LIMIT` bytes of it)."""
    while line := handle.readline(FIRST_LINE_LIMIT):
        if line.strip():
            return line
    return b""
