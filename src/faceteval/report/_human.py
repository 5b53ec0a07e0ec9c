"""The report's section on a run's result as humans would give it (`faceteval.results.HumanLabelled`)."""

from __future__ import annotations

from faceteval._util.numbers import NO_SPREAD, flat
from faceteval._util.text import plural
from faceteval.core import HumanEstimate, HumanLabelled, LabelledEstimate
from faceteval.report._format import DASH, count, decimal, percent
from faceteval.report._model import Section, Table, numeric_columns

VERDICTS = {0: "Tie", 1: "First candidate", 2: "Second candidate"}


def human_section(human: HumanLabelled, level: float, *, rates: bool) -> Section:
    """The prediction-powered and human-only estimates per system and position, and how the judge
    agrees with the labels (``rates``: win rates; else mean scores)."""
    notes = [
        f"From {plural(human.labels, 'human label')}: prediction-powered inference (PPI++, through "
        "ppi_py) corrects the judge's estimate by how its verdicts differ from the labels where both "
        "exist, valid whatever the judge's biases when the labelled items are a random sample of those "
        "judged. A failed or abstained judgment predicts a tie, which the labels correct too. The "
        "human-only estimate uses the labels alone."
    ]
    if human.annotators > 1:
        alpha = DASH if human.annotator_alpha is None else decimal(human.annotator_alpha, 2)
        notes.append(
            f"Between the {human.annotators} annotators whose votes the labels carry, Krippendorff's "
            f"alpha is {alpha} ({'interval, on the scores' if human.aspect else 'nominal, on the labels'})."
        )
    if human.set_aside:
        notes.append(
            f"{plural(human.set_aside, 'label')} chosen where the judge was least sure "
            f"{'was' if human.set_aside == 1 else 'were'} set aside: not a random sample."
        )
    if human.unusable:
        notes.append(f"{plural(human.unusable, 'label')} of instances of three or more candidates unused.")
    if human.note is not None:
        notes.append(human.note + ".")
        return Section("human", "As humans would judge it", tuple(notes))
    tables = [_estimates(human.systems, "System", level, rates=rates)]
    if rates and human.positions:
        tables.append(_estimates(human.positions, "Position", level, rates=True))
    if human.ranking:
        tables.append(
            Table(
                ("Rank", "System", "Strength", f"{100 * level:g}% CI", "Comparisons"),
                tuple(
                    (
                        str(s.rank),
                        s.system,
                        f"{s.strength:+.2f}",
                        DASH if s.ci is None else f"[{s.ci[0]:+.2f}, {s.ci[1]:+.2f}]",
                        count(s.comparisons),
                    )
                    for s in human.ranking
                ),
                title="Bradley-Terry strengths as humans would give them",
                note="The PPI estimate (the strengths on the judge's unlabelled verdicts, corrected by the "
                "labels), with the prediction-powered bootstrap's percentile intervals (ppi_py.ppboot).",
                numeric=(True, False, True, True, True),
            )
        )
    if human.agreement:
        rows = tuple(
            (VERDICTS.get(a.verdict, str(a.verdict)), count(a.humans), percent(a.tpr), percent(a.tnr))
            for a in human.agreement
        )
        kappa = DASH if human.kappa is None else decimal(human.kappa, 2)
        tables.append(
            Table(
                ("Verdict", "Humans gave it", "TPR", "TNR"),
                rows,
                title=f"Judge against humans on the labelled items (Cohen's kappa {kappa})",
                note="TPR: of the items humans gave the verdict, the share the judge gave it too; TNR: of "
                "those humans did not, the share the judge did not either.",
                numeric=numeric_columns(1, 3),
            )
        )
    return Section("human", "As humans would judge it", tuple(notes), tuple(tables))


def _estimates(rows: list[HumanEstimate], first: str, level: float, *, rates: bool) -> Table:
    ci = f"{100 * level:g}% CI"
    shown = tuple(
        (
            row.name,
            _value(row.judge, rates),
            *_cells(row.ppi, rates),
            *_cells(row.human, rates),
            count(row.ppi.labels),
            count(row.ppi.unlabelled),
        )
        for row in rows
    )
    kind = "win rate (ties ½)" if rates else "mean score"
    columns = (
        first,
        f"Judge {kind}",
        "Prediction-powered",
        ci,
        "Humans only",
        f"{ci} (humans)",
        "Labels",
        "Unlabelled",
    )
    return Table(columns, shown, numeric=numeric_columns(1, 7))


def _value(value: float | None, rates: bool) -> str:
    return percent(value) if rates else decimal(value, 2)


def _cells(estimate: LabelledEstimate, rates: bool) -> tuple[str, str]:
    if estimate.ci is None:
        return _value(estimate.value, rates), DASH
    low, high = estimate.ci
    if flat(estimate.ci):
        return _value(estimate.value, rates), f"[{NO_SPREAD}: {count(estimate.labels)} labels alike]"
    return _value(estimate.value, rates), f"[{_value(low, rates)}, {_value(high, rates)}]"
