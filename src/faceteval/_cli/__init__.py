"""The command-line interface."""

import contextlib
import logging
from contextlib import AbstractContextManager

from faceteval._util.heap import long_lived

OWNS_PROCESS = False
"""Set by the ``faceteval`` command's entry point: the process is ours to tune (see `starting` and
`faceteval._cli._run.settle_heap`)."""


def starting() -> AbstractContextManager[None]:
    """For a block of start-up (a command's modules imported, a model's SDK imported and its client
    built): in the command's own process, no garbage collection meanwhile and what it made frozen
    after (`faceteval._util.heap.long_lived`); elsewhere nothing."""
    return long_lived() if OWNS_PROCESS else contextlib.nullcontext()


def main() -> None:
    """Entry point of the ``faceteval`` command."""
    global OWNS_PROCESS
    _show_warnings()  # first: building the commands loads method plugins, which may warn
    _neutralise_fallbacks()
    from faceteval._cli._app import cli

    OWNS_PROCESS = True
    cli()


def _show_warnings() -> None:
    """faceteval's warnings on stderr (a long retry wait, say); a library caller's logging is its own."""
    from faceteval._cli._console import err_console, escape

    class ToConsole(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            with contextlib.suppress(Exception, SystemExit):  # stderr closed, a broken pipe: never fatal
                err_console.print(f"[yellow]warning:[/] {escape(record.getMessage())}")

    logger = logging.getLogger("faceteval")
    logger.addHandler(ToConsole(logging.WARNING))
    logger.propagate = False


def _neutralise_fallbacks() -> None:
    """What Python prints by itself (a bug's traceback, another library's log or warning), neutralised too."""
    import sys
    import traceback
    import warnings
    from types import TracebackType
    from typing import TextIO

    from faceteval._cli._console import NeutralLogFilter
    from faceteval._util.text import neutralise

    def excepthook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        sys.stderr.write(neutralise("".join(traceback.format_exception(kind, value, tb))))

    def showwarning(  # a warning (scikit-learn's, say), as Python shows it
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        with contextlib.suppress(OSError):  # as Python's own: stderr closed, a broken pipe
            text = warnings.formatwarning(message, category, filename, lineno, line)
            (file or sys.stderr).write(neutralise(text))

    sys.excepthook = excepthook
    warnings.showwarning = showwarning
    if logging.lastResort is not None:  # what prints a record no handler takes
        logging.lastResort.addFilter(NeutralLogFilter())
