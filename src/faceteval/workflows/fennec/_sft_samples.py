"""Fennec judgments and corrections turned into SFT samples, set by set, repeats and swaps accounted for."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from faceteval._util.numbers import fmt
from faceteval.core import FacetScore, Instance, Judgment
from faceteval.datasets.internal import changed_since, why_missing
from faceteval.errors import FacetevalError
from faceteval.methods.fennec import response_labels
from faceteval.prompts import render
from faceteval.workflows.fennec._judged import either, per_criterion_methods
from faceteval.workflows.fennec._sft_model import (
    SFT_SETS,
    Chat,
    Correction,
    Repeats,
    Sample,
    SftData,
    SftSet,
    SftStats,
    criterion_shown,
    preference,
    swap_labels,
)


@dataclass(frozen=True, slots=True)
class _View:
    """One presentation order of a judgment: 0-based original indices as shown, and its facets."""

    order: tuple[int, ...]
    facets: Sequence[FacetScore]


class SampleBuilder:
    """Collects samples set by set, leaving out repeats, and counts what it leaves out."""

    def __init__(self, *, augment: bool) -> None:
        self.augment = augment
        self.sets: dict[SftSet, list[Sample]] = {name: [] for name in SFT_SETS}
        self.repeats: dict[SftSet, Repeats] = {name: Repeats() for name in SFT_SETS}
        self.counts: Counter[str] = Counter()
        self.not_corrected: Counter[str] = Counter()

    def add(self, name: SftSet, sample: Sample) -> None:
        """Keep ``sample`` unless its set has it (for criteria and guidelines: has its prompt)."""
        key = sample.prompt if name in ("criteria", "score") else sample.messages
        if self.repeats[name].first(key):
            self.sets[name].append(sample)

    def judgment(
        self,
        judgment: Judgment,
        instances: Mapping[str, Instance],
        *,
        criteria_given: bool,
        single: bool | None,
    ) -> None:
        """Criteria, guideline and judge samples of one judgment."""
        if judgment.method not in (methods := per_criterion_methods()):
            raise FacetevalError(
                f"judgment {judgment.id!r} was made by {judgment.method!r}, not {either(methods)}"
            )
        self.counts["judgments"] += 1
        if judgment.status != "ok":
            self.counts["failed"] += 1
            return
        instance = instances.get(judgment.id)
        if instance is None:
            raise FacetevalError(
                f"judgment {judgment.id!r} has no instance: {why_missing(instances, judgment.id)}"
            )
        if (changed := changed_since(instance, judgment)) is not None:
            raise FacetevalError(f"judgment {judgment.id!r}: {changed}")
        if criteria_given or instance.criteria:
            self.counts["predefined"] += 1
        elif judgment.facets:
            self.add("criteria", _criteria_sample(instance.query, judgment.facets))
        for facet in judgment.facets:
            if facet.guideline:
                self.add("score", _guideline_sample(instance.query, facet))
        views = _views(judgment, instance)
        if _is_single(judgment, instance, single):
            self.counts["single"] += 1
            self._singles(instance, views)
        else:
            self._pairwise(instance, views)

    def _singles(self, instance: Instance, views: list[_View]) -> None:
        for view in views:
            for facet in view.facets:
                for m, text in enumerate(instance.candidates):
                    sample = _single_sample(instance, facet, m, text)
                    if sample is None:
                        self.counts["incomplete"] += 1
                    else:
                        self.add("judge", sample)

    def _pairwise(self, instance: Instance, views: list[_View]) -> None:
        for j in range(len(views[0].facets)):
            facets = [view.facets[j] for view in views]
            if len(views) > 1 and len({preference(f.scores) for f in facets}) > 1:
                self.counts["inconsistent"] += len(views)
                continue
            for view, facet in zip(views, facets, strict=True):
                sample = _pairwise_sample(instance, facet, view.order)
                if sample is None:
                    self.counts["incomplete"] += 1
                    continue
                self.add("judge", sample)
                if self.augment and len(views) == 1:
                    swapped = _pairwise_sample(instance, facet, view.order[::-1], relabel=True)
                    if swapped is not None:
                        self.add("judge", swapped)

    def correction(self, correction: Correction) -> None:
        """The correction sample of one corrections line, when it holds a correction."""
        self.counts["corrections"] += 1
        if correction.status != "corrected" or not correction.correction:
            self.not_corrected[correction.status] += 1
            return
        judgments = [
            {"criterion": criterion, "score": fmt(score), "explanation": explanation}
            for criterion, score, explanation in correction.judgments
        ]
        chat = _chat(
            "fennec/correction",
            correction.correction,
            query=correction.query,
            response=correction.original,
            judgments=judgments,
        )
        self.add("correction", Sample(chat))

    def data(self) -> SftData:
        """The sets collected so far and their statistics."""
        sets = {name: tuple(self.sets[name]) for name in SFT_SETS}
        stats = SftStats(
            samples={name: len(sets[name]) for name in SFT_SETS},
            duplicates={name: self.repeats[name].count for name in SFT_SETS},
            augmented=sum(s.augmented for s in sets["judge"]),
            inconsistent=self.counts["inconsistent"],
            incomplete=self.counts["incomplete"],
            judgments=self.counts["judgments"],
            failed=self.counts["failed"],
            predefined=self.counts["predefined"],
            single=self.counts["single"],
            corrections=self.counts["corrections"],
            not_corrected=dict(sorted(self.not_corrected.items())),
            augment=self.augment,
        )
        return SftData(sets=sets, stats=stats)


def _views(judgment: Judgment, instance: Instance) -> list[_View]:
    """Each order a judgment was made in; without orders, the instance's own order."""
    if judgment.orders:
        return [_View(tuple(i - 1 for i in r.order), r.facets) for r in judgment.orders]
    return [_View(tuple(range(instance.n_candidates)), judgment.facets)]


def _is_single(judgment: Judgment, instance: Instance, single: bool | None) -> bool:
    if instance.n_candidates == 1:
        return True
    if single is not None:
        return single
    return all(facet.explanation is None for facet in judgment.facets)


def _shown(facet: FacetScore) -> str:
    """The criterion as the prompts show it: ``name: description`` (`Criterion.describe`)."""
    return criterion_shown(facet.name, facet.description)


def _chat(template: str, reply: str, **variables: Any) -> Chat:
    """The rendered prompt ``template``, then ``reply`` as the assistant's message."""
    prompt = tuple((m.role, m.content) for m in render(template, **variables))
    return (*prompt, ("assistant", reply))


def _criteria_sample(query: str, facets: Sequence[FacetScore]) -> Sample:
    reply = "\n".join(f"{k}. {_shown(facet)}" for k, facet in enumerate(facets, start=1))
    return Sample(_chat("fennec/criteria", reply, query=query, count=len(facets)))


def _guideline_sample(query: str, facet: FacetScore) -> Sample:
    return Sample(_chat("fennec/guideline", facet.guideline or "", query=query, criterion=_shown(facet)))


def _single_sample(instance: Instance, facet: FacetScore, m: int, text: str) -> Sample | None:
    shown = _shown_results(facet, [m])
    if shown is None or not facet.guideline:
        return None
    ((score, explanation),) = shown
    reply = f"Response Score: {fmt(score)}\nExplanation: {explanation}"
    chat = _chat(
        "fennec/single",
        reply,
        query=instance.query,
        criterion=_shown(facet),
        guideline=facet.guideline,
        response=text,
        reference=instance.reference,
    )
    return Sample(chat)


def _pairwise_sample(
    instance: Instance, facet: FacetScore, order: Sequence[int], *, relabel: bool = False
) -> Sample | None:
    """The pairwise sample of ``facet`` with the candidates shown in ``order`` (0-based).

    With ``relabel`` the texts were written for the reverse of ``order``: their labels are exchanged.
    """
    shown = _shown_results(facet, order)
    if shown is None or not facet.guideline or not facet.explanation:
        return None
    n = len(order)
    labels = response_labels(n)
    parts = [
        f"{label} Score: {fmt(score)}\nExplanation: {swap_labels(text, n) if relabel else text}"
        for label, (score, text) in zip(labels, shown, strict=True)
    ]
    comparison = swap_labels(facet.explanation, n) if relabel else facet.explanation
    parts.append(f"Comparison: {comparison}")
    chat = _chat(
        "fennec/pairwise",
        "\n".join(parts),
        query=instance.query,
        criterion=_shown(facet),
        guideline=facet.guideline,
        candidates=[instance.candidates[i] for i in order],
        labels=labels,
        letters=[label.rsplit(" ", 1)[-1] for label in labels],
        reference=instance.reference,
    )
    return Sample(chat, augmented=relabel)


def _shown_results(facet: FacetScore, order: Sequence[int]) -> list[tuple[float, str]] | None:
    """``(score, explanation)`` of each candidate in ``order``; None when one is missing or empty."""
    explanations = facet.explanations or []
    shown = []
    for i in order:
        score = facet.scores[i] if i < len(facet.scores) else None
        text = explanations[i] if i < len(explanations) else None
        if score is None or not text:
            return None
        shown.append((score, text))
    return shown
