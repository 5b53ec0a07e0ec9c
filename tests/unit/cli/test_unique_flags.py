"""Every command's flags are its own once: two options of one name would leave one of them unreadable."""

from __future__ import annotations

from collections import Counter

import click

from faceteval._cli._app import cli


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    ctx = click.Context(group)
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            found += _commands(command, f"{prefix}{name} ")
        else:
            found.append((prefix + name, command))
    return found


def test_no_command_defines_a_flag_or_a_parameter_twice() -> None:
    commands = _commands(cli)
    assert {"judge", "meta-eval", "calibrate"} <= {name for name, _ in commands}
    for name, command in commands:
        flags = Counter(flag for param in command.params for flag in param.opts)
        names = Counter(param.name for param in command.params)
        twice = [flag for flag, n in flags.items() if n > 1] + [p for p, n in names.items() if n > 1]
        assert not twice, f"faceteval {name} defines {', '.join(map(str, twice))} more than once"
