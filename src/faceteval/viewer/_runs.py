"""Finding runs: what each path given is (a judge output, a meta-evaluation directory, an HD-Eval
evaluator, a correct or bridge output), and the runs in a directory.

A run is told by the files its command writes (`faceteval.store`'s output kinds), never by its name
alone: a judge run is a judgments JSONL (``X.jsonl``) and its record (``X.run.json``), either given; a
meta-evaluation is a directory with a ``summary.json`` (a sweep's runs are directories inside it); an
evaluator is a directory with an ``evaluator.json``; a ``correct`` or ``bridge`` run is its JSONL and
record. An instances file (a run's input) is not a run.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from faceteval import store
from faceteval._util.files import read_json_object
from faceteval.errors import FacetevalError
from faceteval.metaeval.internal import INSTANCES, JUDGMENTS, SUMMARY
from faceteval.store import record_path_for
from faceteval.store.internal import WRITTEN
from faceteval.viewer._record import Command, RecordView, read_record

__all__ = ["EVALUATOR", "EVALUATOR_SUMMARY", "RECORD_SUFFIX", "Run", "find_runs", "run_at"]

EVALUATOR = "evaluator.json"
"""The file that makes a directory an HD-Eval evaluator."""
EVALUATOR_SUMMARY = "summary.json"
"""An evaluator's training summary: its held-out metrics, its tree and each criterion's importance."""
RECORD_SUFFIX = ".run.json"
MAX_DEPTH = 4
"""How deep a directory is searched for runs."""
_SKIPPED = {"__pycache__", "node_modules", "site-packages"}


@dataclass(frozen=True, slots=True)
class Run:
    """A run on disk.

    Attributes:
        command: The command that wrote it.
        path: The file or directory that is the run (its JSONL, or its directory).
        record: Its run record (or the file that stands for one), when there is one.
        lines: Its JSONL of items (judgments, corrections, bridged records); None when it has none.
        parent: The path of the sweep it is a run of, if it is one.
    """

    command: Command
    path: Path
    record: Path | None = None
    lines: Path | None = None
    parent: Path | None = None

    @property
    def id(self) -> str:
        """A short name of the run for addresses, the same for as long as the run is where it is."""
        return hashlib.sha256(str(self.path).encode("utf-8", "surrogateescape")).hexdigest()[:12]

    @property
    def instances(self) -> Path | None:
        """A meta-evaluation's instances file (a judge run's is named by its record: see `_items`)."""
        found = self.path / INSTANCES
        return found if self.command == "meta-eval" and found.is_file() else None

    def read_record(self) -> RecordView:
        """Its record, as the pages read it (`read_record`)."""
        if self.record is None:
            return RecordView(self.command, None, {}, None)
        return read_record(self.record, self.command)


def run_at(path: Path, *, parent: Path | None = None) -> Run | None:
    """The run ``path`` is, or None when it is none.

    Examples:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "out.jsonl").write_text('{"id": "1", "method": "dna", "status": "ok"}\\n')
        >>> run_at(folder / "out.jsonl").command, run_at(folder) is None
        ('judge', True)
    """
    path = Path(os.path.abspath(path))
    if path.is_dir():
        return _directory_run(path, parent)
    if path.name.endswith(RECORD_SUFFIX):
        return _record_run(path)
    if path.is_file():
        return _lines_run(path)
    return None


def find_runs(paths: Sequence[Path]) -> tuple[list[Run], list[str]]:
    """The runs ``paths`` are or hold (directories searched `MAX_DEPTH` deep), each once, and what
    is wrong with each path that is none and holds none.

    Examples:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "out.jsonl").write_text('{"id": "1", "method": "dna", "status": "ok"}\\n')
        >>> runs, problems = find_runs([folder, folder / "out.jsonl", folder / "none"])
        >>> [run.path.name for run in runs], len(problems)
        (['out.jsonl'], 1)
    """
    runs: dict[Path, Run] = {}
    problems = []
    for given in paths:
        found = list(_runs_in(Path(os.path.abspath(given))))
        if not found:
            problems.append(_not_a_run(given))
        for run in found:
            runs.setdefault(run.path, run)
    return list(runs.values()), problems


def _not_a_run(path: Path) -> str:
    if not path.exists():
        return f"{path}: no such file or directory"
    what = "holds no run" if path.is_dir() else "is not a run"
    return (
        f"{path}: {what}: give a judge output (out.jsonl or out.run.json), a meta-eval directory, an "
        "HD-Eval evaluator directory, or a correct or bridge output (or a directory holding them)"
    )


def _runs_in(path: Path, depth: int = 0) -> Iterator[Run]:
    run = run_at(path)
    if run is not None:
        yield run
        if run.command == "meta-eval":  # a sweep's (or repeats') runs
            for child in sorted(path.iterdir()):
                if child.is_dir() and (sub := _directory_run(child, path)) is not None:
                    yield sub
        return
    if not path.is_dir() or depth >= MAX_DEPTH:
        return
    try:
        children = sorted(path.iterdir())
    except OSError:
        return
    for child in children:
        if child.name.startswith(".") or child.name in _SKIPPED:
            continue
        if child.is_dir() or child.suffix == ".jsonl" or child.name.endswith(RECORD_SUFFIX):
            yield from _runs_in(child, depth + 1)


def _directory_run(path: Path, parent: Path | None) -> Run | None:
    for kind in store.record_kinds():
        if kind.folder is not None and _holds(path / kind.folder[0], kind.folder[1]):
            return Run(kind.command, path, path / kind.folder[0])
    summary = path / SUMMARY
    if summary.is_file() and _is_meta_eval(summary):
        lines = path / JUDGMENTS
        return Run("meta-eval", path, summary, lines if lines.is_file() else None, parent)
    return None


def _holds(path: Path, kind: store.OutputKind) -> bool:
    """Whether ``path`` is a file of ``kind`` with something in it."""
    return kind.holds(path) and path.is_file() and path.stat().st_size > 0


def _is_meta_eval(summary: Path) -> bool:
    try:
        data = read_json_object(summary)
    except FacetevalError:
        return False
    return data.get("command") == "meta-eval" or ("benchmark" in data and "n" in data)


def _record_run(path: Path) -> Run | None:
    """The run of the record ``path``: its outputs are beside it (``written``), else its ``output``."""
    try:
        data = read_json_object(path)
    except (FacetevalError, OSError):
        return None
    written = data.get(WRITTEN)
    names = [name for name in written if isinstance(name, str)] if isinstance(written, dict) else []
    if isinstance(data.get("output"), str):
        names.append(Path(data["output"]).name)
    names.append(path.name.removesuffix(RECORD_SUFFIX) + ".jsonl")
    for name in dict.fromkeys(names):
        beside = path.with_name(name)
        run = _lines_run(beside) if name.endswith(".jsonl") and beside.is_file() else None
        if run is not None and run.record == path:
            return run
    return None


def _lines_run(path: Path) -> Run | None:
    """The run of the JSONL ``path``: judgments, corrections or bridged records (an empty file is one
    when its record says so)."""
    beside = record_path_for(path)
    record = beside if beside.is_file() else None
    try:
        empty = path.stat().st_size == 0
    except OSError:
        return None
    if empty:
        return Run("judge", path, record, path) if record is not None else None
    for kind in store.record_kinds():
        if kind.lines is not None and kind.lines.holds(path):
            return Run(kind.command, path, record, path)
    return None
