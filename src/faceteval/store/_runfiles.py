"""A run's output files and its run record, written so that they always describe the same run.

The outputs are written under partial names beside them (`OutputFile`) and renamed into place when
the run ends, however it ends but a kill -9 (which leaves the previous files as they were); then the
run record is written, whole, with each output's line count and SHA-256 under ``written``. The
record's room on the disk is claimed when the run starts, so a disk that fills up meanwhile still
takes it. A record may also describe files already in place (a meta-evaluation's summary, the
judgments its run wrote); `check_written` tells a reader whether the files beside a record are
those it describes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Any

from faceteval._util.text import plural
from faceteval.errors import InputError, StoreError
from faceteval.store._lock import OutputLock
from faceteval.store._output import OutputFile
from faceteval.store._record import FileEntry, RunRecord

RECORD_ROOM = 64 * 1024
"""Bytes claimed for a run record when its run starts."""
WRITTEN = "written"
"""The run record's key for its outputs' line counts and SHA-256s, by file name."""


def record_path_for(out: Path) -> Path:
    """Where the run record of ``out`` goes: ``judgments.jsonl`` -> ``judgments.run.json``.

    Examples:
        >>> record_path_for(Path("runs/judgments.jsonl")).as_posix()
        'runs/judgments.run.json'
    """
    return out.with_name(f"{out.stem}.run.json")


class RunFiles:
    """Outputs written as a run goes, and the run record written after them by `finish`.

    Leaving a ``with`` block without `finish` discards the partial files: the earlier outputs and
    record stay as they were. One run at a time writes them: another run that is writing them
    (`faceteval.store._lock.OutputLock`, held from the start to the end) makes this one refused.

    Args:
        outputs: The files the run writes (beside ``record``).
        record: Its run record.
        described: Files beside ``record`` already in place that it describes too.

    Raises:
        StoreError: Another run is writing these files, or a partial file cannot be made (or the
            record's room claimed).

    Examples:
        >>> import json, tempfile
        >>> from faceteval.store import JudgeRecord
        >>> folder = Path(tempfile.mkdtemp())
        >>> with RunFiles([folder / "out.jsonl"], folder / "out.run.json") as files:
        ...     files[folder / "out.jsonl"].write('{"id": "1"}\\n')
        ...     _ = files.finish(JudgeRecord())
        >>> json.loads((folder / "out.run.json").read_text())["written"]["out.jsonl"]["lines"]
        1
    """

    def __init__(self, outputs: Sequence[Path], record: Path, *, described: Sequence[Path] = ()) -> None:
        self.record = record
        self._described = tuple(described)
        self._lock = OutputLock(record, what=outputs[0] if outputs else record)  # one run at a time
        self._outputs: dict[Path, OutputFile] = {}
        try:
            self._record = OutputFile(record, reserve=RECORD_ROOM)
        except BaseException:
            self._lock.release()
            raise
        try:
            for path in outputs:
                self._outputs[path] = OutputFile(path)
        except BaseException:
            self.discard()
            raise

    def __getitem__(self, path: Path) -> OutputFile:
        return self._outputs[path]

    @property
    def failed(self) -> StoreError | None:
        """The first error that stopped the writes of an output, if one did."""
        return next((out.failed for out in self._outputs.values() if out.failed is not None), None)

    def finish(self, record: RunRecord | Mapping[str, Any]) -> Path:
        """Put every output in place, then write ``record`` (with ``written``) as the run record (or,
        a mapping, as the document that describes them: ``export sft``'s statistics).

        Raises:
            StoreError: An output or the record could not be written. No record is left that
                describes other outputs than those in place: an earlier one is removed if need be.
        """
        written: dict[str, FileEntry] = {}
        try:
            for path, out in self._outputs.items():
                out.commit()
                written[self._name(path)] = FileEntry(lines=out.lines, sha256=out.sha256)
            for path in self._described:
                if (entry := file_entry(path)) is None:
                    raise StoreError(f"cannot read {path}, which {self.record.name} describes")
                written[self._name(path)] = entry
            self._record.write(_document(record, written))
            return self._record.commit()
        except BaseException:  # a full disk, or Ctrl-C meanwhile
            self.discard()
            if written:  # the outputs in place are not those the earlier record describes
                with contextlib.suppress(OSError):
                    self.record.unlink()
            raise

    def _name(self, path: Path) -> str:
        """How ``written`` names ``path``: by its path from the record's folder (its name, mostly)."""
        try:
            return path.relative_to(self.record.parent).as_posix()
        except ValueError:
            return path.name

    def discard(self) -> None:
        """Remove the partial files not yet put in place, and let go of the outputs."""
        for out in (*self._outputs.values(), self._record):
            out.discard()
        self._lock.release()

    def __enter__(self) -> RunFiles:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.discard()


def _document(record: RunRecord | Mapping[str, Any], written: dict[str, FileEntry]) -> str:
    if isinstance(record, RunRecord):
        return record.model_copy(update={WRITTEN: written}).to_json()
    entries = {name: entry.model_dump() for name, entry in written.items()}
    return json.dumps({**record, WRITTEN: entries}, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def file_entry(path: Path) -> FileEntry | None:
    """The ``written`` entry of the file ``path`` as it is now: its line count and SHA-256 (None if it
    cannot be read).

    Examples:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "o.jsonl"
        >>> _ = path.write_text("x\\n")
        >>> file_entry(path).lines, file_entry(path.with_name("missing"))
        (1, None)
    """
    digest, lines = hashlib.sha256(), 0
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                lines += chunk.count(b"\n")
    except OSError:
        return None
    return FileEntry(lines=lines, sha256=digest.hexdigest())


def describes(record: RunRecord | Mapping[str, Any], path: Path) -> bool:
    """Whether ``record`` (or a record as its file holds it) was written with the file ``path`` beside
    it as it is now (its SHA-256 matches).

    Examples:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "o.jsonl"
        >>> _ = path.write_text("x\\n")
        >>> digest = hashlib.sha256(b"x\\n").hexdigest()
        >>> describes({"written": {"o.jsonl": {"sha256": digest}}}, path), describes({}, path)
        (True, False)
    """
    entry = _written(record).get(path.name)
    if not isinstance(entry, Mapping) or not isinstance(entry.get("sha256"), str):
        return False
    found = file_entry(path)
    return found is not None and found.sha256 == entry["sha256"]


def check_written(record: RunRecord | Mapping[str, Any], record_path: Path) -> None:
    """Refuse the files beside ``record_path`` that its ``record`` (or the record as its file holds
    it) lists under ``written`` but that are not as it describes them: missing, changed since, or
    another run's.

    A record without ``written`` (written before records had it) is taken as it is.

    Raises:
        InputError: A file is not the one the record describes, naming it and the record.
    """
    for name, entry in _written(record).items():
        if not _beside(name) or not isinstance(entry, Mapping):
            raise InputError(str(record_path), None, WRITTEN, f"{name!r} is not a file name and its entry")
        path = record_path.parent.joinpath(*PurePosixPath(name).parts)
        found = file_entry(path)
        if found is None:
            problem = "is missing"
        elif found.sha256 != entry.get("sha256"):
            lines = f"{plural(found.lines, 'line')}; it wrote {entry.get('lines')}"
            problem = f"was changed since, or is another run's ({lines})"
        else:
            continue
        raise InputError(
            str(path),
            None,
            None,
            f"not the file {record_path.name} describes: it {problem}; run the command again, or put "
            "back the file it wrote",
        )


def _written(record: RunRecord | Mapping[str, Any]) -> dict[Any, Any]:
    """A record's ``written``, each entry as a mapping (empty when it has none)."""
    if isinstance(record, RunRecord):
        return {name: entry.model_dump() for name, entry in record.written.items()}
    written = record.get(WRITTEN)
    return written if isinstance(written, dict) else {}


def _beside(name: Any) -> bool:
    """Whether ``name`` is a path in the record's folder: a name, or a relative path that stays below it."""
    if not isinstance(name, str) or not name or "\\" in name:
        return False
    relative = PurePosixPath(name)
    return not relative.is_absolute() and ".." not in relative.parts
