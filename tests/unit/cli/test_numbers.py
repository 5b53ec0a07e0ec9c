"""Every number a command takes, from a flag or from faceteval.toml, is finite: ``nan``, ``inf`` and
``-inf`` are usage errors (exit status 2) naming the flag, or the file and key, before anything runs.
The commands and their options are found by walking the command line itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval._cli._numbers import FiniteFloat

NOT_FINITE = ("nan", "inf", "-inf", "NaN", "Infinity", "1e999")


def commands(
    group: click.Group = cli, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        assert command is not None
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


def number_options() -> list[tuple[tuple[str, ...], click.Option]]:
    found = []
    for path, command in commands():
        for param in command.params:
            if isinstance(param, click.Option) and isinstance(param.type, click.types._NumberParamTypeBase):
                found.append((path, param))
    return found


NUMBERS = number_options()
FLOATS = [(path, option) for path, option in NUMBERS if isinstance(option.type, click.types.FloatParamType)]


def test_the_walk_finds_the_number_flags_of_every_kind_of_command() -> None:
    names = {(" ".join(path), option.opts[0]) for path, option in FLOATS}
    assert {("judge", "--temperature"), ("judge", "--timeout"), ("correct", "--threshold")} <= names
    assert ("hdeval train", "--train-frac") in names and ("meta-eval", "--batch-poll") in names
    assert len(FLOATS) >= 20 and len(NUMBERS) > 2 * len(FLOATS)


@pytest.mark.parametrize(
    ("path", "option"), FLOATS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v.opts[0]
)
def test_every_float_flag_is_finite(path: tuple[str, ...], option: click.Option) -> None:
    assert isinstance(option.type, FiniteFloat), f"{' '.join(path)} {option.opts[0]} takes any float"


@pytest.mark.parametrize(
    ("path", "option"), NUMBERS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v.opts[0]
)
def test_a_number_flag_refuses_what_is_not_finite_naming_the_flag(
    path: tuple[str, ...], option: click.Option, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    flag = option.opts[0]
    for value in NOT_FINITE:
        result = CliRunner().invoke(cli, [*path, f"{flag}={value}"])
        assert result.exit_code == 2, (value, result.output)
        assert f"Invalid value for '{flag}'" in result.output, (value, result.output)
        assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("path", "option"), NUMBERS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v.opts[0]
)
def test_a_number_in_faceteval_toml_refuses_what_is_not_finite_naming_the_file_and_key(
    path: tuple[str, ...], option: click.Option, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    key = option.opts[0].lstrip("-")
    table = ".".join(path)
    for value in ("inf", "-inf", "nan", '"inf"', '"nan"', "1e999"):
        (tmp_path / "faceteval.toml").write_text(f"[{table}]\n{key} = {value}\n", encoding="utf-8")
        result = CliRunner().invoke(cli, [*path, "--help"])
        assert result.exit_code == 2, (value, result.output)
        assert f"faceteval.toml: [{table}] {key} = " in result.output, (value, result.output)
        assert "Traceback" not in result.output
