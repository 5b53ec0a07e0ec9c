"""``judge``'s result as humans would give it: the prediction-powered and human-only estimates."""

from __future__ import annotations

from rich.console import Console

from faceteval._cli._console import escape, table_of
from faceteval._util.numbers import NO_SPREAD, flat
from faceteval._util.text import plural
from faceteval.core import HumanEstimate, HumanLabelled, LabelledEstimate

VERDICT_NAMES = {0: "tie", 1: "1st", 2: "2nd"}


def show_human(human: HumanLabelled, console: Console, *, level: float, rates: bool) -> None:
    """The estimates per system and position (``rates``: win rates in percent; else mean scores),
    then judge-vs-human agreement and what was left out."""
    used = f"{plural(human.labels, 'human label')}"
    if human.note is not None:
        console.print(f"[yellow]As humans would judge it ({used}): {escape(human.note)}[/]")
        return
    what = "win %" if rates else f"mean {escape(human.aspect or 'score')}"
    ties = ", ties ½" if rates else ""
    table = table_of(
        f"As humans would judge it, from {used} (prediction-powered, PPI++{ties}), with {100 * level:g}% CIs",
        ["system", f"judge {what}", "prediction-powered", "humans only", "labels"],
    )
    for row in human.systems:
        table.add_row(
            escape(row.name),
            _value(row.judge, rates),
            _estimate(row.ppi, rates),
            _estimate(row.human, rates),
            f"{row.ppi.labels:,}",
        )
    console.print(table)
    if rates and human.positions and [p.name for p in human.positions] != [s.name for s in human.systems]:
        console.print("By position, prediction-powered: " + ", ".join(_position(p) for p in human.positions))
    if human.ranking:
        ranked = ", ".join(
            f"{s.rank}. {escape(s.system)} {s.strength:+.2f}"
            + (f" [{s.ci[0]:+.2f}, {s.ci[1]:+.2f}]" if s.ci is not None else "")
            for s in human.ranking
        )
        console.print(f"Bradley-Terry strengths as humans would give them ({100 * level:g}% CIs): {ranked}")
    if human.agreement:
        each = ", ".join(
            f"{VERDICT_NAMES.get(a.verdict, a.verdict)} TPR {_value(a.tpr, True)} TNR {_value(a.tnr, True)}"
            for a in human.agreement
        )
        kappa = "n/a" if human.kappa is None else f"{human.kappa:.2f}"
        console.print(f"Judge vs humans on the labelled items: Cohen's kappa {kappa}; {each}")
    if human.annotators > 1:
        alpha = "n/a" if human.annotator_alpha is None else f"{human.annotator_alpha:.2f}"
        console.print(f"Between the {human.annotators} annotators: Krippendorff's alpha {alpha}")
    if human.set_aside:
        console.print(
            f"[yellow]{plural(human.set_aside, 'label')} chosen where the judge was least sure set aside:[/] "
            "not a random sample, they would bias the estimates"
        )
    if human.unusable:
        console.print(
            f"{plural(human.unusable, 'label')} of instances of 3+ candidates (or without the aspect) unused"
        )


def _position(row: HumanEstimate) -> str:
    return f"{escape(row.name)} {_estimate(row.ppi, True)}"


def _value(value: float | None, rates: bool) -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:.1f}%" if rates else f"{value:.2f}"


def _estimate(estimate: LabelledEstimate, rates: bool) -> str:
    if estimate.value is None:
        return "n/a: too few labels" if estimate.labels < 2 else "n/a: all labelled"
    if estimate.ci is None:
        return _value(estimate.value, rates)
    low, high = estimate.ci
    if flat(estimate.ci):
        return escape(
            f"{_value(estimate.value, rates)} [{NO_SPREAD}: {plural(estimate.labels, 'label')} alike]"
        )
    if rates:
        return f"{100 * estimate.value:.1f} [{100 * low:.1f}-{100 * high:.1f}]"
    return f"{estimate.value:.2f} [{low:.2f}, {high:.2f}]"
