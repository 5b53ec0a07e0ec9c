"""Sections drawn from the instances and judgments: score distributions, failures and a few disagreements."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from faceteval.core import Instance, Judgment
from faceteval.report._evidence import Paired, aspect_scores, ok, preferred_scores, verdict_counts
from faceteval.report._format import DASH, count, decimal, label_name, one_line, truncate
from faceteval.report._model import Section, Table, numeric_columns

QUERY_CHARS = 300
CANDIDATE_CHARS = 200
EXPLANATION_CHARS = 300
REPLY_CHARS = 400
ERROR_CHARS = 160
FAILURES = 10
"""How many failed or unjudged instances the Failures section lists."""
_FAILURE_NAMES = {"parse_error": "parse error", "error": "error"}
_COUNTED_AS = {"pairwise": ": each counts as a disagreement", "pointwise": ": left out of the correlations"}
MAX_CANDIDATES = 4
MIN_GAP = 0.25
"""A pointwise disagreement: judge and human scores this far apart, each rescaled to [0, 1] over the run."""


def distributions(paired: Paired, kind: str | None) -> Section | None:
    """Human labels against judge verdicts (pairwise), or human against judge scores per aspect."""
    tables = _pointwise_tables(paired) if kind == "pointwise" else _pairwise_tables(paired)
    if not tables:
        return None
    return Section("distributions", "Judge vs human distributions", (), tables)


def _pairwise_tables(paired: Paired) -> tuple[Table, ...]:
    tables = []
    counts = verdict_counts(paired)
    if counts is not None:
        rows: tuple[tuple[str, ...], ...] = tuple(
            (name, count(h), count(j))
            for name, h, j in zip(counts.names, counts.human, counts.judge, strict=True)
        )
        tables.append(Table(("Label", "Human labels", "Judge verdicts"), rows, numeric=numeric_columns(1, 2)))
    preferred, others = preferred_scores(paired)
    if preferred or others:
        rows = (_stats_row("Human-preferred candidates", preferred), _stats_row("Other candidates", others))
        columns = ("Judge's overall score of", "n", "Mean", "SD", "Min", "Max")
        tables.append(Table(columns, rows, numeric=numeric_columns(1, 5)))
    return tuple(tables)


def _stats_row(name: str, values: Sequence[float]) -> tuple[str, ...]:
    if not values:
        return (name, "0", DASH, DASH, DASH, DASH)
    sd = statistics.stdev(values) if len(values) > 1 else None
    return (
        name,
        count(len(values)),
        decimal(statistics.fmean(values), 2),
        decimal(sd, 2),
        decimal(min(values), 2),
        decimal(max(values), 2),
    )


def _pointwise_tables(paired: Paired) -> tuple[Table, ...]:
    rows = []
    for aspect in paired.aspects():
        scored = aspect_scores(paired, aspect)
        human = [h for _, h, _ in scored]
        judge = [j for _, _, j in scored]
        rows.append((aspect, count(len(scored)), *_mean_sd(human), *_mean_sd(judge)))
    if not rows or not paired.judged:
        return ()
    columns = ("Aspect", "n", "Human mean", "Human SD", "Judge mean", "Judge SD")
    return (Table(columns, tuple(rows), numeric=numeric_columns(1, 5)),)


def _mean_sd(values: Sequence[float]) -> tuple[str, str]:
    if not values:
        return DASH, DASH
    return decimal(statistics.fmean(values), 2), decimal(
        statistics.stdev(values) if len(values) > 1 else None, 2
    )


def failures(paired: Paired, kind: str | None, limit: int = FAILURES) -> Section | None:
    """The instances without a usable judgment, and why: failed calls and unreadable replies first,
    then instances the judge has no judgment of, ``limit`` at most."""
    failed: list[tuple[str, str, str]] = []
    unjudged: list[tuple[str, str, str]] = []
    failures, missing = 0, 0
    judged = paired.judged
    for instance, judgment in paired.pairs:
        if judgment is not None and not ok(judgment):
            failures += 1
            if len(failed) < limit:
                failed.append((instance.id, *_failure(judgment)))
        elif judgment is None and judged:
            missing += 1
            if len(unjudged) < limit:
                unjudged.append((instance.id, *_failure(judgment)))
    listed = failures + missing
    if not listed:
        return None
    rows = tuple([*failed, *unjudged][:limit])
    counted = _COUNTED_AS.get(kind or "", "")
    notes = (f"{count(failures)} failed or unreadable, {count(missing)} not judged{counted}.",)
    rest = listed - len(rows)
    more = f"And {count(rest)} more, of {count(listed)}" if rest else None
    note = f"{more} (judgments.jsonl has each failure's full error)." if more else None
    table = Table(("Instance", "Status", "Error"), rows, note=note)
    return Section("failures", "Failures", notes, (table,))


def _failure(judgment: Judgment | None) -> tuple[str, str]:
    """A failure's status and its error, on one line and cut short."""
    if judgment is None:
        return "not judged", "no judgment of this instance"
    status = _FAILURE_NAMES.get(judgment.status, judgment.status)
    return status, truncate(one_line(judgment.error or ""), ERROR_CHARS) or DASH


def examples(paired: Paired, kind: str | None, limit: int) -> Section | None:
    """Up to ``limit`` instances where the judge and the humans disagree, with the judge's reasons."""
    if limit <= 0:
        return None
    chosen = (
        _pointwise_disagreements(paired, limit)
        if kind == "pointwise"
        else _pairwise_disagreements(paired, limit)
    )
    tables: list[Table] = []
    shown = paired.whole([position for position, _ in chosen])
    for number, ((instance, judgment), (_, rows)) in enumerate(zip(shown, chosen, strict=True), start=1):
        assert judgment is not None
        fields = (*_instance_rows(instance, kind), *rows, *_judgment_rows(judgment))
        tables.append(Table(("Field", "Value"), fields, title=f"Example {number}: {instance.id}", prose=True))
        if judgment.facets:
            tables.append(_facet_table(judgment))
    if not tables:
        return None
    return Section("examples", "Examples of disagreement", (), tuple(tables))


Chosen = tuple[int, tuple[tuple[str, str], ...]]
"""An example chosen: its position among the pairs, and the rows saying how judge and humans differ."""


def _pairwise_disagreements(paired: Paired, limit: int) -> list[Chosen]:
    chosen: list[Chosen] = []
    for position, (instance, judgment) in enumerate(paired.pairs):
        if len(chosen) == limit:
            break
        if judgment is None or not ok(judgment) or judgment.verdict is None or instance.label is None:
            continue
        if judgment.verdict != instance.label:
            rows = (
                ("Human label", label_name(instance.label)),
                ("Judge verdict", label_name(judgment.verdict)),
            )
            chosen.append((position, rows))
    return chosen


def _pointwise_disagreements(paired: Paired, limit: int) -> list[Chosen]:
    """The instances whose judge and human scores lie furthest apart, each rescaled to [0, 1] per aspect."""
    best: dict[int, tuple[float, str, float, float]] = {}
    for aspect in paired.aspects():
        scored = aspect_scores(paired, aspect)
        human = _rescale([h for _, h, _ in scored])
        judge = _rescale([j for _, _, j in scored])
        for k, (position, h, j) in enumerate(scored):
            gap = abs(human[k] - judge[k])
            if position not in best or gap > best[position][0]:
                best[position] = (gap, aspect, h, j)
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))
    chosen: list[Chosen] = [
        (position, (("Aspect", aspect), ("Human score", decimal(h, 2)), ("Judge score", decimal(j, 2))))
        for position, (gap, aspect, h, j) in ranked
        if gap >= MIN_GAP
    ]
    return chosen[:limit]


def _rescale(values: Sequence[float]) -> list[float]:
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    return [(x - low) / (high - low) if high > low else 0.5 for x in values]


def _instance_rows(instance: Instance, kind: str | None) -> tuple[tuple[str, str], ...]:
    rows = [("Instance", instance.id)]
    if instance.category:
        rows.append(("Category", instance.category))
    rows.append(("Query", truncate(instance.query, QUERY_CHARS)))
    if kind == "pointwise" or instance.n_candidates == 1:
        rows.append(("Output", truncate(instance.candidates[0], CANDIDATE_CHARS)))
    else:
        rows += [
            (f"Candidate {k}", truncate(text, CANDIDATE_CHARS))
            for k, text in enumerate(instance.candidates[:MAX_CANDIDATES], start=1)
        ]
    return tuple(rows)


def _judgment_rows(judgment: Judgment) -> tuple[tuple[str, str], ...]:
    rows = []
    if judgment.scores and len(judgment.scores) > 1:
        rows.append(("Judge scores", ", ".join(decimal(score, 2) for score in judgment.scores)))
    if judgment.consistent is not None:
        rows.append(("Same verdict in both orders", "yes" if judgment.consistent else "no"))
    if not any(facet.explanation for facet in judgment.facets):
        replies = [entry for entry in judgment.trace if entry.raw.strip()]
        label = "Judge's reply"
        if judgment.orders:  # the reply behind the verdict shown first: the original order's
            original = sorted(judgment.orders[0].order)
            replies = [entry for entry in replies if entry.order == original]
            label = "Judge's reply, original order"
        if replies:
            rows.append((label, truncate(replies[-1].raw.strip(), REPLY_CHARS)))
    return tuple(rows)


def _facet_table(judgment: Judgment) -> Table:
    rows = tuple(
        (
            facet.name,
            decimal(facet.weight, 2),
            ", ".join(decimal(score, 2) for score in facet.scores),
            truncate(facet.explanation or "", EXPLANATION_CHARS) or DASH,
        )
        for facet in judgment.facets
    )
    return Table(
        ("Facet", "Weight", "Scores", "Explanation"),
        rows,
        title="Facet scores",
        prose=True,
        numeric=(False, True, True, False),
    )
