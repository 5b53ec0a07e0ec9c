"""``judge``'s result: its flags (``--systems``, ``--fail-under``), its table, and the thresholds' exit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from faceteval._cli._console import Console, err_console, escape, table_of
from faceteval._cli._human import show_human
from faceteval._util.numbers import flat
from faceteval._util.text import plural
from faceteval.errors import ConfigError
from faceteval.results import (
    FacetSummary,
    GroupResult,
    JudgeResult,
    Mean,
    PairwiseResult,
    PointwiseResult,
    Proportion,
    Threshold,
)
from faceteval.results.internal import METRICS, did_you_mean, result_systems

FAIL_UNDER_EXIT = 3
"""The exit status of a run whose result is below a ``--fail-under`` threshold."""
SHOWN_FACETS = 3
"""Facets the table names: those that decided most verdicts (pairs), or met most often (single)."""
SHOWN_GROUPS = 10
"""Groups ``--group-by`` prints (those with most judgments); the rest are counted, all are in the result."""


def _systems(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    names = tuple(name.strip() for name in value.split(","))
    if len(names) < 1 or any(not name for name in names):
        raise click.BadParameter(f"{value!r}: give one name per candidate, separated by commas (A,B)")
    if len(set(names)) < len(names):
        raise click.BadParameter(f"{value!r} names a system twice")
    return names


def _thresholds(ctx: click.Context, param: click.Parameter, values: Sequence[str]) -> tuple[Threshold, ...]:
    try:
        return tuple(Threshold.parse(value) for value in values)
    except ConfigError as exc:
        raise click.BadParameter(str(exc)) from None


systems_option = click.option(
    "--systems",
    callback=_systems,
    metavar="A,B",
    help="Name the system behind each candidate (in candidate order) for every instance that names none "
    "(an instance's own 'systems' field is kept); the result is then per system.",
)

fail_under_option = click.option(
    "--fail-under",
    "fail_under",
    multiple=True,
    callback=_thresholds,
    metavar="METRIC[:SYSTEM]=VALUE",
    help="Exit with status 3 when the result is below VALUE (or undefined): "
    + ", ".join(f"{name} ({m.meaning})" for name, m in METRICS.items())
    + ". Repeatable. E.g. win_rate:B=0.5.",
)


def check_before_run(flags: dict[str, Any]) -> None:
    """Usage errors a run would meet only at its end: thresholds of a dry run, or of systems not in
    ``--systems`` when every instance's systems come from it."""
    thresholds: tuple[Threshold, ...] = flags["fail_under"]
    if thresholds and flags["dry_run"]:
        raise click.UsageError("--fail-under checks a run's result, and a dry run has none")
    named = flags["systems"]
    for threshold in thresholds:
        if named is not None and threshold.system is not None and threshold.system not in named:
            hint = did_you_mean(threshold.system, named)
            raise click.UsageError(f"--fail-under {threshold}: --systems names no {threshold.system!r}{hint}")


def below_thresholds(thresholds: Sequence[Threshold], result: JudgeResult) -> bool:
    """Say each threshold the result is below, and return whether one is (the command then exits
    with `FAIL_UNDER_EXIT`).

    Raises:
        click.UsageError: A threshold names a system the run does not have (with the closest one).
    """
    systems = result_systems(result)
    for threshold in thresholds:
        if (problem := threshold.unknown_system(systems)) is not None:
            raise click.UsageError(f"--fail-under {problem}")
    failed = [t for t in thresholds if not t.passes(result)]
    for threshold in failed:
        value = threshold.observed(result)
        seen = "undefined (nothing to measure it on)" if value is None else f"{value:.4g}"
        err_console.print(f"[bold red]below threshold:[/] {escape(str(threshold))}: the run's is {seen}")
    return bool(failed)


def show_result(result: JudgeResult, console: Console = err_console) -> None:
    """The result, compactly: per system (and position), the ranking, consistency, decisive facets."""
    console.print(_headline(result))
    if result.pairwise is not None:
        _show_pairwise(result.pairwise, console, level=result.level)
    if result.pointwise is not None:
        _show_pointwise(result.pointwise, console, level=result.level)
    if result.human is not None:
        show_human(result.human, console, level=result.level, rates=result.pointwise is None)
    _show_groups(result, console)


def _show_groups(result: JudgeResult, console: Console) -> None:
    """Per group (most judgments first, `SHOWN_GROUPS` of them): each system's wins, win rate with its
    interval and mean score (pairs), or its mean score (single outputs)."""
    if result.group_by is None or not result.groups:
        return
    shown, more = result.groups[:SHOWN_GROUPS], len(result.groups) - SHOWN_GROUPS
    name = escape(result.group_by)
    title = f"By {name} ({plural(len(result.groups), 'group')}), with {100 * result.level:g}% CIs"
    column = f"{name} (n)"
    if any(group.pairwise is not None for group in shown):
        columns = [column, "system", "won/tied/lost", "win % (ties ½)", "mean score"]
        table = table_of(f"{title}: pairwise", columns)
        for group in shown:
            if group.pairwise is not None:
                named = group.pairwise.systems_named
                for k, s in enumerate(group.pairwise.systems):
                    cells = [_group_cell(group, name) if k == 0 else "", _label(s.name, named)]
                    cells += [f"{s.wins:,}/{s.ties:,}/{s.losses:,}", _with_ci(s.win_rate), _mean(s.score)]
                    table.add_row(*cells)
        console.print(table)
    if any(group.pointwise is not None for group in shown):
        table = table_of(f"{title}: single outputs", [column, "system", "scored", "mean score"])
        for group in shown:
            if group.pointwise is not None:
                named = group.pointwise.systems_named
                for k, m in enumerate(group.pointwise.systems):
                    cells = [_group_cell(group, name) if k == 0 else "", _label(m.name, named)]
                    table.add_row(*cells, f"{m.score.n:,}", _mean(m.score))
        console.print(table)
    if more > 0:
        console.print(
            f"and {plural(more, 'more group')} with fewer judgments (every group is in the result: "
            "the run record's summary.result.groups)"
        )


def _group_cell(group: GroupResult, name: str) -> str:
    """A group's value and its judgments: ``math (12)``, or ``math (12, 2 failed)``."""
    value = escape(group.value) if group.value is not None else f"(no {name})"
    failed = group.judgments - group.statuses.get("ok", 0) - group.statuses.get("abstained", 0)
    return f"{value} ({group.judgments:,}" + (f", {failed:,} failed)" if failed else ")")


FAILURE_KINDS = {
    "parse_error": "parse error",
    "error": "error",
    "unjudgeable": "unjudgeable instance",
    "invalid_input": "invalid input line",
    "planned": "planned judgment",
}
"""How the headline names one failure of each kind (`faceteval.core.internal.failure_kind`)."""


def _headline(result: JudgeResult) -> str:
    failed = ", ".join(plural(n, FAILURE_KINDS.get(kind, kind)) for kind, n in result.failures.items())
    ok = result.statuses.get("ok", 0)
    share = f" ({_rate(result.ok_rate)})" if result.judgments else ""
    tail = f"; failed: {failed} (in no win rate or mean)" if failed else ""
    return f"[bold]Result[/] of {plural(result.judgments, 'judgment')}: {ok:,} ok{share}{tail}"


def _rate(rate: Proportion) -> str:
    return "n/a" if rate.value is None else f"{100 * rate.value:.1f}%"


def _with_ci(rate: Proportion, unit: str = "") -> str:
    """``75.0 [59.8-85.8]``: a rate in percent, with its interval."""
    if rate.value is None:
        return "n/a"
    ci = f" [{100 * rate.ci[0]:.1f}-{100 * rate.ci[1]:.1f}]" if rate.ci is not None else ""
    return f"{100 * rate.value:.1f}{unit}{ci}"


def _mean(mean: Mean | None, *, ci: bool = True) -> str:
    """``7.00 ± 0.56``: a mean, with its (symmetric) t interval's half-width."""
    if mean is None or mean.value is None:
        return "n/a"
    interval = f" ± {(mean.ci[1] - mean.ci[0]) / 2:.2f}" if ci and mean.ci is not None else ""
    if interval and flat(mean.ci):  # not ± 0.00: no interval, as every score was the same
        interval = " (all alike)"
    return f"{mean.value:.2f}{interval}"


def _show_pairwise(pairwise: PairwiseResult, console: Console, *, level: float) -> None:
    percent = f"{100 * level:g}%"
    failures, ties = any(s.failed for s in pairwise.systems), any(s.ties for s in pairwise.systems)
    columns = ["system" if pairwise.systems_named else "position", "won/tied/lost"] + ["failed"] * failures
    columns += ["win % (ties ½)", "win % (no ties)"] if ties else ["win %"]
    table = table_of(f"Pairwise comparisons, with {percent} CIs", [*columns, "mean score"])
    for s in pairwise.systems:
        cells = [escape(s.name), f"{s.wins:,}/{s.ties:,}/{s.losses:,}"] + [f"{s.failed:,}"] * failures
        cells += [_with_ci(s.win_rate)] + [_with_ci(s.win_rate_without_ties)] * ties
        table.add_row(*cells, _mean(s.score))
    console.print(table)
    if pairwise.systems_named:
        shown = ", ".join(f"{escape(p.name)} {_with_ci(p.win_rate, '%')}" for p in pairwise.positions)
        console.print(f"By position (win %, ties ½): {shown}")
    if pairwise.ranking is not None:
        ranked = ", ".join(
            f"{s.rank}. {escape(s.system)} {s.strength:+.2f}"
            + (f" [{s.ci[0]:+.2f}, {s.ci[1]:+.2f}]" if s.ci is not None else "")
            for s in pairwise.ranking.strengths
        )
        apart = (
            "" if pairwise.ranking.connected else " (some systems were never compared, even through others)"
        )
        console.print(f"Bradley-Terry strengths ({percent} CIs): {ranked}{apart}")
    if pairwise.consistency is not None:
        c = pairwise.consistency
        console.print(f"Swap consistency: {c.agreed:,} of {c.rate.n:,} agreed, {_with_ci(c.rate, '%')}")
    _show_facets(pairwise, console)


def _show_facets(pairwise: PairwiseResult, console: Console) -> None:
    """The facets that decided most verdicts (then those that agreed with most)."""

    def weight(facet: FacetSummary) -> tuple[int, int, int]:
        d = facet.decisions
        return (d.decided, d.agreed, facet.judgments) if d is not None else (0, 0, facet.judgments)

    named = pairwise.systems_named
    for facet in sorted(pairwise.facets, key=weight, reverse=True)[:SHOWN_FACETS]:
        means = f"means {_facet_means(facet, named=named, ci=False)}"
        d = facet.decisions
        if d is None or not d.verdicts:
            console.print(f"Facet {escape(facet.name)}: {means}")
            continue
        split = ", ".join(f"{_label(name, named)}: {n:,}" for name, n in d.decided_for.items())
        won = f" (for {split})" if split else ""
        console.print(
            f"Facet {escape(facet.name)}: decided {d.decided:,} of {plural(d.verdicts, 'verdict')}{won}, "
            f"agreed with {d.agreed:,}; {means}"
        )
    if pairwise.unexplained and pairwise.facets:
        console.print(
            f"{plural(pairwise.unexplained, 'verdict')} {'is' if pairwise.unexplained == 1 else 'are'} not "
            "computed from the facets (an overall call): "
            "no facet is counted as deciding them"
        )


def _label(name: str, named: bool) -> str:
    """A system's name as printed: escaped, and a position said to be one."""
    return escape(name) if named else f"position {escape(name)}"


def _facet_means(facet: FacetSummary, *, named: bool, ci: bool) -> str:
    return ", ".join(f"{_label(name, named)} {_mean(mean, ci=ci)}" for name, mean in facet.means.items())


def _show_pointwise(pointwise: PointwiseResult, console: Console, *, level: float) -> None:
    columns = ["system" if pointwise.systems_named else "position", "scored", "failed", "mean score"]
    table = table_of(f"Single outputs: mean scores with {100 * level:g}% CIs", columns)
    for s in pointwise.systems:
        table.add_row(escape(s.name), f"{s.score.n:,}", f"{s.failed:,}", _mean(s.score))
    console.print(table)
    for facet in pointwise.facets[:SHOWN_FACETS]:
        means = _facet_means(facet, named=pointwise.systems_named, ci=True)
        console.print(f"Facet {escape(facet.name)}: means {means}")
    if pointwise.facets_omitted or len(pointwise.facets) > SHOWN_FACETS:
        more = pointwise.facets_omitted + max(0, len(pointwise.facets) - SHOWN_FACETS)
        console.print(f"and {more:,} more facets")
