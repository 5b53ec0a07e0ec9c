"""A run's result as humans would give it: prediction-powered win rates and means from a few labels.

Counted beside the judge-only result, as judgments stream past: the labelled comparisons are kept
(human outcome, judge's outcome), the rest counted by the judge's outcome alone, so memory grows
with the labels, not with the run. Every comparison of the run is in the population: a failed or
abstained judgment predicts a tie (half a win each way), which the labels correct as they do any
other prediction. Pointwise, a labelled output the judge did not score predicts the judge's mean.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from faceteval.core import (
    HumanEstimate,
    HumanLabelled,
    Judgment,
    LabelledEstimate,
    Strength,
    VerdictAgreement,
)
from faceteval.datasets import HumanLabel
from faceteval.errors import ConfigError
from faceteval.results._options import DEFAULT_RESULT_OPTIONS, ResultOptions

UNDECIDED = 0.5
"""The outcome a failed or abstained judgment predicts: a tie, half a win each way."""
OVERALL = "overall"
"""The human score a pointwise estimate prefers, when the labels give several aspects."""


def outcome(winner: int | None, side: int) -> float:
    """What ``winner`` (1-based; 0 a tie; None no verdict) means for the candidate at ``side``.

    Examples:
        >>> outcome(1, 1), outcome(2, 1), outcome(0, 2), outcome(None, 2)
        (1.0, 0.0, 0.5, 0.5)
    """
    if winner is None or winner == 0:
        return UNDECIDED
    return 1.0 if winner == side else 0.0


@dataclass(slots=True)
class _Side:
    """One system's (or position's) comparisons: labelled ones as (human, judge) outcomes, the others
    counted by the judge's outcome."""

    labelled: list[tuple[float, float | None]] = field(default_factory=list)
    unlabelled: Counter[float] = field(default_factory=Counter)
    missing: int = 0
    """Unlabelled items without a prediction (pointwise: the judge gave no score)."""

    def add(self, predicted: float | None, human: float | None) -> None:
        if human is not None:
            self.labelled.append((human, predicted))
        elif predicted is None:
            self.missing += 1
        else:
            self.unlabelled[predicted] += 1

    def estimates(
        self, level: float, bounds: tuple[float, float], fill: float | None
    ) -> tuple[LabelledEstimate, LabelledEstimate]:
        """The prediction-powered and the human-only estimates; a missing prediction is ``fill``."""
        from faceteval.metrics import human_mean, prediction_powered_mean

        humans = [human for human, _ in self.labelled]
        usable = [(h, p if p is not None else fill) for h, p in self.labelled]
        known = [(h, p) for h, p in usable if p is not None]
        rest = [value for value, count in sorted(self.unlabelled.items()) for _ in range(count)]
        if fill is not None:
            rest += [fill] * self.missing
        ppi = prediction_powered_mean(
            [h for h, _ in known], [p for _, p in known], rest, level=level, bounds=bounds
        )
        alone = human_mean(humans, level=level, bounds=bounds)
        return _model(ppi), _model(alone)


def _model(estimate: object) -> LabelledEstimate:
    from faceteval.metrics import Estimate

    assert isinstance(estimate, Estimate)
    return LabelledEstimate(
        method=estimate.method,
        value=estimate.value,
        ci=estimate.ci,
        labels=estimate.labels,
        unlabelled=estimate.unlabelled,
    )


@dataclass(slots=True)
class HumanTally:
    """Counts a run's judgments against the human labels of its instances (or of a labels file).

    ``labels`` (by id, from `faceteval.datasets.read_human_labels`) take the place of the instances'
    own ``label`` and ``scores``; a label chosen by the judge's doubt (not a random sample) is set
    aside.
    """

    labels: Mapping[str, HumanLabel] | None = None
    systems: dict[str, _Side] = field(default_factory=dict)
    positions: dict[str, _Side] = field(default_factory=dict)
    scored: dict[str, _Side] = field(default_factory=dict)
    verdicts: list[tuple[int, int | None]] = field(default_factory=list)
    """(human label, judge verdict) of each labelled pair judged ok."""
    used: int = 0
    set_aside: int = 0
    unusable: int = 0
    aspect: str | None = None
    judge_scores: list[float] = field(default_factory=list)
    pairs: list[tuple[str, str, float, float]] = field(default_factory=list)
    """Labelled comparisons of two candidates: (system a, system b, a's human outcome, a's judged)."""
    unlabelled_pairs: Counter[tuple[str, str, float]] = field(default_factory=Counter)
    votes: list[Mapping[str, Any]] = field(default_factory=list)
    """Each used label's votes by annotator (a label, or scores), when the labels carry them."""

    @property
    def labelled(self) -> bool:
        """Whether any label was met."""
        return bool(self.used or self.set_aside or self.unusable)

    def _label(self, id_: str, label: int | None, scores: Mapping[str, float] | None) -> HumanLabel | None:
        if self.labels is not None:
            found = self.labels.get(id_)
            if found is not None and not found.random:
                self.set_aside += 1
                return None
            return found
        if label is None and not scores:
            return None
        return HumanLabel(id_, label, scores)

    def add_pair(
        self,
        judgment: Judgment,
        systems: Sequence[str],
        label: int | None,
        outcomes: Sequence[tuple[int, int, int]],
    ) -> None:
        """Count a judgment of candidates by ``systems`` (``outcomes``: its comparisons, none when it
        failed or abstained) with the instance's own ``label``."""
        human = self._label(judgment.id, label, None)
        first: float | None = None
        if human is not None:
            if len(systems) == 2 and human.label is not None and human.label <= 2:
                first = outcome(human.label, 1)
                self.used += 1
                self._votes(human)
                if judgment.status == "ok":
                    self.verdicts.append((human.label, judgment.verdict))
            else:
                self.unusable += 1
        settled = {(i, j): UNDECIDED if o == 0 else float(o > 0) for i, j, o in outcomes}
        for i in range(len(systems)):
            for j in range(i + 1, len(systems)):
                predicted = settled.get((i, j), UNDECIDED)
                truth = first if len(systems) == 2 else None
                if truth is not None:
                    self.pairs.append((systems[i], systems[j], truth, predicted))
                else:
                    self.unlabelled_pairs[(systems[i], systems[j], predicted)] += 1
                self._side(self.systems, systems[i]).add(predicted, truth)
                self._side(self.systems, systems[j]).add(1 - predicted, None if truth is None else 1 - truth)
                self._side(self.positions, str(i + 1)).add(predicted, truth)
                self._side(self.positions, str(j + 1)).add(
                    1 - predicted, None if truth is None else 1 - truth
                )

    def add_single(self, judgment: Judgment, system: str, scores: Mapping[str, float] | None) -> None:
        """Count a judgment of one output by ``system``, with the instance's own human ``scores``."""
        predicted = judgment.scores[0] if judgment.status == "ok" and judgment.scores else None
        if predicted is not None:
            self.judge_scores.append(predicted)
        human = self._label(judgment.id, None, scores)
        value = None
        if human is not None:
            value = self._aspect_of(human.scores)
            if value is None:
                self.unusable += 1
            else:
                self.used += 1
                self._votes(human)
        self._side(self.scored, system).add(predicted, value)

    def _votes(self, human: HumanLabel) -> None:
        if human.votes:
            self.votes.append(human.votes)

    def _aspect_of(self, scores: Mapping[str, float] | None) -> float | None:
        if not scores:
            return None
        if self.aspect is None:
            self.aspect = OVERALL if OVERALL in scores else (next(iter(scores)) if len(scores) == 1 else None)
            if self.aspect is None:
                return None
        return scores.get(self.aspect)

    @staticmethod
    def _side(sides: dict[str, _Side], name: str) -> _Side:
        if name not in sides:
            sides[name] = _Side()
        return sides[name]

    def result(
        self,
        level: float,
        judge_values: Mapping[str, Mapping[str, float | None]],
        options: ResultOptions = DEFAULT_RESULT_OPTIONS,
    ) -> HumanLabelled:
        """The estimates, beside ``judge_values`` (``systems``/``positions``/``scored`` -> name -> the
        judge-only value); with 3 or more systems, their prediction-powered Bradley-Terry strengths."""
        from faceteval.metrics import cohen_kappa, ppi_available

        made = HumanLabelled(
            labels=self.used, set_aside=self.set_aside, unusable=self.unusable, aspect=self.aspect
        )
        if not self.used:
            return made.model_copy(update={"note": "no usable human label: nothing to estimate from"})
        if not ppi_available():
            return made.model_copy(
                update={"note": "prediction-powered estimates need ppi-python: pip install 'faceteval[ppi]'"}
            )
        rates, unbounded = (0.0, 1.0), (-math.inf, math.inf)
        fill = sum(self.judge_scores) / len(self.judge_scores) if self.judge_scores else None

        def estimates(sides: dict[str, _Side], kind: str, bounds: tuple[float, float]) -> list[HumanEstimate]:
            rows = []
            for name, side in sides.items():
                if not side.labelled:
                    continue
                ppi, alone = side.estimates(level, bounds, fill if kind == "scored" else UNDECIDED)
                rows.append(
                    HumanEstimate(name=name, judge=judge_values.get(kind, {}).get(name), ppi=ppi, human=alone)
                )
            return sorted(
                rows, key=lambda row: (-(row.ppi.value if row.ppi.value is not None else -math.inf), row.name)
            )

        humans = [h for h, _ in self.verdicts]
        judged = [v for _, v in self.verdicts]
        annotators, alpha = self._annotator_agreement()
        return made.model_copy(
            update={
                "annotators": annotators,
                "annotator_alpha": alpha,
                "systems": estimates(self.systems, "systems", rates)
                + estimates(self.scored, "scored", unbounded),
                "positions": estimates(self.positions, "positions", rates),
                "agreement": _agreement(humans, judged),
                "kappa": cohen_kappa(judged, humans) if humans else None,
                "ranking": self._ranking(options),
            }
        )

    def _annotator_agreement(self) -> tuple[int, float | None]:
        """How many annotators voted, and Krippendorff's alpha among them (nominal on labels,
        interval on the estimated aspect's scores)."""
        from faceteval.metrics import krippendorff_alpha

        coders = sorted({name for votes in self.votes for name in votes})
        if len(coders) < 2:
            return len(coders), None
        pointwise = self.aspect is not None
        table = [[self._vote(votes.get(coder), pointwise) for votes in self.votes] for coder in coders]
        return len(coders), krippendorff_alpha(table, "interval" if pointwise else "nominal")

    def _vote(self, vote: Any, pointwise: bool) -> float | None:
        if pointwise:
            value = vote.get(self.aspect) if isinstance(vote, Mapping) else vote
        else:
            value = vote.get("label") if isinstance(vote, Mapping) else vote
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return None
        return float(value)

    def _ranking(self, options: ResultOptions) -> list[Strength]:
        from faceteval.results._bradley_terry import prediction_powered_strengths

        names = sorted({name for a, b, _, _ in self.pairs for name in (a, b)} | {
            name for a, b, _ in self.unlabelled_pairs for name in (a, b)
        })  # fmt: skip
        index = {name: k for k, name in enumerate(names)}
        ranked = prediction_powered_strengths(
            names,
            [(index[a], index[b], h, j) for a, b, h, j in self.pairs],
            Counter({(index[a], index[b], o): n for (a, b, o), n in self.unlabelled_pairs.items()}),
            penalty=options.penalty,
            n_resamples=options.n_resamples,
            level=options.level,
            seed=options.seed,
        )
        return ranked or []


def _agreement(humans: Sequence[int], judged: Sequence[int | None]) -> list[VerdictAgreement]:
    """TPR and TNR of each verdict met, humans' or the judge's."""
    rows = []
    for verdict in sorted({*humans, *(v for v in judged if v is not None)}):
        positives = [j for h, j in zip(humans, judged, strict=True) if h == verdict]
        negatives = [j for h, j in zip(humans, judged, strict=True) if h != verdict]
        rows.append(
            VerdictAgreement(
                verdict=verdict,
                tpr=sum(j == verdict for j in positives) / len(positives) if positives else None,
                tnr=sum(j != verdict for j in negatives) / len(negatives) if negatives else None,
                humans=len(positives),
            )
        )
    return rows


def check_labels(labels: object) -> Mapping[str, HumanLabel] | None:
    """``labels`` as a mapping of id -> `HumanLabel`, checked.

    Raises:
        ConfigError: Not such a mapping.
    """
    if labels is None:
        return None
    if not isinstance(labels, Mapping) or not all(isinstance(v, HumanLabel) for v in labels.values()):
        raise ConfigError("human labels are a mapping of id -> faceteval.datasets.HumanLabel")
    return labels
