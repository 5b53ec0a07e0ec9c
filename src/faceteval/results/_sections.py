"""The two halves of a result as they are counted: over pairs and lists, and over single outputs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from faceteval.core import (
    Consistency,
    FacetDecisions,
    FacetScore,
    FacetSummary,
    Judgment,
    Matchup,
    PairwiseResult,
    PointwiseResult,
    Ranking,
    Standing,
    SystemMean,
)
from faceteval.results._options import ResultOptions
from faceteval.results._tally import FacetTally, Running, Tally, proportion
from faceteval.results._verdicts import comparisons, facet_verdicts


@dataclass(slots=True)
class Facets:
    """Every facet met, by name (case and outer spaces aside), with what each system scored on it."""

    tallies: dict[str, FacetTally] = field(default_factory=dict)

    def tally(self, facet: FacetScore) -> FacetTally:
        """The tally of ``facet``'s name (made when first met)."""
        key = facet.name.strip().casefold()
        if key not in self.tallies:
            self.tallies[key] = FacetTally(name=facet.name.strip())
        return self.tallies[key]

    def add(self, judgment: Judgment, systems: Sequence[str]) -> None:
        """Count the facet scores (and weights) of an ok judgment."""
        for facet in judgment.facets:
            tally = self.tally(facet)
            tally.judgments += 1
            if facet.weight is not None:
                tally.weight.add(facet.weight)
            for system, score in zip(systems, facet.scores, strict=False):
                if score is not None:
                    tally.score(system, score)

    def summaries(self, options: ResultOptions, *, verdicts: bool) -> tuple[list[FacetSummary], int]:
        """The facets met most often (at most ``options.max_facets``), and how many more there are."""
        ranked = sorted(self.tallies.values(), key=lambda t: (-t.judgments, t.name.casefold()))
        shown = ranked[: options.max_facets]
        return [_facet_summary(t, options, verdicts=verdicts) for t in shown], len(ranked) - len(shown)


def _facet_summary(tally: FacetTally, options: ResultOptions, *, verdicts: bool) -> FacetSummary:
    decisions = None
    if verdicts:
        decisions = FacetDecisions(
            verdicts=tally.verdicts,
            agreed=tally.agreed,
            decided=tally.decided,
            decided_rate=tally.decided / tally.verdicts if tally.verdicts else None,
            decided_for=dict(sorted(tally.decided_for.items())),
        )
    return FacetSummary(
        name=tally.name,
        judgments=tally.judgments,
        mean_weight=tally.weight.mean if tally.weight.n else None,
        means={system: running.summary(options.level) for system, running in sorted(tally.means.items())},
        decisions=decisions,
    )


@dataclass(slots=True)
class Pairwise:
    """Counts over instances of two or more candidates (``headline``: a group's, without facets or a
    ranking)."""

    headline: bool = False
    judgments: int = 0
    named: bool = False
    systems: dict[str, Tally] = field(default_factory=dict)
    positions: dict[int, Tally] = field(default_factory=dict)
    scores: dict[str, Running] = field(default_factory=dict)
    matchups: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """``(a, b)`` with a before b in sorted order -> a's tally against b."""
    consistency: Counter[bool] = field(default_factory=Counter)
    facets: Facets = field(default_factory=Facets)
    explained: int = 0
    unexplained: int = 0

    def fail(self, systems: Sequence[str]) -> None:
        """Count a failed judgment of candidates by ``systems``: each loses none and wins none."""
        self.judgments += 1
        for m, system in enumerate(systems):
            self.systems.setdefault(system, Tally()).failed += len(systems) - 1
            self.positions.setdefault(m + 1, Tally()).failed += len(systems) - 1

    def add(self, judgment: Judgment, systems: Sequence[str]) -> None:
        """Count an ok judgment of candidates by ``systems``."""
        self.judgments += 1
        for m, system in enumerate(systems):
            self.systems.setdefault(system, Tally())
            self.positions.setdefault(m + 1, Tally())
        for i, j, outcome in comparisons(judgment, len(systems)):
            self._compare(systems[i], systems[j], outcome)
            self.positions[i + 1].add(outcome)
            self.positions[j + 1].add(-outcome)
        for system, score in zip(systems, judgment.scores or (), strict=False):
            self.scores.setdefault(system, Running()).add(score)
        if judgment.consistent is not None:
            self.consistency[judgment.consistent] += 1
        if not self.headline:
            self.facets.add(judgment, systems)
            self._decisions(judgment, systems)

    def _compare(self, a: str, b: str, outcome: int) -> None:
        self.systems[a].add(outcome)
        self.systems[b].add(-outcome)
        key, sign = ((a, b), 1) if a < b else ((b, a), -1)
        self.matchups.setdefault(key, Tally()).add(sign * outcome)

    def _decisions(self, judgment: Judgment, systems: Sequence[str]) -> None:
        if not judgment.verdict:
            return
        parts = facet_verdicts(judgment)
        if parts is None:
            self.unexplained += 1
            return
        self.explained += 1
        winner = systems[judgment.verdict - 1]
        for part in parts:
            tally = self.facets.tally(part.facet)
            tally.verdicts += 1
            tally.agreed += part.agreed
            if part.decided:
                tally.decided += 1
                tally.decided_for[winner] = tally.decided_for.get(winner, 0) + 1

    def result(self, options: ResultOptions) -> PairwiseResult:
        """The counts as a `PairwiseResult`."""
        level = options.level
        systems = [
            _standing(name, tally, level, self.scores.get(name)) for name, tally in self.systems.items()
        ]
        systems.sort(key=lambda s: (-(s.win_rate.value or 0.0), s.name))
        positions = [_standing(str(m), self.positions[m], level, None) for m in sorted(self.positions)]
        many = len(self.systems) >= 3
        facets, omitted = self.facets.summaries(options, verdicts=True)
        return PairwiseResult(
            judgments=self.judgments,
            systems_named=self.named,
            systems=systems,
            positions=positions,
            matrix=_matrix(self.matchups, level) if many else [],
            ranking=_ranking(self.matchups, options) if many and not self.headline else None,
            consistency=_consistency(self.consistency, level),
            facets=facets,
            facets_omitted=omitted,
            explained=self.explained,
            unexplained=self.unexplained,
        )


def _standing(name: str, tally: Tally, level: float, score: Running | None) -> Standing:
    return Standing(
        name=name,
        wins=tally.wins,
        ties=tally.ties,
        losses=tally.losses,
        failed=tally.failed,
        win_rate=tally.win_rate(level),
        win_rate_without_ties=tally.win_rate_without_ties(level),
        score=None if score is None else score.summary(level),
    )


def _matrix(matchups: Mapping[tuple[str, str], Tally], level: float) -> list[Matchup]:
    rows = []
    for (a, b), tally in sorted(matchups.items()):
        if not tally.judged:
            continue
        mirrored = Tally(wins=tally.losses, ties=tally.ties, losses=tally.wins)
        for system, opponent, side in ((a, b, tally), (b, a, mirrored)):
            rows.append(
                Matchup(
                    system=system,
                    opponent=opponent,
                    wins=side.wins,
                    ties=side.ties,
                    losses=side.losses,
                    win_rate=side.win_rate(level),
                )
            )
    return sorted(rows, key=lambda row: (row.system, row.opponent))


def _ranking(matchups: Mapping[tuple[str, str], Tally], options: ResultOptions) -> Ranking | None:
    from faceteval.results._bradley_terry import bradley_terry  # numpy and scikit-learn, for a ranking only

    return bradley_terry(
        matchups,
        penalty=options.penalty,
        n_resamples=options.n_resamples,
        level=options.level,
        seed=options.seed,
    )


def _consistency(counts: Counter[bool], level: float) -> Consistency | None:
    if not counts:
        return None
    agreed, disagreed = counts[True], counts[False]
    return Consistency(agreed=agreed, disagreed=disagreed, rate=proportion(agreed, agreed + disagreed, level))


@dataclass(slots=True)
class Pointwise:
    """Counts over instances of one candidate (``headline``: a group's, without facets)."""

    headline: bool = False
    judgments: int = 0
    named: bool = False
    scores: dict[str, Running] = field(default_factory=dict)
    failed: Counter[str] = field(default_factory=Counter)
    facets: Facets = field(default_factory=Facets)

    def fail(self, system: str) -> None:
        """Count a failed judgment of ``system``'s output."""
        self.judgments += 1
        self.scores.setdefault(system, Running())
        self.failed[system] += 1

    def add(self, judgment: Judgment, system: str) -> None:
        """Count an ok judgment of ``system``'s output."""
        self.judgments += 1
        running = self.scores.setdefault(system, Running())
        if judgment.scores:
            running.add(judgment.scores[0])
        if not self.headline:
            self.facets.add(judgment, [system])

    def result(self, options: ResultOptions) -> PointwiseResult:
        """The counts as a `PointwiseResult`."""
        systems = [
            SystemMean(name=name, score=running.summary(options.level), failed=self.failed[name])
            for name, running in self.scores.items()
        ]
        systems.sort(key=lambda s: (-(s.score.value if s.score.value is not None else float("-inf")), s.name))
        facets, omitted = self.facets.summaries(options, verdicts=False)
        return PointwiseResult(
            judgments=self.judgments,
            systems_named=self.named,
            systems=systems,
            facets=facets,
            facets_omitted=omitted,
        )
