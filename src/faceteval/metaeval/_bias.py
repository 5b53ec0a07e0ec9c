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
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from faceteval import metrics
from faceteval.core import Instance, Judgment
from faceteval.metaeval._slim import TraceFacts, trace_facts

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
    facts: Iterable[TraceFacts | None] | None = None,
) -> dict[str, Any]:
    """The position, length and (with systems) self-preference diagnostics of labelled pairs.

    ``facts`` are what measuring reads of each pair's judgment's trace, pair by pair (`trace_facts`
    of each judgment when not given): the models it names, for self-preference. The pairs are read
    once (a pair at a time: they may be built as they are read), into columns of plain values.
    """
    given = {model_key(name) for name in judge_models} - {""}
    seen: dict[tuple[int, ...], Shown] = {order: ([], []) for order in ORDERS}
    lengths = Lengths()
    own: list[tuple[int | None, int, int, str]] = []
    read = facts if facts is not None else (None if j is None else trace_facts(j) for _, j in pairs)
    for (instance, judgment), found in zip(pairs, read, strict=True):
        if instance.n_candidates != 2 or instance.label is None:
            continue
        for order, choice in order_verdicts(judgment).items():
            if (shown := seen.get(order)) is not None:
                shown[0].append(choice)
                shown[1].append(instance.label)
        lengths.add(instance, judgment)
        if judgment is not None and judgment.status == "ok" and instance.systems is not None and found:
            models = given | {model_key(name) for name in found.models}
            mine = [k + 1 for k, system in enumerate(instance.systems) if model_key(system) in models]
            if len(mine) == 1:
                own.append((judgment.verdict, instance.label, mine[0], instance.systems[mine[0] - 1]))
    out: dict[str, Any] = {"position": position(seen, rate), "length": length(lengths, rate)}
    if (preferred := self_preference(own, rate)) is not None:
        out["self_preference"] = preferred
    return out


Shown = tuple[list[int | None], list[int]]
"""Of the pairs judged in an order: the judge's verdict in it, and the human label."""


@dataclass(slots=True)
class Lengths:
    """Of each labelled pair, a column each: the gap between its candidates' lengths, the longer one
    (`longer`), the judge's verdict (None unless ok), the human label, whether the judgment is ok."""

    gaps: array[int] = field(default_factory=lambda: array("q"))
    sides: list[int | None] = field(default_factory=list)
    verdicts: list[int | None] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    ok: list[bool] = field(default_factory=list)

    def add(self, instance: Instance, judgment: Judgment | None) -> None:
        assert instance.label is not None
        first, second = (len(text) for text in instance.candidates)
        self.gaps.append(abs(first - second))
        self.sides.append(longer(instance))
        self.verdicts.append(_verdict(judgment))
        self.labels.append(instance.label)
        self.ok.append(judgment is not None and judgment.status == "ok")


def order_verdicts(judgment: Judgment | None) -> dict[tuple[int, ...], int | None]:
    """The verdict in each order an ok judgment was judged in (one order: the original). A judgment
    judged in several orders that kept only whether they agreed (``consistent``) has none."""
    if judgment is None or judgment.status != "ok":
        return {}
    if not judgment.orders:
        return {(1, 2): judgment.verdict} if judgment.consistent is None else {}
    return {tuple(result.order): result.verdict for result in judgment.orders}


def position(seen: Mapping[tuple[int, ...], Shown], rate: Rater) -> dict[str, Any]:
    """Per order shown, how often the judge and the humans choose the candidate shown first (``seen``:
    of each order, the judge's verdicts in it and the human labels)."""
    out: dict[str, Any] = {}
    pooled: Shown = ([], [])
    firsts: list[int] = []
    for order in ORDERS:
        verdicts, labels = seen.get(order, ([], []))
        if verdicts:
            out[",".join(map(str, order))] = _first_rates(verdicts, labels, [order[0]] * len(verdicts), rate)
            pooled[0].extend(verdicts)
            pooled[1].extend(labels)
            firsts += [order[0]] * len(verdicts)
    if len(out) > 1:
        out["pooled"] = _first_rates(*pooled, firsts, rate)
    return out


def _first_rates(
    verdicts: Sequence[int | None], labels: Sequence[int], firsts: Sequence[int], rate: Rater
) -> dict[str, Any]:
    return {
        "judge": rate(preference_rate, verdicts, firsts),
        "human": rate(preference_rate, labels, firsts),
        "ties": sum(v == 0 for v in verdicts),
    }


def longer(instance: Instance) -> int | None:
    """The longer candidate (1 or 2) in characters, None when they are equally long."""
    first, second = (len(text) for text in instance.candidates)
    return None if first == second else 1 if first > second else 2


def length(lengths: Lengths, rate: Rater) -> dict[str, Any]:
    """How often the judge and the humans choose the longer candidate, and agreement by length gap."""
    judged = [k for k, ok in enumerate(lengths.ok) if ok]
    uneven = [k for k in judged if lengths.sides[k] is not None]
    sides = [lengths.sides[k] for k in uneven]
    out: dict[str, Any] = {
        "unit": "characters",
        "judge": rate(preference_rate, [lengths.verdicts[k] for k in uneven], sides),
        "human": rate(preference_rate, [lengths.labels[k] for k in uneven], sides),
        "equal_length": len(judged) - len(uneven),
    }
    if lengths.gaps:
        out["bins"] = length_bins(lengths, rate)
    return out


def length_bins(lengths: Lengths, rate: Rater) -> list[dict[str, Any]]:
    """Agreement within quartile bins of |len(a) - len(b)| (each bin includes its upper edge; a bin whose
    edges coincide with the last is merged into it)."""
    gaps = np.frombuffer(lengths.gaps, dtype=np.int64) if lengths.gaps else np.array([], dtype=np.int64)
    edges = sorted({float(edge) for edge in np.quantile(gaps, QUARTILES)} | {float(gaps.max())})
    bins: list[dict[str, Any]] = []
    low = -1.0
    for high in edges:
        members = np.flatnonzero((gaps > low) & (gaps <= high)).tolist()
        if members:
            verdicts = [lengths.verdicts[k] for k in members]
            labels = [lengths.labels[k] for k in members]
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


def self_preference(rows: Sequence[tuple[int | None, int, int, str]], rate: Rater) -> dict[str, Any] | None:
    """How often the judge chooses its own model's candidate, and the humans do, where one is its own
    (``rows``: of each such pair, the verdict, the human label, the judge's own candidate and its
    system); None without such pairs."""
    if not rows:
        return None
    verdicts, labels, sides = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
    return {
        "systems": sorted({r[3] for r in rows}),
        "judge": rate(preference_rate, verdicts, sides),
        "human": rate(preference_rate, labels, sides),
    }


def _verdict(judgment: Judgment | None) -> int | None:
    return judgment.verdict if judgment is not None and judgment.status == "ok" else None
