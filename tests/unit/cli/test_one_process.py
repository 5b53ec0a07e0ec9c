"""A run's LLM calls are made in the command's own process: no command or constructor takes workers."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest

from faceteval._cli._app import cli
from faceteval.llm import LLM


def commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    """Every command under ``group`` (the families' too), with its name as typed (``hdeval apply``)."""
    for name in group.list_commands(None):
        command = group.get_command(None, name)
        assert command is not None, name
        yield " ".join((*path, name)), command
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


def takes(command: click.Command, name: str) -> bool:
    return any(param.name == name for param in command.params)


def test_no_command_takes_a_workers_flag() -> None:
    every = dict(commands(cli))
    assert "judge" in [name for name, command in every.items() if takes(command, "concurrency")]
    assert [name for name, command in every.items() if takes(command, "workers")] == []


def test_from_spec_takes_no_workers() -> None:
    with pytest.raises(TypeError, match="workers"):
        LLM.from_spec("openai:m", base_url="http://127.0.0.1:9/v1", env={}, workers=2)
