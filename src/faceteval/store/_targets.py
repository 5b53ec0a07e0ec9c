"""Before a run writes anything: refuse an output path that would destroy a file that is not ours.

A command's outputs may replace files of their own kind (an earlier run's). They never replace a
directory, the input, or the response cache in use, and never go where a file stands in for a
directory; an SQLite database (a cache, a review project) or a file of another kind is replaced only
when the user says so (``--force``). Each `OutputKind` below is one kind of file a command writes.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

import yaml

from faceteval._util.documents import load_yaml
from faceteval.errors import ConfigError, InputError

SQLITE_MAGIC = b"SQLite format 3\x00"
FIRST_LINE_LIMIT = 64 * 1024 * 1024
"""Bytes read for the first line of a JSONL file (a judgment with its trace can be large)."""
DOCUMENT_LIMIT = 256 * 1024 * 1024
"""Bytes read of a JSON or text output to tell whether it is ours."""
ZIP_HEAD = 64 * 1024
"""Bytes of an archive looked at to tell whether it is blank (an empty file is of every kind)."""


@dataclass(frozen=True, slots=True)
class OutputKind:
    """What a command writes to a file, and how to tell a file of that kind from another one.

    Attributes:
        what: Its name in messages ("judgments JSONL").
        form: ``jsonl`` (its first record is checked), ``json`` or ``yaml`` (one mapping), ``text``,
            or ``zip`` (an archive).
        keys: Fields its (first) record has; for ``text``, words the file holds; for ``zip``, members.
        any_of: Fields of which its (first) record has one at least (records of two shapes).
        command: A run record of this command (`faceteval.store.RunRecord`) is of the kind too: what
            the command writes now, where ``keys`` tell the shape it wrote before the record.
    """

    what: str
    form: Literal["jsonl", "json", "yaml", "text", "zip"]
    keys: tuple[str, ...]
    any_of: tuple[str, ...] = ()
    command: str | None = None

    def holds(self, path: Path) -> bool:
        """Whether the existing file ``path`` is of this kind (an empty file is of every kind).

        Examples:
            >>> import tempfile
            >>> path = Path(tempfile.mkdtemp()) / "j.jsonl"
            >>> _ = path.write_text('{"id": "1", "method": "dna", "status": "ok"}\\n')
            >>> JUDGMENTS.holds(path), INSTANCES.holds(path)
            (True, False)
        """
        try:
            with path.open("rb") as handle:
                if self.form == "zip":
                    return _blank(handle) or _members(handle) >= set(self.keys)
                text = _first_line(handle) if self.form == "jsonl" else handle.read(DOCUMENT_LIMIT)
        except OSError:
            return False
        if not text.strip():
            return True
        try:
            decoded = text.decode("utf-8")
            if self.form == "text":
                return all(key in decoded for key in self.keys)
            value = load_yaml(decoded, str(path))[0] if self.form == "yaml" else json.loads(decoded)
        except (ValueError, RecursionError, InputError, yaml.YAMLError):
            return False
        return isinstance(value, dict) and self._keyed(value)

    def _keyed(self, value: dict[Any, Any]) -> bool:
        if self.command is not None and value.get("command") == self.command and "schema_version" in value:
            return True
        return all(key in value for key in self.keys) and (
            not self.any_of or any(key in value for key in self.any_of)
        )


JUDGMENTS = OutputKind("judgments JSONL", "jsonl", ("id", "method", "status"))
INSTANCES = OutputKind("instances JSONL", "jsonl", ("id", "query", "candidates"))
RUN_RECORD = OutputKind("a run record", "json", ("schema_version", "faceteval_version"))
SUMMARY = OutputKind("a meta-evaluation summary", "json", ("schema_version",))
REPORT = OutputKind("a faceteval report", "text", ("faceteval",))
COMPARISON = OutputKind("a run comparison", "json", ("a", "b", "metrics", "unjudged"))
COST_TABLE = OutputKind(
    "a cost table", "text", ("| Method | Benchmark | Instances | Calls | Cached calls |",)
)
REVIEW_SCORES = OutputKind("review scores JSONL", "jsonl", ("id", "annotator", "scores", "llm_scores"))
REVIEW_ACTIONS = OutputKind("a review action log", "jsonl", ("stage", "annotator", "created_at"))
REVIEW_STATS = OutputKind("review statistics", "json", ("annotators", "tasks"))
REVIEW_TABLES = OutputKind("review statistics tables", "text", ("# Review statistics",))
HUMAN_LABELS = OutputKind("human labels JSONL", "jsonl", ("id", "annotators"), any_of=("label", "scores"))


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
    option: str | None = "--out",
    inputs: Sequence[Path] = (),
    cache: Path | None = None,
    force: bool = False,
) -> None:
    """Before anything is opened: refuse to write ``targets`` over a file that is not ours.

    Each target may be missing, empty, or a file of its kind. Never a directory, one of ``inputs``,
    or the response ``cache`` (which may not exist yet: it would be made, then written over), nor
    below a file (where a directory would have to be); with ``force``, any other file.

    Args:
        targets: Each file the command writes, with its kind.
        given: The path as the user gave it (``--out``), for messages.
        option: The option that gave it, for messages; None for an argument (the files then go in
            place of their own, at names the user did not choose).
        inputs: The files the command reads.
        cache: The response cache in use, if any.
        force: Overwrite files that are not of their kind.

    Raises:
        ConfigError: A target would destroy something, naming it and what it is.

    Examples:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "notes.txt").write_text("mine")
        >>> below_a_file = folder / "notes.txt" / "cost.md"
        >>> try:
        ...     check_outputs([(below_a_file, COST_TABLE)], given=below_a_file, option="--markdown")
        ... except ConfigError as error:
        ...     print(str(error).replace(str(folder), "F").split(", but ")[1])
        F/notes.txt is a file, not a directory; write the output to another file
    """
    where = _Where(f"{option} {given}" if option else str(given), option is not None)
    listed = list(targets)
    paths = {Path(os.path.abspath(target)) for target, _ in listed}
    for target, kind in listed:
        if any(parent in paths for parent in Path(os.path.abspath(target)).parents):
            raise ConfigError(f"{where.subject} would write {target} inside a file it also writes")
        _check(target, kind, where=where, inputs=inputs, cache=cache, force=force)


def check_distinct(*outputs: tuple[str, Path | None]) -> None:
    """Refuse two options (given as ``(option, path)``; None when not given) that name the same file.

    Raises:
        ConfigError: One would overwrite what the other wrote.

    Examples:
        >>> check_distinct(("--json", Path("s.json")), ("--markdown", Path("x/../s.json")))
        Traceback (most recent call last):
        ...
        faceteval.errors.ConfigError: --markdown x/../s.json is the file --json names too; give each its own
    """
    seen: dict[str, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        key = os.path.abspath(path)
        if key in seen:
            raise ConfigError(f"{option} {path} is the file {seen[key]} names too; give each its own")
        seen[key] = option


@dataclass(frozen=True, slots=True)
class _Where:
    """What wrote a refused target, in messages, and whether the user chose its path."""

    subject: str
    chosen: bool

    @property
    def other(self) -> str:
        return "write the output to another file" if self.chosen else "move it away"


def _check(
    target: Path, kind: OutputKind, *, where: _Where, inputs: Sequence[Path], cache: Path | None, force: bool
) -> None:
    subject, other = where.subject, where.other
    for source in inputs:
        if same_file(target, source):
            raise ConfigError(f"{subject} would overwrite the input {target}; {other}")
    if cache is not None and (same_file(target, cache) or target.resolve() == cache.resolve()):
        raise ConfigError(f"{subject} would overwrite the response cache {cache}; {other}")
    if target.is_dir():
        raise ConfigError(f"{subject} would overwrite {target}, a directory; {other}")
    if (blocking := _file_above(target)) is not None:
        raise ConfigError(
            f"{subject} would write {target}, but {blocking} is a file, not a directory; {other}"
        )
    if force or not target.exists() or kind.holds(target):
        return
    if not target.is_file():
        raise ConfigError(f"{subject} would write over {target}, which is not a regular file; {other}")
    raise ConfigError(
        f"{subject} would overwrite {target}, {_describe(target)}, not {kind.what}; "
        f"{other}, or pass --force to overwrite it"
    )


def _file_above(target: Path) -> Path | None:
    """The nearest existing folder of ``target`` if it is not a directory (a file, say)."""
    for parent in target.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


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


def _blank(handle: BinaryIO) -> bool:
    """Whether the file holds only whitespace (read from its start; left at its start)."""
    blank = not handle.read(ZIP_HEAD).strip() and not handle.read(1)
    handle.seek(0)
    return blank


def _members(handle: BinaryIO) -> set[str]:
    """The names of the members of a zip archive; none if it is not one."""
    try:
        with zipfile.ZipFile(handle) as archive:
            return set(archive.namelist())
    except (zipfile.BadZipFile, ValueError):
        return set()


def _first_line(handle: BinaryIO) -> bytes:
    """The first line of ``handle`` that is not blank (at most `FIRST_LINE_LIMIT` bytes of it)."""
    while line := handle.readline(FIRST_LINE_LIMIT):
        if line.strip():
            return line
    return b""
