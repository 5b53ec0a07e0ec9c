"""The runs a viewer serves: found again in the paths it was given each time the list is shown, each
opened (its record read, its index made) the first time a page of it is asked for."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from faceteval.viewer._lines import Stale
from faceteval.viewer._opened import OpenedRun, open_run
from faceteval.viewer._runs import Run, find_runs

__all__ = ["Catalog", "Changing"]

T = TypeVar("T")


class Changing(Exception):
    """A run's file kept changing while a page of it was read (it is being written, line by line)."""


class Catalog:
    """The runs in ``paths``, with their indexes kept in ``index_folder``."""

    def __init__(self, paths: Sequence[Path], index_folder: Path) -> None:
        self.paths = tuple(paths)
        self.index_folder = index_folder
        self._lock = threading.Lock()
        self._runs: dict[str, Run] = {}
        self._opened: dict[str, OpenedRun] = {}

    def runs(self) -> tuple[list[Run], list[str]]:
        """The runs found now in the paths, and what is wrong with each path that holds none."""
        runs, problems = find_runs(self.paths)
        with self._lock:
            self._runs = {run.id: run for run in runs}
        return runs, problems

    def run(self, run_id: str) -> Run | None:
        """The run of id ``run_id``, found again if it is new since the list was last shown."""
        with self._lock:
            found = self._runs.get(run_id)
        if found is None:
            found = next((run for run in self.runs()[0] if run.id == run_id), None)
        return found

    def opened(self, run: Run) -> OpenedRun:
        """``run``, opened (once: later pages reuse its index); opened again if it changed kind.

        Raises:
            StoreError: Its index cannot be kept.
        """
        with self._lock:
            known = self._opened.get(run.id)
            if known is not None and known.run == run:
                return known
            if known is not None:
                known.close()
            opened = self._opened[run.id] = open_run(run, self.index_folder)
            return opened

    def close(self) -> None:
        """Close every index."""
        with self._lock:
            for opened in self._opened.values():
                opened.close()
            self._opened.clear()


def fresh(opened: OpenedRun, read: Callable[[], T]) -> T:
    """``read()`` with ``opened``'s index brought up to date first, and rebuilt whole once if a line is
    not where it says (the file changed meanwhile in a way its identity did not show).

    Raises:
        Changing: It was still not, after that.
        RunGone: The run's file is no longer there.
    """
    if opened.index is None:
        return read()
    opened.index.refresh()
    try:
        return read()
    except Stale:
        opened.index.refresh(force=True)
    try:
        return read()
    except Stale as exc:
        raise Changing(str(exc)) from exc
