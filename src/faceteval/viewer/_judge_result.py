"""A judge run's result (`faceteval.results.JudgeResult`) as its page shows it: each table's rows, their
numbers written out with their intervals and denominators, for ``_result.html``.

Per system and per candidate position: wins, ties and losses, the win rates (ties counted half, and
without ties) with their intervals; the Bradley-Terry strengths of 3 or more systems and how each
fared against each; swap consistency; the facets and the verdicts they decided; single outputs'
mean scores; the failures by kind, over every judgment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from faceteval._util.text import plural
from faceteval.core import HumanEstimate, HumanLabelled, LabelledEstimate, Strength
from faceteval.results import (
    FacetSummary,
    JudgeResult,
    Mean,
    PairwiseResult,
    PointwiseResult,
    Proportion,
    Standing,
)

__all__ = ["Cell", "FacetRow", "RankRow", "ResultView", "StandingRow", "result_view"]

FAILURE_KINDS = {
    "parse_error": "parse errors: a reply could not be read",
    "error": "errors: a provider's (after retries), or another",
    "unjudgeable": "unjudgeable: the method cannot judge the instance as it is",
    "invalid_input": "invalid input lines",
    "planned": "planned: a dry run's",
}
"""What each kind of failure is (`faceteval.core.internal.failure_kind`)."""


@dataclass(frozen=True, slots=True)
class Cell:
    """A number as shown: its value, its interval (``[low, high]``) and what it is over (``n = 40``)."""

    value: str
    ci: str = ""
    over: str = ""


@dataclass(frozen=True, slots=True)
class StandingRow:
    """A system's (or a position's) comparisons."""

    name: str
    wins: str
    ties: str
    losses: str
    failed: str
    win_rate: Cell
    without_ties: Cell
    score: Cell | None


@dataclass(frozen=True, slots=True)
class FacetRow:
    """A facet: how often it was scored, its weight, the verdicts it decided, each system's mean."""

    name: str
    judged: str
    weight: str
    decided: str
    """``151 of 386 (39.1%)``: the verdicts it decided, of those it could (— for single outputs)."""
    agreed: str
    decided_for: str
    means: list[Cell]
    """Each system's mean score on it, in the order of the table's systems."""


@dataclass(frozen=True, slots=True)
class RankRow:
    """A system's place in a Bradley-Terry ranking."""

    rank: str
    system: str
    strength: Cell


@dataclass(frozen=True, slots=True)
class Pairwise:
    """The tables of the comparisons (instances of two candidates or more)."""

    judgments: str
    named: bool
    systems: list[StandingRow]
    positions: list[StandingRow]
    ranking: list[RankRow] = field(default_factory=list)
    connected: bool = True
    matrix: list[tuple[str, list[Cell | None]]] = field(default_factory=list)
    """Each system's row: its win rate against each system, in the order of ``matrix_columns``."""
    matrix_columns: list[str] = field(default_factory=list)
    consistency: Cell | None = None
    facets: list[FacetRow] = field(default_factory=list)
    facet_systems: list[str] = field(default_factory=list)
    facets_omitted: int = 0
    explained: int = 0
    unexplained: int = 0


@dataclass(frozen=True, slots=True)
class Pointwise:
    """The tables of single outputs."""

    judgments: str
    named: bool
    systems: list[tuple[str, Cell, str]]
    """Each system's name, mean score and failed outputs."""
    facets: list[FacetRow] = field(default_factory=list)
    facet_systems: list[str] = field(default_factory=list)
    facets_omitted: int = 0


@dataclass(frozen=True, slots=True)
class HumanRow:
    """A system's (or a position's) value as the judge gave it, and as humans would."""

    name: str
    judge: str
    ppi: Cell
    human: Cell


@dataclass(frozen=True, slots=True)
class Human:
    """The result as humans would give it (`faceteval.core.HumanLabelled`)."""

    labels: str
    rates: bool
    """Win rates (pairwise); else mean scores of ``aspect``."""
    aspect: str
    systems: list[HumanRow]
    positions: list[HumanRow]
    ranking: list[RankRow]
    agreement: list[tuple[str, str, str, str]]
    """Each verdict: its name, how many labels gave it, TPR and TNR."""
    kappa: str
    annotators: str | None
    """Krippendorff's alpha among the annotators, with how many, when two or more voted."""
    set_aside: str | None
    unusable: str | None
    note: str | None


@dataclass(frozen=True, slots=True)
class ResultView:
    """A judge run's result, for ``_result.html``."""

    level: str
    """The intervals' confidence level (``95%``)."""
    judgments: str
    ok: str
    """Ok judgments."""
    abstained: str | None
    """Abstained judgments (below a calibrated threshold), when there are any."""
    ok_rate: Cell
    failures: list[tuple[str, str, str, str]]
    """Each kind: its name, what it is, its count, and its share of every judgment."""
    pairwise: Pairwise | None
    pointwise: Pointwise | None
    human: Human | None = None


def result_view(value: Any) -> ResultView | None:
    """The view of a stored result (a `JudgeResult` as JSON); None when it is not one (a record
    written by hand, or by another version): its page then shows it as it is.

    Examples:
        >>> from faceteval.core import Instance, Judgment
        >>> from faceteval.results import compute_result
        >>> pair = Instance(id="1", query="q", candidates=["x", "y"], systems=["A", "B"])
        >>> result = compute_result([Judgment(id="1", method="m", status="ok", verdict=2)], [pair])
        >>> view = result_view(result.model_dump(mode="json"))
        >>> [(row.name, row.wins, row.win_rate.value) for row in view.pairwise.systems]
        [('B', '1', '100.0%'), ('A', '0', '0.0%')]
        >>> result_view({"systems": {"A": 0.7}}) is None
        True
    """
    if not isinstance(value, Mapping):
        return None
    try:
        result = JudgeResult.model_validate(value)
    except ValidationError:
        return None
    judged = result.judgments
    return ResultView(
        level=f"{100 * result.level:g}%",
        judgments=f"{judged:,}",
        ok=f"{result.statuses.get('ok', 0):,}",
        abstained=f"{n:,}" if (n := result.statuses.get("abstained", 0)) else None,
        ok_rate=rate(result.ok_rate),
        failures=[
            (kind, FAILURE_KINDS.get(kind, kind), f"{n:,}", _share(n, judged))
            for kind, n in result.failures.items()
        ],
        pairwise=None if result.pairwise is None else _pairwise(result.pairwise),
        pointwise=None if result.pointwise is None else _pointwise(result.pointwise),
        human=None if result.human is None else _human(result.human, rates=result.pairwise is not None),
    )


def rate(proportion: Proportion) -> Cell:
    """A rate in percent, with its interval and denominator.

    Examples:
        >>> rate(Proportion(value=0.625, hits=2.5, n=4, ci=(0.306, 0.863)))
        Cell(value='62.5%', ci='[30.6, 86.3]', over='n = 4')
        >>> rate(Proportion(value=None, hits=0, n=0)).value
        '—'
    """
    over = f"n = {proportion.n:,}"
    if proportion.value is None:
        return Cell("—", "", over)
    ci = "" if proportion.ci is None else f"[{100 * proportion.ci[0]:.1f}, {100 * proportion.ci[1]:.1f}]"
    return Cell(f"{100 * proportion.value:.1f}%", ci, over)


def mean(value: Mean) -> Cell:
    """A mean score, with its interval and the number of scores averaged.

    Examples:
        >>> mean(Mean(value=7.125, n=8, sd=0.5, ci=(6.71, 7.54)))
        Cell(value='7.12', ci='[6.71, 7.54]', over='n = 8')
    """
    over = f"n = {value.n:,}"
    if value.value is None:
        return Cell("—", "", over)
    ci = "" if value.ci is None else f"[{value.ci[0]:.2f}, {value.ci[1]:.2f}]"
    return Cell(f"{value.value:.2f}", ci, over)


def _share(n: int, of: int) -> str:
    return f"{100 * n / of:.1f}% of {of:,}" if of else "—"


def _standing(standing: Standing) -> StandingRow:
    return StandingRow(
        name=standing.name,
        wins=f"{standing.wins:,}",
        ties=f"{standing.ties:,}",
        losses=f"{standing.losses:,}",
        failed=f"{standing.failed:,}",
        win_rate=rate(standing.win_rate),
        without_ties=rate(standing.win_rate_without_ties),
        score=None if standing.score is None else mean(standing.score),
    )


def _pairwise(pairwise: PairwiseResult) -> Pairwise:
    names = [s.name for s in pairwise.systems]
    facets, facet_systems = _facets(pairwise.facets, named=pairwise.systems_named)
    consistency = pairwise.consistency
    return Pairwise(
        judgments=f"{pairwise.judgments:,}",
        named=pairwise.systems_named,
        systems=[_standing(s) for s in pairwise.systems],
        positions=[_standing(p) for p in pairwise.positions],
        ranking=[] if pairwise.ranking is None else _ranking(pairwise.ranking.strengths),
        connected=pairwise.ranking is None or pairwise.ranking.connected,
        matrix=_matrix(pairwise, names),
        matrix_columns=names if pairwise.matrix else [],
        consistency=None if consistency is None else rate(consistency.rate),
        facets=facets,
        facet_systems=facet_systems,
        facets_omitted=pairwise.facets_omitted,
        explained=pairwise.explained,
        unexplained=pairwise.unexplained,
    )


def _ranking(strengths: Sequence[Strength]) -> list[RankRow]:
    rows = []
    for s in strengths:
        ci = "" if s.ci is None else f"[{s.ci[0]:+.2f}, {s.ci[1]:+.2f}]"
        strength = Cell(f"{s.strength:+.2f}", ci, f"{s.comparisons:,} comparisons")
        rows.append(RankRow(str(s.rank), s.system, strength))
    return rows


def _matrix(pairwise: PairwiseResult, names: Sequence[str]) -> list[tuple[str, list[Cell | None]]]:
    """Each system's win rate against each other one (the row's over the column's)."""
    met = {(m.system, m.opponent): m for m in pairwise.matrix}
    rows: list[tuple[str, list[Cell | None]]] = []
    for name in names if pairwise.matrix else []:
        cells: list[Cell | None] = []
        for other in names:
            m = met.get((name, other))
            if m is None:
                cells.append(None)
                continue
            shown = rate(m.win_rate)
            cells.append(Cell(shown.value, shown.ci, f"{m.wins:,}/{m.ties:,}/{m.losses:,} won/tied/lost"))
        rows.append((name, cells))
    return rows


def _facets(facets: Sequence[FacetSummary], *, named: bool) -> tuple[list[FacetRow], list[str]]:
    """The facets' rows, and the systems whose means they give (in that order)."""
    systems = sorted({name for facet in facets for name in facet.means})
    return [_facet_row(facet, systems, named=named) for facet in facets], systems


def _facet_row(facet: FacetSummary, systems: Sequence[str], *, named: bool) -> FacetRow:
    d = facet.decisions
    decided, agreed, decided_for = "—", "—", ""
    if d is not None:
        share = "" if d.decided_rate is None else f" ({100 * d.decided_rate:.1f}%)"
        decided, agreed = f"{d.decided:,} of {d.verdicts:,}{share}", f"{d.agreed:,}"
        label = "{}" if named else "position {}"
        decided_for = ", ".join(f"{label.format(k)}: {n:,}" for k, n in d.decided_for.items())
    return FacetRow(
        name=facet.name,
        judged=f"{facet.judgments:,}",
        weight="—" if facet.mean_weight is None else f"{facet.mean_weight:.3g}",
        decided=decided,
        agreed=agreed,
        decided_for=decided_for,
        means=[mean(facet.means[s]) if s in facet.means else Cell("—") for s in systems],
    )


def _pointwise(pointwise: PointwiseResult) -> Pointwise:
    facets, facet_systems = _facets(pointwise.facets, named=pointwise.systems_named)
    return Pointwise(
        judgments=f"{pointwise.judgments:,}",
        named=pointwise.systems_named,
        systems=[(s.name, mean(s.score), f"{s.failed:,}") for s in pointwise.systems],
        facets=facets,
        facet_systems=facet_systems,
        facets_omitted=pointwise.facets_omitted,
    )


VERDICTS = {0: "tie", 1: "first candidate", 2: "second candidate"}


def _human(human: HumanLabelled, *, rates: bool) -> Human:
    def row(estimate: HumanEstimate) -> HumanRow:
        judge = "—" if estimate.judge is None else _number(estimate.judge, rates)
        ppi, alone = _labelled(estimate.ppi, rates), _labelled(estimate.human, rates)
        return HumanRow(estimate.name, judge, ppi, alone)

    def percent(value: float | None) -> str:
        return "—" if value is None else f"{100 * value:.1f}%"

    alpha = "—" if human.annotator_alpha is None else f"{human.annotator_alpha:.2f}"
    return Human(
        labels=f"{human.labels:,}",
        rates=rates,
        aspect=human.aspect or "score",
        systems=[row(r) for r in human.systems],
        positions=[row(r) for r in human.positions] if rates else [],
        ranking=_ranking(human.ranking),
        agreement=[
            (VERDICTS.get(a.verdict, str(a.verdict)), f"{a.humans:,}", percent(a.tpr), percent(a.tnr))
            for a in human.agreement
        ],
        kappa="—" if human.kappa is None else f"{human.kappa:.2f}",
        annotators=f"{alpha} among {human.annotators} annotators" if human.annotators > 1 else None,
        set_aside=(
            f"{plural(human.set_aside, 'label')} chosen where the judge was least sure "
            f"{'was' if human.set_aside == 1 else 'were'} set aside: not a random sample."
            if human.set_aside
            else None
        ),
        unusable=(
            f"{plural(human.unusable, 'label')} of instances of three or more candidates (or without "
            "the aspect) unused."
            if human.unusable
            else None
        ),
        note=human.note,
    )


def _number(value: float, rates: bool) -> str:
    return f"{100 * value:.1f}%" if rates else f"{value:.2f}"


def _labelled(estimate: LabelledEstimate, rates: bool) -> Cell:
    over = f"{estimate.labels:,} labels"
    if estimate.unlabelled:
        over += f" + {estimate.unlabelled:,} judged"
    if estimate.value is None:
        return Cell("—", "", over)
    ci = ""
    if estimate.ci is not None:
        low, high = estimate.ci
        ci = f"[{100 * low:.1f}, {100 * high:.1f}]" if rates else f"[{low:.2f}, {high:.2f}]"
    return Cell(_number(estimate.value, rates), ci, over)
