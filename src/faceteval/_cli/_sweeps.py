"""The runs ``meta-eval --method`` is asked for: one per value of the method's swept option and per
seed (`faceteval.metaeval.internal.variants` names them)."""

from __future__ import annotations

from typing import Any

import click

from faceteval._cli._method_options import MethodFlag, method_args, method_flags
from faceteval.metaeval.internal import SWEEP_KEY, Variant, variants
from faceteval.methods import MethodSpec, method_spec


def runs_of(ctx: click.Context, flags: dict[str, Any]) -> list[Variant]:
    """One run per value of the method's swept option (``--aspects 1,2,3``, or ``-M``) and per seed."""
    spec = method_spec(flags["method"])
    lists = {
        flag: _int_list(flags[flag.name], flag.flag) for flag in method_flags() if _takes_list(flag, flags)
    }
    swept = spec.sweep
    given = method_args(ctx, spec).get(swept[0].param) if swept is not None else None
    counted = _int_list(given, f"-M {swept[0].param}") if swept is not None and given is not None else None
    seeds: list[int | None] = list(_int_list(flags["seeds"], "--seeds")) if flags["seeds"] else [None]
    for flag, values in lists.items():
        option = flag.option_of(spec)
        if len(values) > 1 and (option is None or option.sweep is None):
            sweepers = " or ".join(s.name for s, o in flag.owners if o.sweep is not None)
            article = "an" if flag.flag[2] in "aeiou" else "a"
            raise click.UsageError(f"{article} {flag.flag} sweep only applies to --method {sweepers}")
    counts, prefix = _counts(spec, lists, counted)
    return variants(counts, seeds, prefix)


def _takes_list(flag: MethodFlag, flags: dict[str, Any]) -> bool:
    return flag.sweeps and flags.get(flag.name) is not None


def _counts(
    spec: MethodSpec, lists: dict[MethodFlag, list[int]], counted: list[int] | None
) -> tuple[list[int | None], str]:
    """The swept option's values and the run directories' prefix; for a method that sweeps nothing,
    the --aspects value its runs have always recorded (one value)."""
    if spec.sweep is None:
        legacy: list[int | None] = [None]
        legacy = next((list(values) for flag, values in lists.items() if flag.name == SWEEP_KEY), legacy)
        return legacy, SWEEP_KEY
    option, sweep = spec.sweep
    if counted is None:
        counted = next((values for flag, values in lists.items() if flag.flag == option.flag), None)
    return list(counted or [option.default]), sweep.prefix


def _int_list(text: str, flag: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a comma-separated list of integers", param_hint=flag
        ) from None
    if not values or any(value < (0 if flag == "--seeds" else 1) for value in values):
        raise click.BadParameter(f"{text!r}: give positive integers", param_hint=flag)
    if len(set(values)) < len(values):
        raise click.BadParameter(f"{text!r} repeats a value", param_hint=flag)
    return values
