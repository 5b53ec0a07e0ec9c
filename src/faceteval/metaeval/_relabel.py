"""A target's human labels replaced by those of a labels file (``meta-eval --labels``), by id."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from faceteval._util.text import first_few, plural
from faceteval.core import Instance
from faceteval.datasets import HumanLabel
from faceteval.errors import FacetevalError
from faceteval.metaeval._slim import SlimInstances
from faceteval.metaeval._target import Target


def relabelled(target: Target, labels: Mapping[str, HumanLabel], *, source: str = "the labels") -> Target:
    """``target`` with each instance's label (pairwise) or scores (pointwise) replaced by those
    ``labels`` give its id; the instances they do not name keep their own.

    Raises:
        FacetevalError: A label names no instance of ``target``, or is of the other kind (scores for
            a pairwise target, a label for a pointwise one), or points past an instance's candidates.
    """
    known = {instance.id for instance in target.instances}
    if unknown := [i for i in labels if i not in known]:
        shown = first_few([repr(i) for i in unknown], limit=5)
        raise FacetevalError(
            f"{source}: {plural(len(unknown), 'id')} {'is' if len(unknown) == 1 else 'are'} not among "
            f"{target.name}'s instances: {shown}"
        )
    for label in labels.values():
        _check(target, label, source)
    instances: Any = (_relabel(instance, labels, source) for instance in target.instances)
    kept = SlimInstances.of(instances) if isinstance(target.instances, SlimInstances) else tuple(instances)
    whole = target.whole
    return replace(
        target,
        instances=kept,
        whole=None if whole is None else lambda: _relabel_each(whole(), labels, source),
    )


def _check(target: Target, label: HumanLabel, source: str) -> None:
    if target.kind == "pairwise" and label.label is None:
        raise FacetevalError(f"{source}: {label.id!r} has scores; {target.name} is pairwise (a label each)")
    if target.kind == "pointwise" and label.scores is None:
        raise FacetevalError(f"{source}: {label.id!r} has a label; {target.name} is pointwise (scores each)")


def _relabel(instance: Instance, labels: Mapping[str, HumanLabel], source: str) -> Instance:
    label = labels.get(instance.id)
    if label is None:
        return instance
    if label.label is not None:
        if label.label > instance.n_candidates:
            raise FacetevalError(
                f"{source}: {instance.id!r} is labelled {label.label}, but it has {instance.n_candidates} "
                "candidates"
            )
        return instance.model_copy(update={"label": label.label})
    return instance.model_copy(update={"scores": dict(label.scores or {})})


def _relabel_each(
    instances: Iterable[Instance], labels: Mapping[str, HumanLabel], source: str
) -> Iterator[Instance]:
    return (_relabel(instance, labels, source) for instance in instances)
