"""The tables of a judge run's result (`faceteval.results.JudgeResult`): who won, how sure, which facets
decided it, and what failed."""

from __future__ import annotations

from collections.abc import Sequence

from faceteval._util.numbers import NO_SPREAD, flat
from faceteval._util.text import plural
from faceteval.report._format import DASH, count, decimal, percent
from faceteval.report._model import Section, Table, numeric_columns
from faceteval.results import (
    FacetSummary,
    JudgeResult,
    Mean,
    PairwiseResult,
    PointwiseResult,
    Proportion,
    Standing,
)

FAILURE_NAMES = {
    "parse_error": "Parse errors",
    "error": "Errors",
    "unjudgeable": "Unjudgeable (the method cannot judge the instance as it is)",
    "invalid_input": "Invalid input lines",
    "planned": "Planned (a dry run's)",
}


def rate_cells(rate: Proportion) -> tuple[str, str]:
    """A rate and its confidence interval, as percentages.

    Examples:
        >>> rate_cells(Proportion(value=0.7, hits=7, n=10, ci=(0.3968, 0.8922)))
        ('70.0%', '[39.7%, 89.2%]')
    """
    ci = f"[{percent(rate.ci[0])}, {percent(rate.ci[1])}]" if rate.ci is not None else DASH
    return percent(rate.value), ci


def mean_cells(mean: Mean | None) -> tuple[str, str, str, str]:
    """A mean's value, confidence interval, standard deviation and n."""
    if mean is None:
        return DASH, DASH, DASH, DASH
    ci = f"[{decimal(mean.ci[0], 2)}, {decimal(mean.ci[1], 2)}]" if mean.ci is not None else DASH
    if flat(mean.ci):
        ci = f"[{NO_SPREAD}: every score alike]"
    return decimal(mean.value, 2), ci, decimal(mean.sd, 2), count(mean.n)


def ci_label(level: float) -> str:
    """A confidence interval's column label: ``95% CI``."""
    return f"{100 * level:g}% CI"


def result_section(result: JudgeResult, *, stored: bool) -> Section:
    """How many judgments, how many ok, what failed, and where the result comes from."""
    source = (
        "The result is the one stored in the run record."
        if stored
        else "The result is computed from the judgments (and the instances they judged): the run "
        "record holds none."
    )
    ok_value, ok_ci = rate_cells(result.ok_rate)
    rows = [
        ("Judgments", count(result.judgments), "", ""),
        ("Ok", count(result.statuses.get("ok", 0)), ok_value, ok_ci),
    ]
    if abstained := result.statuses.get("abstained", 0):
        rows.append(("Abstained (below the calibrated threshold)", count(abstained), "", ""))
    rows += [(FAILURE_NAMES.get(kind, kind), count(n), "", "") for kind, n in result.failures.items()]
    note = (
        f"Share of every judgment, with its {percent(result.level, 0)} Wilson interval. Failed "
        "judgments are in no win rate's or mean's n: they are counted beside them."
    )
    columns = ("Judgments", "Count", "Share", ci_label(result.level))
    table = Table(columns, tuple(rows), note=note, numeric=numeric_columns(1, 3))
    return Section("result", "Result", (source,), (table,))


def standings_table(standings: Sequence[Standing], *, named: bool, level: float) -> Table:
    """Wins, ties and losses of each system (or position), with win rates and their intervals."""
    rows = []
    ci = ci_label(level)
    for s in standings:
        rows.append(
            (
                s.name,
                count(s.wins),
                count(s.ties),
                count(s.losses),
                count(s.failed),
                *rate_cells(s.win_rate),
                *rate_cells(s.win_rate_without_ties),
                *mean_cells(s.score)[:2],
            )
        )
    columns = (
        "System" if named else "Position",
        "Won",
        "Tied",
        "Lost",
        "Failed",
        "Win rate (ties ½)",
        ci,
        "Win rate (no ties)",
        f"{ci} (no ties)",
        "Mean score",
        f"{ci} (score)",
    )
    return Table(columns, tuple(rows), numeric=numeric_columns(1, 10))


def pairwise_sections(pairwise: PairwiseResult, level: float) -> list[Section]:
    """Win rates per system and position, the ranking, swap consistency, and the facets."""
    named = pairwise.systems_named
    what = "system" if named else "candidate position (the instances name no systems)"
    notes = (
        f"Per {what}, over its comparisons (one per pair of candidates in an instance): the win rate "
        "counts ties as half a win, and without ties leaves them out. Failed: comparisons in failed "
        "judgments, in no rate's n. Intervals: Wilson's, conservative when ties count half.",
    )
    sections = [
        Section("systems", "Win rates", notes, (standings_table(pairwise.systems, named=named, level=level),))
    ]
    if named and pairwise.positions:
        table = standings_table(pairwise.positions, named=False, level=level)
        note = "The same comparisons by the position each candidate was shown in: a position bias shows here."
        sections.append(Section("positions", "By candidate position", (note,), (table,)))
    if (ranking := _ranking_section(pairwise, level)) is not None:
        sections.append(ranking)
    if (c := pairwise.consistency) is not None:
        value, ci = rate_cells(c.rate)
        table = Table(
            ("Agreed", "Disagreed", "Consistency", ci_label(level)),
            ((count(c.agreed), count(c.disagreed), value, ci),),
            numeric=numeric_columns(0, 4),
        )
        note = "Judgments made in both orders (--swap) whose orders gave the same verdict."
        sections.append(Section("consistency", "Swap consistency", (note,), (table,)))
    if pairwise.facets:
        sections.append(
            facets_section(pairwise.facets, pairwise.facets_omitted, level, named=named, pairwise=pairwise)
        )
    return sections


def _ranking_section(pairwise: PairwiseResult, level: float) -> Section | None:
    ranking = pairwise.ranking
    if ranking is None:
        return None
    rows = tuple(
        (
            count(s.rank),
            s.system,
            f"{s.strength:+.2f}",
            f"[{s.ci[0]:+.2f}, {s.ci[1]:+.2f}]" if s.ci is not None else DASH,
            count(s.comparisons),
        )
        for s in ranking.strengths
    )
    ci = ci_label(level)
    table = Table(
        ("Rank", "System", "Strength", ci, "Comparisons"), rows, numeric=(True, False, True, True, True)
    )
    matrix = Table(
        ("System", "Against", "Won", "Tied", "Lost", "Win rate (ties ½)", ci),
        tuple(
            (m.system, m.opponent, count(m.wins), count(m.ties), count(m.losses), *rate_cells(m.win_rate))
            for m in pairwise.matrix
        ),
        title="Each system against each other",
        numeric=numeric_columns(2, 5),
    )
    notes = [
        "Bradley-Terry strengths (log-odds, centred on 0): P(a beats b) = 1 / (1 + exp(s_b - s_a)); "
        f"intervals over {count(ranking.n_resamples)} resamples (seed {ranking.seed})."
    ]
    if not ranking.connected:
        notes.append("Some systems were never compared with the others, even through third systems.")
    return Section("ranking", "Ranking", tuple(notes), (table, matrix))


def facets_section(
    facets: Sequence[FacetSummary],
    omitted: int,
    level: float,
    *,
    named: bool,
    pairwise: PairwiseResult | None = None,
) -> Section:
    """Each facet: how often it was scored, its mean weight, how it stood to the verdicts, and each
    system's mean score on it."""
    tables = []
    if pairwise is not None:
        rows = tuple(_decision_row(facet) for facet in facets)
        columns = (
            "Facet",
            "Judgments",
            "Mean weight",
            "Verdicts",
            "Agreed",
            "Decided",
            "Decided %",
            "Decided for",
        )
        note = (
            "Verdicts: those with a winner the facets explain (the overall scores are their weighted "
            "aggregate). Agreed: the facet alone puts the winner first. Decided: it agreed, and without "
            "it the winner would not win alone."
        )
        tables.append(Table(columns, rows, note=note, numeric=(*numeric_columns(1, 6), False)))
    means = tuple(
        (facet.name, system, *mean_cells(mean)) for facet in facets for system, mean in facet.means.items()
    )
    tables.append(
        Table(
            ("Facet", "System" if named else "Position", "Mean", ci_label(level), "SD", "n"),
            means,
            title="Mean score per facet and system",
            numeric=numeric_columns(2, 4),
        )
    )
    notes = []
    if omitted:
        notes.append(f"{plural(omitted, 'other facet')}, met less often, not listed.")
    if pairwise is not None and pairwise.unexplained:
        notes.append(
            f"{plural(pairwise.unexplained, 'verdict')} with a winner are not computed from the facets "
            "(an overall call): no facet is counted as deciding them."
        )
    return Section("facets", "Facets", tuple(notes), tuple(tables))


def _decision_row(facet: FacetSummary) -> tuple[str, ...]:
    d = facet.decisions
    weight = percent(facet.mean_weight) if facet.mean_weight is not None else DASH
    if d is None:
        return (facet.name, count(facet.judgments), weight, DASH, DASH, DASH, DASH, DASH)
    split = ", ".join(f"{name}: {count(n)}" for name, n in d.decided_for.items())
    return (
        facet.name,
        count(facet.judgments),
        weight,
        count(d.verdicts),
        count(d.agreed),
        count(d.decided),
        percent(d.decided_rate),
        split or DASH,
    )


def pointwise_sections(pointwise: PointwiseResult, level: float) -> list[Section]:
    """Each system's mean score over its single outputs, and its mean on each facet."""
    named = pointwise.systems_named
    rows = tuple(
        (s.name, count(s.score.n), count(s.failed), *mean_cells(s.score)[:3]) for s in pointwise.systems
    )
    table = Table(
        ("System" if named else "Position", "Scored", "Failed", "Mean score", ci_label(level), "SD"),
        rows,
        note="Student's t intervals. Failed: outputs whose judgments failed, in no mean's n.",
        numeric=numeric_columns(1, 5),
    )
    sections = [Section("scores", "Mean scores of single outputs", (), (table,))]
    if pointwise.facets:
        section = facets_section(pointwise.facets, pointwise.facets_omitted, level, named=named)
        sections.append(Section("facet-means", "Facets of single outputs", section.notes, section.tables))
    return sections
