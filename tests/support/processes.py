"""Helpers for tests that run the command line in a child process."""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """In the child (``preexec_fn``): Ctrl-C acts as in a terminal, even if the test runner ignores SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
