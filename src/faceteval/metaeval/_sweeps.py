"""The runs of a sweep or of repeated seeds, and the summary that compares them."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from faceteval.store import MetaEvalSummary

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


def variants(counts: Sequence[int | None], seeds: Sequence[int | None], prefix: str) -> list[Variant]:
    """One run per count and per seed, each in its directory (``aspects-2_seed-1``; "" for one run).

    Examples:
        >>> [v.name for v in variants([1, 2], [None], "aspects")]
        ['aspects-1', 'aspects-2']
        >>> [v.name for v in variants([3], [0, 1], "aspects")]
        ['seed-0', 'seed-1']
    """
    out = []
    for count in counts:
        for seed in seeds:
            parts = ([f"{prefix}-{count}"] if len(counts) > 1 else []) + (
                [f"seed-{seed}"] if len(seeds) > 1 else []
            )
            out.append(Variant(count, seed, "_".join(parts)))
    return out


def combine(summaries: Sequence[tuple[Variant, MetaEvalSummary]]) -> MetaEvalSummary:
    """The summary of a sweep or of repeated runs: one row per run, and mean / sd over seeds."""
    first = summaries[0][1]
    kept = first.model_dump(include={"benchmark", "kind", "judge", "n", "status"}, exclude_unset=True)
    rows = []
    for variant, summary in summaries:
        row: dict[str, Any] = {"dir": variant.name, SWEEP_KEY: variant.count, "seed": variant.seed}
        row |= headline(summary)
        row["status"] = summary.status
        row["usage"] = summary.usage
        rows.append(row)
    combined: dict[str, Any] = {**kept, "runs": rows}
    if len({v.count for v, _ in summaries}) > 1:
        combined["sweep"] = rows
    if len({v.seed for v, _ in summaries}) > 1:
        combined["repeats"] = _repeats(summaries)
    return MetaEvalSummary.model_validate(combined)


def headline(summary: MetaEvalSummary) -> dict[str, Any]:
    """The numbers a sweep or repeat compares: the pairwise rates, or each aspect's sample correlations."""
    if summary.kind == "pointwise":
        correlations = summary.correlations if isinstance(summary.correlations, dict) else {}
        return {
            f"{aspect}.{method}": entry
            for aspect, levels in correlations.items()
            if isinstance(levels, dict)
            for method, entry in _mapping(levels.get("sample")).items()
        }
    numbers = summary.model_dump(include=set(HEADLINE), exclude_unset=True)
    return {key: numbers[key] for key in HEADLINE if key in numbers}


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _repeats(summaries: Sequence[tuple[Variant, MetaEvalSummary]]) -> dict[str, Any]:
    """Mean and spread over seeds of each number; per swept count (``aspects-K/...``) in a sweep."""
    out: dict[str, Any] = {"seeds": sorted({v.seed for v, _ in summaries if v.seed is not None})}
    sweep = len({v.count for v, _ in summaries}) > 1
    numbers: dict[str, list[float]] = {}
    for variant, summary in summaries:
        for key, entry in headline(summary).items():
            if isinstance(entry, dict) and entry.get("value") is not None:
                name = f"{SWEEP_KEY}-{variant.count}/{key}" if sweep else key
                numbers.setdefault(name, []).append(entry["value"])
    for name, values in numbers.items():
        if len(values) >= 2:
            out[name] = {"mean": statistics.fmean(values), "sd": statistics.stdev(values), "values": values}
    return out
