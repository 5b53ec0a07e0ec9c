"""A run opened for viewing: its record, its input (the instances it judged) and the index of its lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from faceteval.datasets.internal import judged_input
from faceteval.errors import FacetevalError
from faceteval.viewer._index import RunIndex
from faceteval.viewer._record import RecordView
from faceteval.viewer._runs import Run

__all__ = ["OpenedRun", "open_run"]


@dataclass(frozen=True, slots=True)
class OpenedRun:
    """A run with what its pages read.

    Attributes:
        run: The run.
        record: Its record.
        index: The index of its lines (None for a run without lines: an evaluator, a sweep).
        inputs: The instances it judged, when they were found.
        input_problem: Why they were not, when they were looked for.
        systems: The systems the run names for every instance (``--systems A,B``).
    """

    run: Run
    record: RecordView
    index: RunIndex | None
    inputs: Path | None
    input_problem: str | None
    systems: tuple[str, ...]

    def close(self) -> None:
        """Close its index."""
        if self.index is not None:
            self.index.close()


def open_run(run: Run, index_folder: Path) -> OpenedRun:
    """``run``, opened: its record read and its index made ready (not yet brought up to date).

    Raises:
        StoreError: The index cannot be kept in ``index_folder``.
    """
    record = run.read_record()
    inputs, problem = _inputs(run, record)
    systems = _run_systems(record.options.get("systems"))
    index = None
    if run.lines is not None:
        index = RunIndex(run.command, run.lines, inputs, index_folder, systems)
    return OpenedRun(run, record, index, inputs, problem, systems)


def _inputs(run: Run, record: RecordView) -> tuple[Path | None, str | None]:
    """The instances ``run`` judged, or why they cannot be shown (the index reads canonical JSONL: an
    input read another way, a CSV or a dataset, is not shown)."""
    if run.command == "meta-eval" and run.lines is not None:
        found = run.instances
        return (found, None) if found is not None else (None, f"{run.path} has no instances.jsonl")
    if run.command != "judge" or run.lines is None:  # a sweep has no lines of its own
        return None, None  # corrections and bridged records hold their own texts
    given = record.data.get("inputs", {}).get("input")
    if isinstance(given, dict) and given.get("read_as"):
        how = ", ".join(f"{key} {value}" for key, value in given["read_as"].items() if key != "fields")
        return None, (
            f"the candidates are not shown: the input was read as {how or 'mapped fields'}, and the viewer "
            "shows inputs in faceteval's own JSON Lines (`faceteval report` shows the run's items)"
        )
    try:
        return judged_input(run.lines), None
    except FacetevalError as exc:  # its advice (--input) is for other commands: the viewer finds none
        return None, f"the candidates are not shown: {str(exc).split('; name ')[0]}"


def _run_systems(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(s.strip() for s in value.split(",") if s.strip())
    if isinstance(value, Sequence) and all(isinstance(s, str) for s in value):
        return tuple(value)
    return ()
