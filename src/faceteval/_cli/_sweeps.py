"""The runs of ``meta-eval --method``: one per value of the method's swept option and per seed, and
the summary that compares them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import click

from faceteval._cli._method_options import MethodFlag, method_args, method_flags
from faceteval.methods import MethodSpec, method_spec

HEADLINE = (  # the numbers a sweep or repeat compares (pairwise)
    "agreement",
    "accuracy_order_avg",
    "agreement_without_ties",
    "consistency",
    "agreement_consistent",
    "consistency_without_ties",
    "agreement_consistent_without_ties",
)


SWEEP_KEY = "aspects"
"""What a sweep's rows (and the variant of a run whose method sweeps nothing) name the swept count, as
every run has recorded it."""


@dataclass(frozen=True, slots=True)
class Variant:
    """One run of a sweep or of repeats: its count, its seed, and its directory's name ("" alone)."""

    count: int | None
    """The value of the method's swept option (dna's aspects, fennec's criteria count)."""
    seed: int | None
    name: str


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
    variants = []
    for k in counts:
        for seed in seeds:
            parts = ([f"{prefix}-{k}"] if len(counts) > 1 else []) + (
                [f"seed-{seed}"] if len(seeds) > 1 else []
            )
            variants.append(Variant(k, seed, "_".join(parts)))
    return variants


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


def combine(summaries: list[tuple[Variant, dict[str, Any]]]) -> dict[str, Any]:
    """The summary of a sweep or of repeated runs: one row per run, and mean / sd over seeds."""
    first = summaries[0][1]
    combined: dict[str, Any] = {
        key: first[key] for key in ("schema_version", "benchmark", "kind", "judge", "n", "method", "status")
    }
    rows = []
    for variant, summary in summaries:
        row: dict[str, Any] = {"dir": variant.name, SWEEP_KEY: variant.count, "seed": variant.seed}
        row |= headline(summary)
        row["status"] = summary["status"]
        row["usage"] = summary["usage"]
        rows.append(row)
    combined["runs"] = rows
    if len({v.count for v, _ in summaries}) > 1:
        combined["sweep"] = rows
    if len({v.seed for v, _ in summaries}) > 1:
        combined["repeats"] = _repeats(summaries)
    return combined


def headline(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The numbers a sweep or repeat compares: the pairwise rates, or each aspect's sample correlations."""
    if summary.get("kind") == "pointwise":
        return {
            f"{aspect}.{method}": entry
            for aspect, levels in summary.get("correlations", {}).items()
            for method, entry in levels.get("sample", {}).items()
        }
    return {key: summary[key] for key in HEADLINE if key in summary}


def _repeats(summaries: list[tuple[Variant, dict[str, Any]]]) -> dict[str, Any]:
    """Mean and spread over seeds of each number; per swept count (``aspects-K/...``) in a sweep."""
    out: dict[str, Any] = {"seeds": sorted({v.seed for v, _ in summaries if v.seed is not None})}
    sweep = len({v.count for v, _ in summaries}) > 1
    numbers: dict[str, list[float]] = {}
    for variant, summary in summaries:
        for key, entry in headline(summary).items():
            if entry.get("value") is not None:
                name = f"{SWEEP_KEY}-{variant.count}/{key}" if sweep else key
                numbers.setdefault(name, []).append(entry["value"])
    for name, values in numbers.items():
        if len(values) >= 2:
            out[name] = {"mean": statistics.fmean(values), "sd": statistics.stdev(values), "values": values}
    return out
