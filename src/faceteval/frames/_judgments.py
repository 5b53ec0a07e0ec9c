"""Judgments as table rows: one per judgment (wide), or one per judgment, facet and candidate (long)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from faceteval.core import Instance, Judgment
from faceteval.errors import InputError

BASE = ("id", "method", "status", "error", "verdict", "consistent")
USAGE = ("calls", "cached_calls", "input_tokens", "output_tokens", "cost_usd")
LONG = ("id", "method", "status", "facet", "description", "weight", "candidate", "score", "explanation")
TIE = "tie"
"""The ``winner`` of a tie."""


@dataclass(frozen=True, slots=True)
class Known:
    """What the instances say of a judgment: the systems behind its candidates, its human label."""

    systems: tuple[str, ...] | None = None
    label: int | None = None


Lookup = Callable[[Judgment], Known]


def lookup(instances: Iterable[Instance | InputError] | None, systems: Sequence[str] | None) -> Lookup:
    """What is known of each judgment: from its instance (matched by id), else ``systems``."""
    default = None if systems is None else tuple(systems)
    by_id = {i.id: i for i in instances or () if isinstance(i, Instance)}

    def known(judgment: Judgment) -> Known:
        instance = by_id.get(judgment.id)
        if instance is None:
            return Known(default)
        return Known(instance.systems or default, instance.label)

    return known


def wide_row(judgment: Judgment, known: Known) -> dict[str, Any]:
    """One judgment's row: outcome, overall score and rank per candidate, systems, usage, facets."""
    row: dict[str, Any] = {name: getattr(judgment, name) for name in BASE}
    row["label"] = known.label
    for k, score in enumerate(judgment.scores or (), start=1):
        row[f"score_{k}"] = score
    for k, rank in enumerate(judgment.ranks or (), start=1):
        row[f"rank_{k}"] = rank
    if known.systems is not None:
        row |= {f"system_{k}": name for k, name in enumerate(known.systems, start=1)}
        row["winner"] = _winner(judgment.verdict, known.systems)
    row |= judgment.usage.model_dump(include=set(USAGE))
    row["explanation"] = judgment.explanation
    for facet in judgment.facets:
        row[f"weight/{facet.name}"] = facet.weight
        for k, value in enumerate(facet.scores, start=1):
            row[f"facet/{facet.name}/{k}"] = value
    return row


def _winner(verdict: int | None, systems: tuple[str, ...]) -> str | None:
    if verdict == 0:
        return TIE
    if verdict is None or not 1 <= verdict <= len(systems):
        return None
    return systems[verdict - 1]


def long_rows(judgment: Judgment, known: Known) -> list[dict[str, Any]]:
    """One row per facet and candidate of ``judgment`` (none for a judgment without facets)."""
    rows = []
    for facet in judgment.facets:
        for k, value in enumerate(facet.scores, start=1):
            explanations = facet.explanations
            rows.append(
                {
                    "id": judgment.id,
                    "method": judgment.method,
                    "status": judgment.status,
                    "facet": facet.name,
                    "description": facet.description,
                    "weight": facet.weight,
                    "candidate": k,
                    "system": known.systems[k - 1] if known.systems and k <= len(known.systems) else None,
                    "score": value,
                    "explanation": explanations[k - 1] if explanations else facet.explanation,
                }
            )
    return rows


def wide_columns(rows: Sequence[dict[str, Any]], *, known: bool, labelled: bool) -> list[str]:
    """The columns of the wide table, in a fixed order: the facets' in the order they first come."""
    n, ranked, named = (_most(rows, prefix) for prefix in ("score_", "rank_", "system_"))
    columns = [*BASE, *(["label"] if labelled else [])]
    columns += [f"score_{k}" for k in range(1, n + 1)] + [f"rank_{k}" for k in range(1, ranked + 1)]
    if known:
        columns += [f"system_{k}" for k in range(1, named + 1)] + ["winner"]
    columns += [*USAGE, "explanation"]
    facets = {key: None for row in rows for key in row if key.startswith(("facet/", "weight/"))}
    return columns + list(facets)


def _most(rows: Sequence[dict[str, Any]], prefix: str) -> int:
    """The largest ``k`` of the ``{prefix}{k}`` columns of ``rows``."""
    return max((int(key[len(prefix) :]) for row in rows for key in row if key.startswith(prefix)), default=0)


def long_columns(*, known: bool) -> list[str]:
    """The columns of the long table."""
    return [*LONG[:7], *(["system"] if known else []), *LONG[7:]]
