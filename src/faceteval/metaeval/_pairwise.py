"""The pairwise numbers of a meta-evaluation: agreement, order consistency, confusion, per category
and per MT-Bench vote, read from the labelled pairs in one pass into columns."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from faceteval import metrics
from faceteval.core import Instance, Judgment
from faceteval.datasets import vote_key
from faceteval.metaeval._bias import Rater
from faceteval.metaeval._judgments import Joined

ORIGINAL, SWAPPED = [1, 2], [2, 1]
VOTE_KEYS = ("question_id", "model_a", "model_b", "turn")


def verdict(judgment: Judgment | None) -> int | None:
    return judgment.verdict if judgment is not None and judgment.status == "ok" else None


def _order_verdict(judgment: Judgment | None, order: list[int]) -> int | None:
    if judgment is None:
        return None
    for result in judgment.orders:
        if result.order == order:
            return result.verdict
    return None


def _has_both_orders(judgment: Judgment | None) -> bool:
    return judgment is not None and {tuple(o.order) for o in judgment.orders} >= {(1, 2), (2, 1)}


@dataclass(slots=True)
class _Labelled:
    """What the pairwise numbers read of the labelled instances, in one pass: columns of plain values."""

    labels: list[int] = field(default_factory=list)
    verdicts: list[int | None] = field(default_factory=list)
    categories: list[str | None] = field(default_factory=list)
    candidates: int = 2
    """The most candidates of an instance (at least two)."""
    two: list[tuple[int, int | None, int | None, bool]] = field(default_factory=list)
    """Of each two-candidate instance: its label, its verdicts in the original and swapped orders, and
    whether its judgment is a ``parse_error``."""
    both_orders: bool = False
    """Whether a two-candidate instance was judged in both orders."""
    rotated: list[bool | None] = field(default_factory=list)
    """Of each instance of three or more candidates: whether its orders agreed (None: not judged ok)."""
    rotations: bool = False
    """Whether one of those was judged in several orders."""
    votes: list[tuple[Hashable, int | None, bool, int]] | None = field(default_factory=list)
    """Of each instance, while every one names its MT-Bench comparison (`VOTE_KEYS`): its comparison,
    the judge's verdict and the human label in the order the comparison names its models, and whether
    it has a judgment; None once one does not."""

    def add(self, instance: Instance, judgment: Judgment | None) -> None:
        assert instance.label is not None
        judged = verdict(judgment)
        self.labels.append(instance.label)
        self.verdicts.append(judged)
        self.categories.append(instance.category)
        self.candidates = max(self.candidates, instance.n_candidates)
        if instance.n_candidates == 2:
            self.both_orders = self.both_orders or _has_both_orders(judgment)
            unreadable = judgment is not None and judgment.status == "parse_error"
            first, second = _order_verdict(judgment, ORIGINAL), _order_verdict(judgment, SWAPPED)
            self.two.append((instance.label, first, second, unreadable))
        elif instance.n_candidates > 2:
            self.rotations = self.rotations or (judgment is not None and len(judgment.orders) > 1)
            self.rotated.append(
                judgment.consistent if judgment is not None and judgment.status == "ok" else None
            )
        if self.votes is not None:
            if not all(key in instance.metadata for key in VOTE_KEYS):
                self.votes = None
                return
            flip = instance.metadata["model_a"] > instance.metadata["model_b"]
            label = _flip(instance.label, flip)
            assert label is not None
            self.votes.append((vote_key(instance), _flip(judged, flip), judgment is not None, label))


def pairwise(joined: Joined, ci: Rater) -> dict[str, Any]:
    """Agreement with the human labels, with the order metrics (both orders judged), rotations'
    consistency, the confusion matrix, per category and (MT-Bench) per vote."""
    labelled = _Labelled()
    for instance, judgment in joined.pairs:
        if instance.label is not None:
            labelled.add(instance, judgment)
    labels, verdicts = labelled.labels, labelled.verdicts
    out: dict[str, Any] = {"labelled": len(labels)}
    out["agreement"] = ci(metrics.agreement, verdicts, labels)
    if any(label == 0 for label in labels):
        out["agreement_without_ties"] = ci(metrics.agreement_without_ties, verdicts, labels)
    out["cohen_kappa"] = {"value": metrics.cohen_kappa(verdicts, labels)}
    # Both orders (--swap) of two candidates: the order metrics. Three or more are judged in rotations,
    # which have no "swapped order": whether their rotations agreed is measured apart.
    if labelled.both_orders:
        out.update(_order_metrics(labelled.two, ci))
        if len(labelled.two) < len(labels):
            out["order_metrics_leave_out"] = len(labels) - len(labelled.two)
    if labelled.rotations:
        out["rotation_consistency"] = ci(_agreed, labelled.rotated)
    classes = (*range(1, labelled.candidates + 1), metrics.TIE)
    out["confusion"] = metrics.confusion(verdicts, labels, classes=classes)
    if any(labelled.categories):
        out["by_category"] = {
            str(category): {"agreement": rate}
            for category, rate in _by_category(labelled.categories, verdicts, labels, ci).items()
        }
    if labels and labelled.votes is not None:
        out["votes"] = _votes(labelled.votes)
    return out


def _order_metrics(two: Sequence[tuple[int, int | None, int | None, bool]], ci: Rater) -> dict[str, Any]:
    """Agreement in each order, and consistency across the two, of two-candidate instances (each its
    label, its verdict in each order, and whether its judgment is unreadable)."""
    labels = [label for label, _, _, _ in two]
    first = [verdict for _, verdict, _, _ in two]
    second = [verdict for _, _, verdict, _ in two]
    unreadable = [unread for _, _, _, unread in two]
    return {
        "agreement_order1": ci(metrics.agreement, first, labels),
        "agreement_order2": ci(metrics.agreement, second, labels),
        "accuracy_order_avg": ci(metrics.accuracy_order_avg, first, second, labels),
        "consistency": ci(metrics.consistency, first, second),
        "consistency_without_ties": ci(metrics.consistency_without_ties, first, second, labels),
        "positional_agreement": ci(_positional_agreement, first, second, unreadable),
        "agreement_consistent": ci(metrics.agreement_consistent, first, second, labels),
        "agreement_consistent_without_ties": ci(
            metrics.agreement_consistent_without_ties, first, second, labels
        ),
    }


def _positional_agreement(
    first: Sequence[int | None], second: Sequence[int | None], unreadable: Sequence[bool]
) -> metrics.Rate:
    """LLMBar's ``equal``: the same output in both orders, two unreadable outputs counting as the same.

    Only replies that could not be read count so (a ``parse_error`` judgment with neither order's
    verdict): a call that failed, or an instance not judged, is a miss. `metrics.consistency` is
    the strict version (an unreadable order is never consistent).
    """
    rows = list(zip(first, second, unreadable, strict=True))
    hits = sum(a == b and (a is not None or unread) for a, b, unread in rows)
    missing = sum(a is None or b is None for a, b, _ in rows)
    return metrics.Rate.from_counts(hits, len(rows), missing=missing)


def _agreed(consistent: Sequence[bool | None]) -> metrics.Rate:
    """The share of instances whose orders all agreed; an instance not judged is a miss."""
    hits = sum(value is True for value in consistent)
    return metrics.Rate.from_counts(hits, len(consistent), missing=sum(value is None for value in consistent))


def _by_category(
    categories: Sequence[str | None],
    verdicts: Sequence[int | None],
    labels: Sequence[int | None],
    ci: Rater,
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[int]] = defaultdict(list)
    for index, category in enumerate(categories):
        groups[category or "(none)"].append(index)
    return {
        name: ci(metrics.agreement, [verdicts[i] for i in members], [labels[i] for i in members])
        for name, members in sorted(groups.items())
    }


def _votes(rows: Sequence[tuple[Hashable, int | None, bool, int]]) -> dict[str, Any]:
    """The MT-Bench protocol: each human vote against the judge's verdict for its comparison (each row
    a comparison, the judge's verdict, whether it judged, and the vote)."""
    judge: dict[Hashable, int | None] = {}
    votes: list[tuple[Hashable, int]] = []
    for key, judged, has_judgment, label in rows:
        if has_judgment:
            judge.setdefault(key, judged)
        votes.append((key, label))
    return {
        "with_ties": metrics.vote_agreement(judge, votes, ties=True).as_dict(),
        "without_ties": metrics.vote_agreement(judge, votes, ties=False).as_dict(),
    }


def _flip(verdict: int | None, flip: bool) -> int | None:
    return {1: 2, 2: 1}.get(verdict, verdict) if flip and verdict is not None else verdict
