"""The type of every number-valued flag: a finite number, so that NaN and infinities are usage errors."""

from __future__ import annotations

import math
from typing import Any

import click


class FiniteFloat(click.FloatRange):
    """A number flag's type: a finite float (``nan``, ``inf`` and ``-inf`` are refused, as the flag's
    usage error), within the bounds given, if any. faceteval.toml's values are read through it too.

    Examples:
        >>> FiniteFloat(min=0).convert("0.5", None, None)
        0.5
        >>> FiniteFloat(min=0).convert("inf", None, None)
        Traceback (most recent call last):
        ...
        click.exceptions.BadParameter: 'inf' is not a finite number
    """

    def __init__(self, min: float | None = None, max: float | None = None, **bounds: Any) -> None:
        super().__init__(min, max, **bounds)
        if min is None and max is None:
            self.name = click.FLOAT.name  # shown as FLOAT, not FLOAT RANGE

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


AGREEMENT = FiniteFloat(0, 1, min_open=True)
"""The type of ``--target-agreement``: a share in (0, 1]."""
DELTA = FiniteFloat(0, 1, min_open=True, max_open=True)
"""The type of ``--delta``: a chance in (0, 1)."""


def target_agreement_option(help: str, **given: Any) -> Any:
    """``--target-agreement``, of ``calibrate``, ``judge --cascade`` and ``meta-eval --cascade``."""
    return click.option("--target-agreement", type=AGREEMENT, help=help, **given)


def delta_option(help: str) -> Any:
    """``--delta`` (default 0.1): the chance allowed that a selective-judging guarantee fails."""
    return click.option("--delta", type=DELTA, default=0.1, show_default=True, help=help)
