"""Helpers for tests that run the command line in a child process."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

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


def stop(process: subprocess.Popen[Any], *, grace: float = 10) -> None:
    """End a server ``process``: SIGTERM, then SIGKILL if it is still there after ``grace`` seconds;
    its output pipe closed."""
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout:
        process.stdout.close()


def run_to_end(command: Sequence[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end as `start` runs it, its output captured."""
    return subprocess.run(
        list(command), env=_env(), capture_output=True, text=True, timeout=timeout, check=False
    )


def partial_files(path: Path) -> list[Path]:
    """The partial files a run writing the output ``path`` keeps beside it (``.NAME.*.partial``)."""
    return sorted(path.parent.glob(f".{path.name}.*.partial"))


def written_lines(path: Path) -> int:
    """Lines a run has written to the output ``path`` so far: in its partial file while it goes (the
    newest, if a killed run left another), else in ``path`` itself (once put in place)."""
    partials = partial_files(path)
    for candidate in [*sorted(partials, key=_modified, reverse=True), path]:
        try:
            return candidate.read_bytes().count(b"\n")
        except FileNotFoundError:  # put in place, or cleaned up, meanwhile
            continue
    return 0


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def wait_for_lines(
    path: Path, count: int, *, also: Callable[[], bool] = lambda: True, timeout: float = 180
) -> None:
    """Until the run writing ``path`` has written ``count`` lines (`written_lines`, and ``also``
    holds); AssertionError after ``timeout`` seconds.

    The timeout is generous, as waiting ends as soon as the lines are there: a slow or busy machine
    can take tens of seconds to start a run, and a test that stopped it earlier
    would check a run that had not begun.
    """
    deadline = time.monotonic() + timeout
    while not (written_lines(path) >= count and also()):
        if time.monotonic() > deadline:
            lines = written_lines(path)
            other = " (the other condition does not hold)" if lines >= count else ""
            raise AssertionError(f"{path} has {lines} of {count} lines after {timeout:g} s{other}")
        time.sleep(0.05)


def partial_lines(path: Path) -> int:
    """Lines in the partial file of the output ``path`` (a run writing it now); 0 when there is none."""
    partials = sorted(partial_files(path), key=_modified, reverse=True)
    for candidate in partials:
        try:
            return candidate.read_bytes().count(b"\n")
        except FileNotFoundError:
            continue
    return 0


def wait_until(condition: Callable[[], bool], what: str, *, timeout: float = 180) -> None:
    """Until ``condition()`` holds; AssertionError saying ``what`` did not happen after ``timeout`` s
    (generous, as in `wait_for_lines`: waiting ends as soon as it holds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout:g} s")
        time.sleep(0.05)


def wait_until_answering(
    process: subprocess.Popen[bytes], base: str, what: str, *, timeout: float = 120
) -> None:
    """Waits until the web app ``process`` serves answers at ``base`` (a busy machine starts it slowly);
    raises with its output if it exits first or does not answer within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(base + "/", timeout=5.0).close()
            return
        except (urllib.error.URLError, ConnectionError):
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read().decode() if process.stdout else ""
                raise RuntimeError(f"{what} did not start:\n{output}") from None
            time.sleep(0.1)


def released_when(
    condition: Callable[[], bool], gate: threading.Event, what: str, *, timeout: float = 180
) -> list[bool]:
    """Set ``gate`` once ``condition`` holds (or, failing, after ``timeout``), from a thread of its own;
    the list it returns says (once set) whether the condition held."""
    held: list[bool] = []

    def watch() -> None:
        try:
            wait_until(condition, what, timeout=timeout)
            held.append(True)
        except AssertionError:
            held.append(False)
        gate.set()

    threading.Thread(target=watch, daemon=True).start()
    return held
