"""The command-line interface."""


def main() -> None:
    """Entry point of the ``faceteval`` command."""
    from faceteval._cli import _run
    from faceteval._cli._app import cli

    _run.OWNS_PROCESS = True
    cli()
