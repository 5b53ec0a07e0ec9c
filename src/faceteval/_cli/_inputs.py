"""The options saying how an input is read, shared by every command that reads instances: ``--field``,
``--label-map``, ``--preset``, ``--format``, ``--id``, ``--system-by``, ``--hf-dataset`` and ``--split``
(`faceteval.datasets.read_instances` reads by them)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from faceteval._cli._choices import NamedChoice
from faceteval.datasets import InputFormat, Reading
from faceteval.datasets.internal import FORMATS, ID_SEPARATOR, PRESET_NAMES, reading_of
from faceteval.errors import ConfigError

F = TypeVar("F", bound=Callable[..., Any])

FIELD_HELP = (
    "Where a field comes from in your input, e.g. query=prompt, candidates=output_a,output_b, label=winner, "
    "systems=model_a,model_b, scores.coherence=coh (repeatable)."
)


def input_options(*, hf: bool = True, what: str = "your input") -> Callable[[F], F]:
    """Add the reading options to a command; ``hf``: with ``--hf-dataset`` and ``--split`` too."""
    options = [
        click.option("--field", "fields", multiple=True, metavar="FIELD=COLUMN", help=FIELD_HELP),
        click.option(
            "--label-map",
            metavar="VALUE=LABEL,...",
            help=f"How {what}'s label values read: the better candidate (1-based), 0 a tie, "
            "e.g. a=1,b=2,tie=0.",
        ),
        click.option(
            "--preset",
            type=NamedChoice(PRESET_NAMES),
            help=f"{what[0].upper()}{what[1:]} is in a published layout (docs/inputs.md has the table).",
        ),
        click.option(
            "--format",
            "input_format",
            type=NamedChoice(FORMATS),
            help="The input's format (default: by its suffix; a directory is a Hugging Face dataset).",
        ),
        click.option(
            "--id",
            "id_fields",
            metavar="FIELD[,FIELD...]",
            help=f"Make each instance's id of these fields (or columns no field uses), joined by "
            f"'{ID_SEPARATOR}', e.g. doc_id,system; a value holding '{ID_SEPARATOR}' is a bad row.",
        ),
        click.option(
            "--system-by",
            metavar="FIELD",
            help="The field (or column no field uses) naming the system behind the candidates of an "
            "instance that names no systems: a name for a single output, or a list of one per candidate.",
        ),
    ]
    if hf:
        options += [
            click.option(
                "--hf-dataset",
                metavar="NAME_OR_PATH",
                help="Read a Hugging Face dataset instead of a file: a directory written by save_to_disk, "
                "a folder of data files, or a dataset name (from the Hub, where there is a network).",
            ),
            click.option("--split", help="The split of --hf-dataset (default: its only one)."),
        ]

    def decorate(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def group_by_option(effect: str) -> Callable[[F], F]:
    """``--group-by FIELD``, whose ``effect`` the help says (what grouping does in this command)."""
    return click.option(
        "--group-by",
        metavar="FIELD",
        help="Group the instances by a field (category, task, query...) or a column no field uses "
        f"(carried in metadata): {effect} A name no instance has is a usage error.",
    )


@contextmanager
def as_usage_error() -> Iterator[None]:
    """A `ConfigError` raised inside (a ``--group-by`` or ``--system-by`` field no instance has) as a
    usage error: exit status 2."""
    try:
        yield
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None


def input_reading(flags: dict[str, Any]) -> Reading:
    """How the flags say to read the input.

    Raises:
        click.UsageError: ``--split`` without a dataset to split.
        ConfigError: A malformed ``--field`` or ``--label-map``.
    """
    hf = bool(flags.get("hf_dataset"))
    fmt: InputFormat | None = "hf" if hf else flags.get("input_format")
    if flags.get("split") and fmt != "hf":
        raise click.UsageError("--split chooses a split of --hf-dataset (or of --format hf)")
    return reading_of(
        fields=list(flags.get("fields") or ()) or None,
        preset=flags.get("preset"),
        label_map=flags.get("label_map"),
        format=fmt,
        split=flags.get("split"),
        id_fields=flags.get("id_fields"),
        system_by=flags.get("system_by"),
    )


def input_source(flags: dict[str, Any], argument: str, metavar: str = "INPUT") -> Path:
    """The input the flags name: the ``argument`` or ``--hf-dataset``, exactly one of them.

    Raises:
        click.UsageError: Both or neither.
    """
    given, dataset = flags.get(argument), flags.get("hf_dataset")
    if given is not None and dataset:
        raise click.UsageError(f"give {metavar} or --hf-dataset, not both")
    if given is None and not dataset:
        raise click.UsageError(f"give {metavar} (a file), or --hf-dataset NAME_OR_PATH")
    return Path(given) if given is not None else Path(str(dataset))
