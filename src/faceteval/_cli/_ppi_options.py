"""``meta-eval``'s prediction-powered options (``--ppi-labels``, ``--ppi-draws``) and ``--labels``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from faceteval.metaeval import PpiSettings

F = TypeVar("F", bound=Callable[..., Any])

NAMES = frozenset({"ppi_labels", "ppi_draws", "labels"})
"""Every option this module adds (``--labels`` applies to a --method run too)."""

_OPTIONS = (
    click.option(
        "--labels",
        type=click.Path(dir_okay=False, exists=True, path_type=Path),
        help="Human labels JSONL (id, label | scores, as `review export --labels` writes) that replace "
        "the benchmark's or file's own labels, by id.",
    ),
    click.option(
        "--ppi-labels",
        type=click.IntRange(2),
        metavar="N",
        help="Pairwise judgments: per model pair with 2N labelled items or more, how often the "
        "prediction-powered, judge-only and human-only intervals from N random human labels cover "
        "the all-human win rate (summary.ppi).",
    ),
    click.option(
        "--ppi-draws",
        type=click.IntRange(1),
        default=1000,
        show_default=True,
        metavar="R",
        help="With --ppi-labels: seeded random draws of the N labelled items per pair (--seed).",
    ),
)
"""The options, in the order ``--help`` lists them."""


def ppi_options(command: F) -> F:
    """Add ``--labels`` and the prediction-powered options to ``meta-eval``."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def check_ppi_flags(ctx: click.Context, flags: dict[str, Any]) -> None:
    """A usage error for a prediction-powered option that would go unused or cannot apply."""
    if ctx.get_parameter_source("ppi_draws") is ParameterSource.COMMANDLINE and flags["ppi_labels"] is None:
        raise click.UsageError("--ppi-draws applies with --ppi-labels only")
    if flags["ppi_labels"] is not None and flags["method"]:
        raise click.UsageError(
            "--ppi-labels measures recorded or given judgments (--judgments), not a --method run"
        )


def ppi_settings(flags: dict[str, Any]) -> PpiSettings | None:
    """How the prediction-powered win rates are measured; None without ``--ppi-labels``."""
    if flags["ppi_labels"] is None:
        return None
    return PpiSettings(flags["ppi_labels"], flags["ppi_draws"], flags["seed"])
