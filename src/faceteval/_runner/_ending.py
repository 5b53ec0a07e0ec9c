"""How a run that writes files ends: noted as interrupted or stopped, its files put in place with a
record that says so, and the error raised again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import anyio

from faceteval.errors import FacetevalError, StoreError
from faceteval.store.internal import header

T = TypeVar("T")


class Outcome(Protocol):
    """How a run ended, as its summary and run record report it."""

    interrupted: bool
    stopped: FacetevalError | None


def note_ending(outcome: Outcome, error: BaseException) -> None:
    """Note on ``outcome`` how the run ended early: interrupted (a cancellation, Ctrl-C), or stopped
    by an error of ours (a bug is neither: the record names it from the ``failure`` it is given)."""
    if isinstance(error, anyio.get_cancelled_exc_class() | KeyboardInterrupt):
        outcome.interrupted = True
    elif isinstance(error, FacetevalError):
        outcome.stopped = error


def ending(command: str, outcome: Outcome, started: Any, failure: BaseException | None) -> dict[str, Any]:
    """The header of the record of a run that started at ``started`` (a datetime) and ended as
    ``outcome`` says, or with ``failure`` (a bug, named by its kind)."""
    stopped = outcome.stopped or (None if outcome.interrupted else failure)
    return header(command, started, interrupted=outcome.interrupted, stopped=stopped)


def put_in_place(outcome: Outcome, finish: Callable[[], T], failure: BaseException | None) -> T | None:
    """``finish()`` (the outputs put in place with their record); if it fails, that error stops the
    run: noted on ``outcome``, and raised unless the run is already failing with ``failure``."""
    try:
        return finish()
    except StoreError as exc:
        outcome.stopped = outcome.stopped or exc
        if failure is None:
            raise
        return None
