"""``meta-eval``'s selective-judging options: ``--confidence`` and a cascade of recorded judges
(``--cascade``, ``--target-agreement``, ``--delta``, ``--splits``, ``--judge-costs``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from faceteval._cli._numbers import delta_option, target_agreement_option
from faceteval.core import SIGNALS, STRATEGIES
from faceteval.metaeval import CascadeSettings

F = TypeVar("F", bound=Callable[..., Any])

CASCADE_FLAGS = ("target_agreement", "delta", "splits", "judge_costs")
"""The options that only a cascade reads."""
NAMES = frozenset({"confidence", "cascade", *CASCADE_FLAGS})
"""Every option this module adds (they measure recorded judgments)."""


def _costs(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[float, ...] | None:
    if value is None:
        return None
    try:
        costs = tuple(float(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise click.BadParameter(f"expected numbers separated by commas, got {value!r}") from None
    if not costs or not all(math.isfinite(cost) and cost > 0 for cost in costs):
        raise click.BadParameter(f"each cost is a finite number above 0, got {value!r}")
    return costs


_OPTIONS = (
    click.option(
        "--cascade",
        is_flag=True,
        help="Measure the comma-separated --judgments as a cascade, the first asked first: a verdict "
        "is trusted when its confidence reaches a threshold calibrated for --target-agreement with "
        "probability 1 - --delta, else it escalates to the next judge (the last abstains).",
    ),
    target_agreement_option(
        "With --cascade: the agreement with humans guaranteed on the verdicts kept.",
        default=0.9,
        show_default=True,
    ),
    delta_option("With --cascade: the chance allowed that the target agreement is missed."),
    click.option(
        "--splits",
        type=click.IntRange(1),
        default=200,
        show_default=True,
        help="With --cascade: seeded calibration/test halvings of the labelled instances (--seed).",
    ),
    click.option(
        "--judge-costs",
        metavar="C[,C...]",
        callback=_costs,
        help="With --cascade: each judge's cost per instance, in its order (default: the recorded "
        "usage, else one judgment each).",
    ),
)
"""The options, in the order ``--help`` lists them."""


def cascade_options(command: F) -> F:
    """Add the selective-judging options to ``meta-eval``."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def check_cascade_flags(ctx: click.Context, flags: dict[str, Any]) -> None:
    """A usage error for a selective-judging option that would go unused or cannot combine."""
    given = {
        name
        for name in (*NAMES, "panel_vote")
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE
    }
    if flags["method"] and given & (NAMES - {"confidence"}):
        raise click.UsageError("--cascade measures recorded judgments (--judgments), not a --method run")
    if flags["method"] and flags["confidence"] == STRATEGIES:
        raise click.UsageError(
            "--confidence strategies reads recorded judges' other strategies (--judgments recorded:...), "
            "not a --method run"
        )
    if flags["judgments_spec"] and flags["confidence"] not in (SIGNALS, STRATEGIES):
        raise click.UsageError(
            f"--confidence {flags['confidence']} is estimated as a judge judges (--method); recorded "
            "judgments (--judgments) take signals or strategies"
        )
    if not flags["cascade"] and (unused := [n for n in CASCADE_FLAGS if n in given]):
        names = ", ".join("--" + name.replace("_", "-") for name in unused)
        raise click.UsageError(f"{names} appl{'ies' if len(unused) == 1 else 'y'} with --cascade only")
    if flags["cascade"] and "panel_vote" in given:
        raise click.UsageError(
            "--cascade asks the --judgments one after the other; --panel-vote combines them as a panel: "
            "give one or the other"
        )


def cascade_settings(flags: dict[str, Any]) -> CascadeSettings | None:
    """What ``--cascade`` guarantees and how it is measured; None without it."""
    if not flags["cascade"]:
        return None
    return CascadeSettings(flags["target_agreement"], flags["delta"], flags["splits"], flags["seed"])
