"""The command-line interface."""

import contextlib
import logging


def main() -> None:
    """Entry point of the ``faceteval`` command."""
    from faceteval._cli import _run
    from faceteval._cli._app import cli

    _run.OWNS_PROCESS = True
    _show_warnings()
    cli()


def _show_warnings() -> None:
    """faceteval's warnings on stderr (a long retry wait, say); a library caller's logging is its own."""
    from rich.markup import escape

    from faceteval._cli._console import err_console

    class ToConsole(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            with contextlib.suppress(Exception, SystemExit):  # stderr closed, a broken pipe: never fatal
                err_console.print(f"[yellow]warning:[/] {escape(record.getMessage())}")

    logger = logging.getLogger("faceteval")
    logger.addHandler(ToConsole(logging.WARNING))
    logger.propagate = False
