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
