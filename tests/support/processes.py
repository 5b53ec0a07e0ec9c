"""Helpers for tests that run the command line in a child process."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def default_sigint() -> None:
    """In the child (``preexec_fn``): Ctrl-C acts as in a terminal, even if the test runner ignores SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC)}


def start(command: Sequence[str]) -> subprocess.Popen[str]:
    """``command`` in a child process importing this checkout's faceteval, with text pipes for its output."""
    return subprocess.Popen(
        list(command),
        env=_env(),
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_to_end(command: Sequence[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end as `start` runs it, its output captured."""
    return subprocess.run(
        list(command), env=_env(), capture_output=True, text=True, timeout=timeout, check=False
    )


def wait_for_lines(
    path: Path, count: int, *, also: Callable[[], bool] = lambda: True, timeout: float = 180
) -> None:
    """Until ``path`` has ``count`` lines (and ``also`` holds); AssertionError after ``timeout`` seconds.

    The timeout is generous, as waiting ends as soon as the lines are there: a slow or busy machine
    can take tens of seconds to start a run (and its workers), and a test that stopped it earlier
    would check a run that had not begun.
    """
    deadline = time.monotonic() + timeout
    while not (path.exists() and len(path.read_text(encoding="utf-8").splitlines()) >= count and also()):
        if time.monotonic() > deadline:
            lines = len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0
            other = " (the other condition does not hold)" if lines >= count else ""
            raise AssertionError(f"{path} has {lines} of {count} lines after {timeout:g} s{other}")
        time.sleep(0.05)
