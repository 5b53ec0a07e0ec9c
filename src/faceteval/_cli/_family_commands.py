"""The method families' commands (``correct``, ``criteria``, ``hdeval`` ...), from their specs.

A command is imported when it runs or its help is shown, not when the CLI starts. A spec's command
``"criteria show"`` is added to the group another spec's ``"criteria"`` is; one under a group of the
CLI's own (``"review import-coeval"``: a family's review importer) is added to that group.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from faceteval.methods import Command

logger = logging.getLogger(__name__)


def family_commands() -> dict[str, list[Command]]:
    """Each top-level command name the specs give, with its command and the subcommands added to it.

    The registry is imported here, not with the CLI: a command of the CLI's own needs none of it.
    """
    out: dict[str, list[Command]] = {}
    for path, command in _spec_commands().items():
        out.setdefault(path.split(" ")[0], []).append(command)
    return {name: commands for name, commands in out.items() if any(c.path == name for c in commands)}


def add_family_subcommands(group: click.Group, name: str) -> None:
    """Add to the CLI's own group ``name`` the subcommands the specs give it (each left out, with a
    warning, if it cannot be imported)."""
    for command in _spec_commands().values():
        head, _, tail = command.path.partition(" ")
        if head != name or not tail or tail in group.commands:
            continue
        try:
            group.add_command(_load(command), tail)
        except Exception as exc:  # a plugin's broken command: the others still run
            logger.warning("command %r could not be loaded: %s: %s", command.path, type(exc).__name__, exc)


def _spec_commands() -> dict[str, Command]:
    """Every command the specs give, by its path; the first spec to name a path has it, a later one
    naming it otherwise is left out, with a warning. The registry is imported here, not with the CLI."""
    from faceteval.methods import method_specs

    seen: dict[str, Command] = {}
    for spec in method_specs():
        for command in spec.commands:
            known = seen.setdefault(command.path, command)
            if known.target != command.target:
                what = (spec.name, command.path, command.target, known.target)
                logger.warning("method %s's command %r (%s) is %s already: left out", *what)
    return seen


def load_family_command(name: str, commands: list[Command]) -> click.Command | None:
    """The command ``name`` with the subcommands the specs add to it; None (with a warning) if it
    cannot be imported or a subcommand is added to what is not a group."""
    try:
        (top,) = [c for c in commands if c.path == name]
        command = _load(top)
        for sub in (c for c in commands if c.path != name):
            if not isinstance(command, click.Group):
                raise TypeError(f"{sub.path!r} adds to {name!r}, which is not a group of commands")
            command.add_command(_load(sub), sub.path.split(" ")[1])
    except Exception as exc:  # a plugin's broken command: the others still run
        logger.warning("command %r could not be loaded: %s: %s", name, type(exc).__name__, exc)
        return None
    return command


def _load(command: Command) -> click.Command:
    module, _, attribute = command.target.partition(":")
    loaded = getattr(importlib.import_module(module), attribute)
    if not isinstance(loaded, click.Command):
        raise TypeError(f"{command.target} is not a click command")
    return loaded
