"""Where a ``judge`` run's judgments go: a file put in place with its run record, or standard output."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import IO

from faceteval._runner._reuse import PreviousJudgments
from faceteval._runner._stats import RunStats
from faceteval.core import Instance, Judgment
from faceteval.errors import StoreError
from faceteval.store import JudgeRecord, RunFiles
from faceteval.store.internal import record_path_for


class JudgmentsOutput:
    """The judgments of a run, written one a line as they come, to ``out`` or (None) standard output.

    ``out`` is written beside itself and put in place by `finish`, then its run record
    (`faceteval.store.RunFiles`); leaving the ``with`` block without `finish` leaves the earlier
    ones as they were. With ``reuse``, the ok judgments of an earlier ``out`` of the same job (its
    run record's job as ``job``'s: see `faceteval._runner.job_of`) are handed out by
    `take`, and a run that stops early ends with those of the instances it did not reach: a re-run
    never ends with fewer ok judgments than the run before.

    Without ``out``, the lines go to ``stream`` (standard output when None).

    Raises:
        StoreError: ``out`` or its record cannot be written.
    """

    def __init__(
        self, out: Path | None, job: JudgeRecord, *, reuse: bool, stream: IO[str] | None = None
    ) -> None:
        self._stream = stream
        self._stack = ExitStack()
        self._files: RunFiles | None = None
        self._previous: PreviousJudgments | None = None
        if out is None:
            return
        with self._stack:
            self._files = self._stack.enter_context(RunFiles([out], record_path_for(out)))
            self._output = self._files[out]
            if reuse:
                found = PreviousJudgments.find(out, record_path_for(out), job)
                self._previous = None if found is None else self._stack.enter_context(found)
            self._stack = self._stack.pop_all()

    @property
    def take(self) -> Callable[[Instance], Judgment | None] | None:
        """What hands out the earlier judgment of an instance (see `faceteval._runner.judge_each`)."""
        return None if self._previous is None else self._previous.take

    def write(self, judgment: Judgment) -> None:
        """Write ``judgment`` (a line)."""
        line = judgment.model_dump_json() + "\n"
        if self._files is None:
            stream = sys.stdout if self._stream is None else self._stream
            stream.write(line)
            stream.flush()
            return
        self._output.write(line)
        if self._previous is not None:
            self._previous.written(judgment)

    def finish(
        self,
        stats: RunStats,
        record: Callable[[], JudgeRecord],
        *,
        carried: Callable[[Judgment], None] | None = None,
    ) -> Path | None:
        """Put the judgments in place and write ``record()`` as their run record; its path (None
        for standard output).

        First, the earlier ok judgments of the instances the run did not reach are written, counted
        in ``stats`` as reused, and handed to ``carried``.

        Raises:
            StoreError: The output or its record could not be written (what was put in place is
                said by the record, if one could be written).
        """
        if self._files is None:
            return None
        failure: StoreError | None = None
        try:
            self._carry_over(stats, carried)
        except StoreError as exc:
            failure = exc
        path = self._files.finish(record())
        if failure is not None:
            raise failure
        return path

    def _carry_over(self, stats: RunStats, carried: Callable[[Judgment], None] | None) -> None:
        if self._previous is None:
            return
        try:
            for judgment in self._previous.rest():
                self._output.write(judgment.model_dump_json() + "\n")
                stats.add(judgment, [], reused=True)
                if carried is not None:
                    carried(judgment)
        finally:
            self._previous.close()

    def __enter__(self) -> JudgmentsOutput:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stack.close()
