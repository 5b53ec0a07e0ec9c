"""What the command says when stopped: exit 130 before a run too, and no cache promised without one."""

import types
from pathlib import Path

import click
from click.testing import CliRunner

from faceteval._cli._app import handle_errors
from faceteval._cli._display import interrupted_note


def test_ctrl_c_before_a_run_begins_exits_130_not_aborted() -> None:
    @click.command()
    @handle_errors
    def starting() -> None:
        raise KeyboardInterrupt  # as Ctrl-C while the workers start

    result = CliRunner().invoke(starting)
    assert result.exit_code == 130 and "Interrupted." in result.output and "Aborted" not in result.output


def test_an_interrupted_run_promises_the_cache_only_when_there_is_one() -> None:
    cached = interrupted_note(types.SimpleNamespace(cache_path=Path("c.sqlite")))  # type: ignore[arg-type]
    uncached = interrupted_note(types.SimpleNamespace(cache_path=None))  # type: ignore[arg-type]
    assert "Every reply received so far is in the cache" in cached
    assert "cache" not in uncached.replace("--no-cache", "") and "asks everything again" in uncached
