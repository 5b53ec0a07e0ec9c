"""The tables of a report, read from a summary: every section is optional, and shows what is there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from faceteval._util.numbers import number
from faceteval._util.text import plural
from faceteval.methods.internal import sweep_of
from faceteval.report._confusion import read_confusion
from faceteval.report._format import (
    DASH,
    count,
    decimal,
    dollars,
    hits,
    interval,
    interval_note,
    metric_interval,
    metric_name,
    metric_value,
    percent,
    value_of,
)
from faceteval.report._model import Section, Table, numeric_columns

HEADLINE = (
    "agreement",
    "agreement_without_ties",
    "cohen_kappa",
    "agreement_order1",
    "agreement_order2",
    "accuracy_order_avg",
    "consistency",
    "consistency_without_ties",
    "rotation_consistency",
    "agreement_consistent",
    "agreement_consistent_without_ties",
)
"""Headline metrics, in the order shown; other rate entries of the summary follow them."""
STATUSES = ("ok", "parse_error", "error", "missing")
_STATUS_NAMES = {"ok": "Judged", "parse_error": "Parse errors", "error": "Failed", "missing": "Not judged"}
_NOT_METRICS = frozenset(
    {"status", "usage", "confusion", "by_category", "facet_weights", "reported", "votes"}
)
_RATE_PREFIXES = ("agreement", "accuracy", "consistency")
ALL = "(all)"
"""The facet-weight category that covers every instance."""


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def lookup(summary: Mapping[str, Any], key: str) -> Any:
    """A summary entry by key, or by dotted path (``votes.with_ties``); None when absent."""
    if key in summary:
        return summary[key]
    node: Any = summary
    for part in key.split("."):
        node = mapping(node).get(part)
    return node


def is_rate_key(key: str) -> bool:
    """Whether ``key`` names a rate (shown as a percentage) in free-form tables (sweeps, repeats)."""
    return (key in HEADLINE and key != "cohen_kappa") or key.startswith(_RATE_PREFIXES)


def title(summary: Mapping[str, Any]) -> str:
    """``benchmark × judge``, or what of it the summary names."""
    parts = [str(summary[key]) for key in ("benchmark", "judge") if summary.get(key) not in (None, "")]
    return " × ".join(parts) if parts else "Meta-evaluation report"


def overview(summary: Mapping[str, Any]) -> Section | None:
    """What was measured, and the headline metrics."""
    facts = [
        f"{label}: {summary[key] if isinstance(summary[key], str) else count(summary[key])}"
        for key, label in (("kind", "Kind"), ("n", "Instances"), ("labelled", "With a human label"))
        if summary.get(key) is not None
    ]
    notes: tuple[str, ...] = ("; ".join(facts) + ".",) if facts else ()
    if number(left_out := summary.get("order_metrics_leave_out")):
        notes += (
            f"The metrics of each order and of swap consistency cover the two-candidate instances; "
            f"{count(left_out)} with three or more candidates were judged in rotations, whose "
            "agreement is the consistency across rotations.",
        )
    entries = _headline_entries(summary)
    excluded = any(number(mapping(entry).get("excluded")) for _, entry in entries)
    rows = tuple(
        (
            metric_name(key),
            metric_value(key, value_of(entry)),
            metric_interval(key, entry),
            hits(entry),
            _count_of(entry, "missing"),
            *((_count_of(entry, "excluded"),) if excluded else ()),
        )
        for key, entry in entries
    )
    columns = ("Metric", "Value", "95% CI", "Hits / n", "No verdict", *(("Excluded",) if excluded else ()))
    lines = (
        "No verdict: counted in n as misses. Excluded: left out of n (e.g. human ties)."
        if excluded
        else None,
        interval_note(entry for _, entry in entries),
    )
    note = " ".join(line for line in lines if line) or None
    tables = (Table(columns, rows, note=note, numeric=numeric_columns(1, len(columns) - 1)),) if rows else ()
    return Section("overview", "Headline", notes, tables) if notes or tables else None


def _headline_entries(summary: Mapping[str, Any]) -> list[tuple[str, Any]]:
    entries = [(key, summary[key]) for key in HEADLINE if isinstance(summary.get(key), Mapping)]
    entries += [
        (key, entry)
        for key, entry in summary.items()
        if key not in HEADLINE and key not in _NOT_METRICS and _is_rate(entry)
    ]
    votes = mapping(summary.get("votes"))
    entries += [(f"votes.{key}", entry) for key, entry in votes.items() if isinstance(entry, Mapping)]
    return entries


def _is_rate(entry: Any) -> bool:
    return isinstance(entry, Mapping) and "value" in entry and ("hits" in entry or "ci" in entry)


def _count_of(entry: Any, key: str) -> str:
    return count(mapping(entry).get(key))


def status(summary: Mapping[str, Any]) -> Section:
    """How many instances were judged, failed to parse, failed, or were not judged: always shown."""
    counts = summary.get("status")
    known = mapping(counts)
    rows = [
        (_STATUS_NAMES[key], count(known.get(key, 0)) if counts is not None else DASH) for key in STATUSES
    ]
    rows += [(metric_name(key), count(value)) for key, value in known.items() if key not in STATUSES]
    notes = () if counts is not None else ("The summary records no status counts.",)
    tables: tuple[Table, ...] = (Table(("Status", "Instances"), tuple(rows), numeric=(False, True)),)
    if (unused := _unused_judgments(summary)) is not None:
        tables += (unused,)
    return Section("status", "Status", notes, tables)


def _unused_judgments(summary: Mapping[str, Any]) -> Table | None:
    """The judgments not measured: of instances left out on purpose, and of no instance at all."""
    if "unmatched_judgments" not in summary:
        return None
    unmatched = summary["unmatched_judgments"]
    of = f"of {summary['benchmark']}" if summary.get("benchmark") not in (None, "") else "measured"
    if "judgments_outside_sample" not in summary:  # an older summary: the two counted together
        rows = [(f"Of no instance measured (outside the sample, or of no instance {of})", count(unmatched))]
    else:
        examples = [str(example) for example in _list(summary.get("unmatched_examples"))]
        such_as = f": ids such as {', '.join(map(repr, examples))}" if examples and number(unmatched) else ""
        rows = [
            (
                "Of instances outside the sample (--limit, --turn, --category): left out on purpose",
                count(summary["judgments_outside_sample"]),
            ),
            (f"Of no instance {of}{such_as}", count(unmatched)),
        ]
    note = (
        "Judgments of no instance may be of another benchmark, or name its instances by other ids."
        if number(unmatched)
        else None
    )
    return Table(("Judgments not measured", "Judgments"), tuple(rows), note=note, numeric=(False, True))


def reported(summary: Mapping[str, Any]) -> Section | None:
    """Our numbers next to the ones the judge's source published."""
    published = mapping(summary.get("reported"))
    rows = []
    for key, entry in published.items():
        ours, theirs = value_of(lookup(summary, key)), value_of(entry)
        difference = DASH if ours is None or theirs is None else _difference(key, ours - theirs)
        match = DASH if ours is None or theirs is None else "✓" if f"{ours:.3f}" == f"{theirs:.3f}" else "✗"
        rows.append(
            (metric_name(key), metric_value(key, ours, 2), metric_value(key, theirs, 2), difference, match)
        )
    if not rows:
        return None
    note = "✓: equal to 3 decimals (as fractions). Differences are in percentage points for rates."
    table = Table(
        ("Metric", "Measured", "Reported", "Difference", "Match"),
        tuple(rows),
        note=note,
        numeric=numeric_columns(1, 4),
    )
    return Section("reported", "Measured vs reported", (), (table,))


def _difference(key: str, delta: float) -> str:
    text = metric_value(key, delta, 2)
    text = text.removesuffix("%") + " pp" if text.endswith("%") else text
    return signed(text)


def signed(text: str) -> str:
    """A formatted difference with its sign: ``+1.0``, ``-1.0``, and ``0.00`` for what rounds to zero.

    Examples:
        >>> signed("1.5 pp"), signed("-0.00 pp"), signed("-2.1")
        ('+1.5 pp', '0.00 pp', '-2.1')
    """
    digits = text.removeprefix("-")
    if not any(character in "123456789" for character in digits):
        return digits
    return text if text.startswith("-") else "+" + text


def categories(summary: Mapping[str, Any]) -> Section | None:
    """Each metric per category."""
    groups = {str(name): mapping(entry) for name, entry in mapping(summary.get("by_category")).items()}
    metrics = list(dict.fromkeys(key for entry in groups.values() for key in entry))
    if not groups or not metrics:
        return None
    single = len(metrics) == 1
    columns = ["Category"]
    for key in metrics:
        name = metric_name(key)
        columns += [
            name,
            "95% CI" if single else f"{name} 95% CI",
            "Hits / n" if single else f"{name} hits / n",
        ]
    rows = tuple(
        (name, *(cell for key in metrics for cell in _rate_cells(key, entry.get(key))))
        for name, entry in groups.items()
    )
    note = interval_note(entry.get(key) for entry in groups.values() for key in metrics)
    table = Table(tuple(columns), rows, note=note, numeric=numeric_columns(1, 3 * len(metrics)))
    return Section("categories", "By category", (), (table,))


def _rate_cells(key: str, entry: Any) -> tuple[str, str, str]:
    return metric_value(key, value_of(entry)), metric_interval(key, entry), hits(entry)


def confusion(summary: Mapping[str, Any]) -> Section | None:
    """Human labels (rows) against judge verdicts (columns)."""
    matrix = read_confusion(summary.get("confusion"))
    if matrix is None:
        return None
    columns = ("Human ↓ / judge →", *matrix.columns, "Total")
    rows = tuple(
        (name, *(count(cell) for cell in cells), count(sum(cells)))
        for name, cells in zip(matrix.rows, matrix.counts, strict=True)
    )
    totals = (
        "Total",
        *(count(sum(column)) for column in zip(*matrix.counts, strict=True)),
        count(matrix.total),
    )
    table = Table(columns, (*rows, totals), numeric=numeric_columns(1, len(matrix.columns) + 1))
    return Section("confusion", "Confusion matrix", (), (table,))


def facet_weights(summary: Mapping[str, Any], top: int) -> Section | None:
    """The most used facets of each category and their mean weight."""
    weights = {str(name): mapping(entry) for name, entry in mapping(summary.get("facet_weights")).items()}
    order = sorted(weights, key=lambda name: (name != ALL, name))
    rows = []
    for category in order:
        for facet, entry in top_facets(weights[category], top):
            rows.append((category, facet, percent(value_of_mean(entry)), count(mapping(entry).get("n"))))
    if not rows:
        return None
    note = f"Up to {plural(top, 'facet')} per category, most often used first; {ALL} covers every instance."
    table = Table(
        ("Category", "Facet", "Mean weight", "n"), tuple(rows), note=note, numeric=numeric_columns(2, 2)
    )
    return Section("facets", "Facet weights", (), (table,))


def weight_rankings(summary: Mapping[str, Any]) -> Section | None:
    """How far the judge's facet-weight rankings are from people's, next to people's from each other."""
    data = mapping(summary.get("weight_rankings"))
    rows = []
    for key, name in (("judge_vs_human", "Judge vs people"), ("human_vs_human", "People vs people")):
        entry = data.get(key)
        if isinstance(entry, Mapping):
            ci = interval(entry)
            span = f"{decimal(ci[0])} to {decimal(ci[1])}" if ci else DASH
            rows.append((name, decimal(value_of(entry)), span, count(entry.get("n"))))
    if not rows:
        return None
    note = (
        "Mean top-k Kendall distance (Fagin et al. 2003) between weight rankings, "
        f"k = {data.get('k', 'all')}, p = {data.get('p', DASH)}: 0 is the same order, 1 the reverse. "
        "n = instances compared."
    )
    table = Table(
        ("Rankings", "Distance", "95% CI", "n"), tuple(rows), note=note, numeric=numeric_columns(1, 3)
    )
    return Section("weight-rankings", "Facet weights: judge vs people", (), (table,))


def value_of_mean(entry: Any) -> float | None:
    """The mean weight of a facet entry (``{"mean", "n"}`` or a bare number)."""
    return number(entry.get("mean")) if isinstance(entry, Mapping) else number(entry)


def top_facets(facets: Mapping[str, Any], top: int) -> list[tuple[str, Any]]:
    """The ``top`` facets used most often (then by mean weight, then by name)."""

    def key(item: tuple[str, Any]) -> tuple[float, float, str]:
        n = number(mapping(item[1]).get("n")) or 0.0
        return (-n, -(value_of_mean(item[1]) or 0.0), item[0])

    return sorted(((str(name), entry) for name, entry in facets.items()), key=key)[:top]


def usage(summary: Mapping[str, Any]) -> Section | None:
    """Calls, tokens and dollars, in total and per instance, and what of it was spent."""
    total = summary.get("usage")
    if not isinstance(total, Mapping):
        return None
    rows = [_usage_row("Total", total, 4)]
    per_instance = isinstance(total.get("per_instance"), Mapping)
    if per_instance:
        rows.append(_usage_row("Per instance", total["per_instance"], 6))
    made = total.get("made")
    cached = number(total.get("cached_calls"))
    if isinstance(made, Mapping) and cached:
        rows.append(_usage_row("Calls made (spent)", {**made, "cached_calls": 0}, 4))
    columns = ("", "Calls", "Cached calls", "Input tokens", "Output tokens", "Cost (USD)")
    if total.get("calls") == 0:
        notes: tuple[str, ...] = ("No LLM calls were made: the judgments were recorded or imported.",)
    elif not cached:
        notes = ("No call was answered from the response cache: the cost is what was spent.",)
    else:
        spent = (
            "Calls made is what was spent."
            if isinstance(made, Mapping)
            else "What a run spent is in its summary on the terminal and in judgments.run.json."
        )
        notes = (
            "Total and Per instance count the cached calls at their price, as if made: what the "
            f"judgments cost without the response cache, not what was spent. {spent}",
        )
    judged = with_judgment(summary)
    over = (
        f"Per instance: over the {plural(int(judged), 'instance')} with a judgment, failed ones included."
        if per_instance and judged is not None and total.get("calls") != 0
        else None
    )
    modes = summary.get("score_modes")
    if isinstance(modes, Mapping) and modes:
        notes = (*notes, _modes_note(modes))
    table = Table(columns, tuple(rows), note=over, numeric=numeric_columns(1, 5))
    return Section("usage", "Usage and cost", notes, (table,))


def _modes_note(modes: Mapping[str, Any]) -> str:
    """What ``--score-mode logprobs`` gave: the scores by mode."""
    parsed = int(number(modes.get("parse")) or 0)
    mixed = int(number(modes.get("mixed")) or 0)
    expected = int(number(modes.get("logprobs")) or 0)
    fallback = (
        f"; {plural(parsed, 'score')} parsed as written (no log-probabilities at the score)" if parsed else ""
    )
    differed = f"; {plural(mixed, 'score')} mixed over the orders" if mixed else ""
    return (
        f"Scores (--score-mode logprobs): {plural(expected, 'score')} expected from log-probabilities"
        f"{fallback}{differed}."
    )


def with_judgment(summary: Mapping[str, Any]) -> float | None:
    """How many instances of a run have a judgment (failed ones included): what per-instance usage
    divides by. The run's ``n`` less its ``missing`` status count, when it has one."""
    n = number(summary.get("n"))
    missing = number(mapping(summary.get("status")).get("missing")) or 0.0
    return None if n is None else n - missing


def _usage_row(name: str, usage: Mapping[str, Any], digits: int) -> tuple[str, ...]:
    cells = (count(usage.get(key)) for key in ("calls", "cached_calls", "input_tokens", "output_tokens"))
    return (name, *cells, dollars(usage.get("cost_usd"), digits) if "cost_usd" in usage else DASH)


def sweep(summary: Mapping[str, Any]) -> Section | None:
    """A sweep of the method's count (dna's aspects, fennec's criteria), named as its spec names it: one
    row per run."""
    runs = [run for run in _list(summary.get("sweep")) if isinstance(run, Mapping)]
    if not runs:
        return None
    keys = [
        key for key in dict.fromkeys(key for run in runs for key in run) if key not in ("status", "usage")
    ]
    named = sweep_of(mapping(summary.get("method")).get("name"))
    columns: list[str] = []
    for key in keys:
        columns.append(named.column if key == "aspects" else metric_name(key))
        if any(isinstance(run.get(key), Mapping) for run in runs):
            columns.append(f"{metric_name(key)} 95% CI")
    rows = tuple(
        tuple(cell for key in keys for cell in _sweep_cells(key, run.get(key), runs)) for run in runs
    )
    numeric = tuple(name not in ("Dir",) for name in columns)
    title = named.title
    note = interval_note(run.get(key) for run in runs for key in keys)
    return Section("sweep", title, (), (Table(tuple(columns), rows, note=note, numeric=numeric),))


def _sweep_cells(key: str, value: Any, runs: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    has_ci = any(isinstance(run.get(key), Mapping) for run in runs)
    if isinstance(value, Mapping):
        return (metric_value(key, value_of(value)), metric_interval(key, value))
    return (scalar(key, value), DASH) if has_ci else (scalar(key, value),)


def scalar(key: str, value: Any) -> str:
    """A free-form summary value: rates as percentages, counts as integers, anything else as text."""
    if value is None:
        return DASH
    if isinstance(value, bool) or number(value) is None:
        return str(value)
    if is_rate_key(key):
        return percent(value)
    return count(value) if isinstance(value, int) else decimal(value)


def repeats(summary: Mapping[str, Any]) -> Section | None:
    """Repeated runs with different seeds: mean, spread and range of each metric."""
    data = mapping(summary.get("repeats"))
    rows = []
    for key, entry in data.items():
        if key == "seeds" or not isinstance(entry, Mapping):
            continue
        values = [x for x in map(number, _list(entry.get("values"))) if x is not None]
        low, high = (min(values), max(values)) if values else (None, None)
        cells = (entry.get("mean"), entry.get("sd"), low, high)
        rows.append((metric_name(key), *(_repeat_value(key, x) for x in cells), count(len(values))))
    if not rows:
        return None
    seeds = _list(data.get("seeds"))
    notes = (f"Seeds: {', '.join(str(seed) for seed in seeds)}.",) if seeds else ()
    table = Table(("Metric", "Mean", "SD", "Min", "Max", "Runs"), tuple(rows), numeric=numeric_columns(1, 5))
    return Section("repeats", "Repeated runs", notes, (table,))


def _repeat_value(key: str, value: Any) -> str:
    return percent(value, 2) if is_rate_key(key) else decimal(value)


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, Sequence) and not isinstance(value, str | bytes) else []
