"""The methods' flags, built from their specs: shared flags merge, and a flag that cannot be one is left
to -M with a warning rather than breaking the command line."""

from __future__ import annotations

import logging
from typing import Any

import click
import pytest
from click.testing import CliRunner

import faceteval.methods._registry as registry
from faceteval._cli._method_options import add_method_options, method_flags
from faceteval.methods import MethodOption, MethodSpec, register_method
from faceteval.methods.baselines import Direct


@pytest.fixture(autouse=True)
def clean_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))


def spec(name: str, *options: MethodOption) -> MethodSpec:
    return MethodSpec(name=name, factory=Direct, summary="s", scale=(1, 10), options=options)


def command() -> click.Command:
    @click.command()
    @click.option("--out")
    def run(**flags: Any) -> None:
        click.echo(repr(sorted(flags.items())))

    return run


def test_a_shared_flag_merges_its_choices_and_help() -> None:
    lead = "How facet scores combine."
    median = MethodOption(
        param="aggregate", flag="--aggregate", choices=("median",), lead=lead, help="median."
    )
    register_method(spec("picky", median))
    (aggregate,) = [flag for flag in method_flags() if flag.flag == "--aggregate"]
    assert aggregate.methods == "dna or fennec or picky"
    run = command()
    add_method_options(run, after="out", sweeps=False)
    option = next(p for p in run.params if p.name == "aggregate")
    assert isinstance(option.type, click.Choice)
    assert list(option.type.choices) == ["mean", "median", "prompted", "sum", "weighted"]
    assert isinstance(option, click.Option) and option.help is not None
    assert option.help.endswith("fennec: sum (default), mean, or weighted. picky: median.")


def test_a_flag_that_cannot_be_one_is_left_to_m_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    register_method(spec("typed", MethodOption(param="aspects", flag="--aspects", help="text aspects.")))
    register_method(spec("outer", MethodOption(param="out", flag="--out", help="where.")))
    run = command()
    with caplog.at_level(logging.WARNING, logger="faceteval"):
        add_method_options(run, after="out", sweeps=False)
    messages = [record.getMessage() for record in caplog.records]
    assert "--aspects of method typed is a str, as dna's is not: set it with -M aspects=VALUE" in messages
    assert "--out (of outer) is run's own option: set it with -M" in messages
    names = [param.name for param in run.params]
    assert names.count("out") == 1 and "aspects" in names and "method_args" in names
    result = CliRunner().invoke(run, ["--out", "x", "-M", "out=y"])
    assert result.exit_code == 0 and "('method_args', ('out=y',))" in result.output
