"""Bias diagnostics of a pairwise judge: position, length and self-preference, next to the humans' rates.

Every rate is a *preference rate*: the share of decisive verdicts (a candidate chosen) that choose the
candidate in question. A tie (0) prefers neither, so ties are left out of the rate and counted apart
(``excluded`` of each rate, and ``ties``). Both rates are over the instances the judge gave a verdict on
(a tie included; failed and missing judgments left out), the humans' label read the same way (a human
tie left out).

- ``position``: per presentation order the judge saw (``1,2`` is the original order, ``2,1`` swapped;
  a judgment in one order is in the original, one that kept no verdict per order is left out),
  the rate of choosing the candidate shown first; the humans' rate is that of the same candidate
  (their label never depends on the order shown). An unbiased judge matches the humans in each order.
- ``length``: the rate of choosing the longer candidate (in characters; pairs of equal length are left
  out), and agreement with humans (ties a class, failures misses, as ``agreement``) within quartile
  bins of the absolute length difference.
- ``self_preference``: with ``Instance.systems``, on the instances where one candidate's system is the
  judge's model (names compared lowercased, with any ``provider:`` prefix and every character but
  letters and digits removed): the rate of choosing that candidate.

Only instances of two candidates with a human label are counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from faceteval import metrics
from faceteval.core import Instance, Judgment
from faceteval.metaeval._slim import TraceFacts

Pairs = Sequence[tuple[Instance, Judgment | None]]
Rater = Callable[..., dict[str, Any]]
"""Turns a metric and its columns into its JSON entry (with a bootstrap CI when asked): `_summary._ci`."""
ORDERS = ((1, 2), (2, 1))
QUARTILES = (0.25, 0.5, 0.75)


def preference_rate(choices: Sequence[int | None], targets: Sequence[int]) -> metrics.Rate:
    """The share of decisive choices (not a tie, not None) that are their target; the rest ``excluded``.

    Examples:
        >>> preference_rate([1, 2, 0, None, 1], [1, 1, 1, 1, 2])
        Rate(value=0.3333333333333333, hits=1, n=3, missing=0, excluded=2, ci=None, ci_method=None)
    """
    decisive = [(c, t) for c, t in zip(choices, targets, strict=True) if c]
    hits = sum(c == t for c, t in decisive)
    return metrics.Rate.from_counts(hits, len(decisive), excluded=len(choices) - len(decisive))


def bias(
    pairs: Pairs,
    rate: Rater,
    *,
    judge_models: Iterable[str] = (),
    facts: Mapping[str, TraceFacts] | None = None,
) -> dict[str, Any]:
    """The position, length and (with systems) self-preference diagnostics of labelled pairs (slim
    judgments' traces as their ``facts`` say, by id)."""
    two = [(i, j) for i, j in pairs if i.n_candidates == 2 and i.label is not None]
    out: dict[str, Any] = {"position": position(two, rate), "length": length(two, rate)}
    if (own := self_preference(two, rate, judge_models, facts or {})) is not None:
        out["self_preference"] = own
    return out


def order_verdicts(judgment: Judgment | None) -> dict[tuple[int, ...], int | None]:
    """The verdict in each order an ok judgment was judged in (one order: the original). A judgment
    judged in several orders that kept only whether they agreed (``consistent``) has none."""
    if judgment is None or judgment.status != "ok":
        return {}
    if not judgment.orders:
        return {(1, 2): judgment.verdict} if judgment.consistent is None else {}
    return {tuple(result.order): result.verdict for result in judgment.orders}


def position(pairs: Pairs, rate: Rater) -> dict[str, Any]:
    """Per order shown, how often the judge and the humans choose the candidate shown first."""
    out: dict[str, Any] = {}
    pooled: list[tuple[int | None, int, int]] = []
    for order in ORDERS:
        rows = [
            (seen[order], i.label, order[0])
            for i, j in pairs
            if order in (seen := order_verdicts(j)) and i.label is not None
        ]
        if rows:
            out[",".join(map(str, order))] = _first_rates(rows, rate)
            pooled += rows
    if len(out) > 1:
        out["pooled"] = _first_rates(pooled, rate)
    return out


def _first_rates(rows: Sequence[tuple[int | None, int, int]], rate: Rater) -> dict[str, Any]:
    verdicts = [v for v, _, _ in rows]
    labels = [label for _, label, _ in rows]
    firsts = [first for _, _, first in rows]
    return {
        "judge": rate(preference_rate, verdicts, firsts),
        "human": rate(preference_rate, labels, firsts),
        "ties": sum(v == 0 for v in verdicts),
    }


def longer(instance: Instance) -> int | None:
    """The longer candidate (1 or 2) in characters, None when they are equally long."""
    first, second = (len(text) for text in instance.candidates)
    return None if first == second else 1 if first > second else 2


def length(pairs: Pairs, rate: Rater) -> dict[str, Any]:
    """How often the judge and the humans choose the longer candidate, and agreement by length gap."""
    judged = [(i, j) for i, j in pairs if j is not None and j.status == "ok"]
    uneven = [(i, j, side) for i, j in judged if (side := longer(i)) is not None]
    verdicts = [_verdict(j) for _, j, _ in uneven]
    labels = [i.label for i, _, _ in uneven]
    sides = [side for _, _, side in uneven]
    out: dict[str, Any] = {
        "unit": "characters",
        "judge": rate(preference_rate, verdicts, sides),
        "human": rate(preference_rate, labels, sides),
        "equal_length": len(judged) - len(uneven),
    }
    if pairs:
        out["bins"] = length_bins(pairs, rate)
    return out


def length_bins(pairs: Pairs, rate: Rater) -> list[dict[str, Any]]:
    """Agreement within quartile bins of |len(a) - len(b)| (each bin includes its upper edge; a bin whose
    edges coincide with the last is merged into it)."""
    gaps = np.array([abs(len(i.candidates[0]) - len(i.candidates[1])) for i, _ in pairs])
    edges = sorted({float(edge) for edge in np.quantile(gaps, QUARTILES)} | {float(gaps.max())})
    bins: list[dict[str, Any]] = []
    low = -1.0
    for high in edges:
        members = [k for k, gap in enumerate(gaps) if low < gap <= high]
        if members:
            verdicts = [_verdict(pairs[k][1]) for k in members]
            labels = [pairs[k][0].label for k in members]
            bins.append(
                {
                    "low": int(gaps[members].min()),
                    "high": int(gaps[members].max()),
                    "agreement": rate(metrics.agreement, verdicts, labels),
                }
            )
        low = high
    return bins


_PROVIDER = re.compile(r"^[a-z][a-z0-9-]*:")


def model_key(name: str) -> str:
    """A model or system name, compared: lowercased, no ``provider:`` prefix, letters and digits only.

    Examples:
        >>> model_key("openai:GPT-4o-mini"), model_key("gpt-4o mini")
        ('gpt4omini', 'gpt4omini')
    """
    return re.sub(r"[^a-z0-9]", "", _PROVIDER.sub("", name.strip().lower()))


def self_preference(
    pairs: Pairs, rate: Rater, judge_models: Iterable[str], facts: Mapping[str, TraceFacts] | None = None
) -> dict[str, Any] | None:
    """How often the judge chooses its own model's candidate, and the humans do, where one is its own
    (the models a judgment's trace names, or its ``facts`` when it was read slim)."""
    given = {model_key(name) for name in judge_models} - {""}
    rows: list[tuple[int | None, int, int, str]] = []
    for instance, judgment in pairs:
        if judgment is None or judgment.status != "ok" or instance.systems is None:
            continue
        models = given | {model_key(name) for name in _trace_models(judgment, facts or {})}
        own = [k + 1 for k, system in enumerate(instance.systems) if model_key(system) in models]
        if len(own) == 1 and instance.label is not None:
            rows.append((judgment.verdict, instance.label, own[0], instance.systems[own[0] - 1]))
    if not rows:
        return None
    verdicts, labels, sides = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
    return {
        "systems": sorted({r[3] for r in rows}),
        "judge": rate(preference_rate, verdicts, sides),
        "human": rate(preference_rate, labels, sides),
    }


def _trace_models(judgment: Judgment, facts: Mapping[str, TraceFacts]) -> Iterable[str]:
    if (found := facts.get(judgment.id)) is not None:
        return found.models
    return (entry.model for entry in judgment.trace if entry.model)


def _verdict(judgment: Judgment | None) -> int | None:
    return judgment.verdict if judgment is not None and judgment.status == "ok" else None
