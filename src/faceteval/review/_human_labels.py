"""The project's human labels: each item's, as `review export --labels` writes them, and how many more
the judge's results need.

An item's label is its annotators' latest preferences (a comparison) or overall scores (an output).
A comparison's ``label`` is its most common preference, a tie (0) when two or more are the most
common; an output's ``scores`` are the mean over its annotators of their overall score (``overall``)
and of each criterion they kept and scored. ``votes`` are each annotator's own, and ``sampling`` how
the item was queued (`_queue.sampling_of`); ``consensus`` is `_preferences.consensus`.

`label_needs` says how many labels a task's prediction-powered interval needs for the project's
target width (from the current estimate once two labels of a random sample exist, else the worst
case; `faceteval.metrics.labels_for_width`), and how many calibration needs at the least for its
target agreement and delta (`faceteval.metrics.labels_for_guarantee`). Both count only labels of
items in a random sample of the run (queued in ``input`` or ``random`` order, or in no queue): items
queued by the judge's doubt are not one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from faceteval.datasets import HumanLabel
from faceteval.errors import ConfigError
from faceteval.metrics import Estimate, labels_for_guarantee, labels_for_width, prediction_powered_mean
from faceteval.review._model import OVERALL, TIE, Item
from faceteval.review._preferences import consensus
from faceteval.review._queue import sampling_of
from faceteval.review._settings import ProjectSettings
from faceteval.review._store import ReviewStore

__all__ = ["OVERALL_ASPECT", "LabelNeeds", "human_labels", "label_needs"]

OVERALL_ASPECT = "overall"
"""The name of the overall score among a label's ``scores``."""


def human_labels(store: ReviewStore) -> list[HumanLabel]:
    """The label of every item with at least one annotator's preference or overall score, in queue order."""
    queued = store.queued()
    preferences: dict[str, dict[str, int]] = {}
    for (item_id, who), choice in sorted(store.preferred().items()):
        preferences.setdefault(item_id, {})[who] = choice
    scores: dict[str, dict[str, dict[str, float]]] = {}  # item -> annotator -> criterion -> score
    for (item_id, criterion, who), score in sorted(store.scores().items()):
        scores.setdefault(item_id, {}).setdefault(who, {})[criterion] = score
    kept: dict[tuple[str, str], set[str]] = {}
    out = []
    for item in store.items():
        sampling = sampling_of(queued.get(item.id))
        if item.compares:
            if votes := preferences.get(item.id):
                label = consensus(list(votes.values()))
                out.append(HumanLabel(item.id, label, None, tuple(votes), votes, sampling))
            continue
        own: dict[str, dict[str, float]] = {}
        for who, given in scores.get(item.id, {}).items():
            if OVERALL not in given:
                continue
            if (item.task, who) not in kept:
                kept[(item.task, who)] = {c.name for c in store.final_criteria(item.task, who)}
            criteria = {c: s for c, s in given.items() if c != OVERALL and c in kept[(item.task, who)]}
            own[who] = {OVERALL_ASPECT: given[OVERALL], **criteria}
        if own:
            out.append(HumanLabel(item.id, None, _means(own.values()), tuple(own), own, sampling))
    return out


def _means(votes: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each aspect over the ``votes`` (``{aspect: score}`` each) that give it."""
    by_aspect: dict[str, list[float]] = {}
    for vote in votes:
        for aspect, score in vote.items():
            by_aspect.setdefault(aspect, []).append(score)
    return {aspect: math.fsum(values) / len(values) for aspect, values in by_aspect.items()}


@dataclass(frozen=True, slots=True)
class LabelNeeds:
    """How many labels a task has, and how many more its judge's results need."""

    task: str
    what: str
    """What the interval is of: Response 1's win rate, or the mean overall score as a share of the scale."""
    labelled: int
    """Items with a label."""
    labels: int
    """Labels given (an item labelled by two annotators counts twice)."""
    sample: int
    """Labelled items of a random sample (those the interval and calibration count)."""
    chosen: int
    """Labelled items queued by the judge's doubt (``uncertainty``, ``disagreement``): not counted."""
    estimate: Estimate | None
    """The current prediction-powered estimate (None before two labels, or without ``ppi``)."""
    target_width: float
    for_width: int
    """Labels of a random sample the interval needs for ``target_width``, in all."""
    target_agreement: float
    delta: float
    for_guarantee: int
    """Labels of a random sample calibration needs at the least."""

    @property
    def more_for_width(self) -> int:
        return max(0, self.for_width - self.sample)

    @property
    def more_for_guarantee(self) -> int:
        return max(0, self.for_guarantee - self.sample)

    def sentences(self) -> list[str]:
        """What the numbers say, plainly."""
        half = f"±{self.target_width / 2:g}"
        now = ""
        if self.estimate is not None and self.estimate.value is not None and self.estimate.ci is not None:
            low, high = self.estimate.ci
            now = f" (now {self.estimate.value:.2f}, interval {low:.2f} to {high:.2f})"
        width = (
            f"about {self.more_for_width:,} more labels for a {half} interval on {self.what}{now}"
            if self.more_for_width
            else f"enough labels for a {half} interval on {self.what}{now}"
        )
        calibration = (
            f"calibration to {self.target_agreement:.0%} agreement at delta {self.delta:g} needs at least "
            f"{self.for_guarantee:,} labels: "
            + (f"{self.more_for_guarantee:,} more" if self.more_for_guarantee else "it has them")
        )
        out = [
            f"{self.labels:,} labels on {self.labelled:,} items; {width}.",
            calibration[0].upper() + calibration[1:] + ".",
        ]
        if self.chosen:
            out.append(
                f"{self.chosen:,} labelled items were queued by the judge's doubt: not a random sample, "
                "they count in neither (import with --order random for labels that do)."
            )
        return out

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy."""
        return {
            "what": self.what,
            "labelled": self.labelled,
            "labels": self.labels,
            "random_sample": self.sample,
            "chosen_by_doubt": self.chosen,
            "estimate": None if self.estimate is None else self.estimate.as_dict(),
            "target_width": self.target_width,
            "labels_for_width": self.for_width,
            "more_for_width": self.more_for_width,
            "target_agreement": self.target_agreement,
            "delta": self.delta,
            "labels_for_guarantee": self.for_guarantee,
            "more_for_guarantee": self.more_for_guarantee,
            "summary": self.sentences(),
        }


def label_needs(
    store: ReviewStore, task: str, labels: Mapping[str, HumanLabel], settings: ProjectSettings
) -> LabelNeeds:
    """The labels ``task`` has among ``labels`` (`human_labels`, by id) and how many more it needs
    for ``settings``' targets (see the module)."""
    items = store.items(task)
    compares = any(item.compares for item in items)
    predicted = _predictions(store, task, items, compares)
    mine = [labels[item.id] for item in items if item.id in labels]
    sample = [label for label in mine if label.random]
    pairs = [(_value(label, store, task), predicted[label.id]) for label in sample if label.id in predicted]
    sampled = {label.id for label in sample}
    unlabelled = [value for item_id, value in predicted.items() if item_id not in sampled]
    try:
        estimate = prediction_powered_mean([h for h, _ in pairs], [p for _, p in pairs], unlabelled)
    except ConfigError:  # without the ppi extra: the worst case
        estimate = None
    return LabelNeeds(
        task=task,
        what="Response 1's win rate" if compares else "the mean overall score (as a share of the scale)",
        labelled=len(mine),
        labels=sum(len(label.votes) for label in mine),
        sample=len(sample),
        chosen=len(mine) - len(sample),
        estimate=estimate,
        target_width=settings.target_width,
        for_width=labels_for_width(settings.target_width, current=estimate),
        target_agreement=settings.target_agreement,
        delta=settings.delta,
        for_guarantee=labels_for_guarantee(settings.target_agreement, settings.delta),
    )


def _win(choice: int) -> float:
    """Response 1's share of a win in a preference or verdict: 1 a win, a half a tie, 0 a loss."""
    return 1.0 if choice == 1 else 0.5 if choice == TIE else 0.0


def _predictions(store: ReviewStore, task: str, items: Sequence[Item], compares: bool) -> dict[str, float]:
    """The judge's value of each item of the task it gave one (a verdict, an overall score)."""
    overall = {d.item_id: d for d in store.drafts() if d.criterion == OVERALL}
    low, high = store.task_scale(task)
    out: dict[str, float] = {}
    for item in items:
        draft = overall.get(item.id)
        if draft is None or item.compares != compares:
            continue
        if compares and draft.verdict is not None:
            out[item.id] = _win(draft.verdict)
        elif not compares and draft.score is not None:
            out[item.id] = _share(draft.score, low, high)
    return out


def _value(label: HumanLabel, store: ReviewStore, task: str) -> float:
    """The human value of a label: Response 1's mean win over its votes, or the mean overall score
    as a share of the task's scale."""
    if label.label is not None:
        return math.fsum(_win(vote) for vote in label.votes.values()) / len(label.votes)
    low, high = store.task_scale(task)
    return _share((label.scores or {})[OVERALL_ASPECT], low, high)


def _share(score: float, low: float, high: float) -> float:
    """``score`` as a share of the scale from ``low`` to ``high`` (clipped to it)."""
    return min(1.0, max(0.0, (score - low) / (high - low))) if high > low else 0.0
