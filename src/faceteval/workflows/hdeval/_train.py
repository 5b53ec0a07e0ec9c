"""Iterative alignment training (HD-Eval, Algorithm 1): decompose, evaluate, fit, prune, next layer.

Layer 1 is the tree's top-level criteria (by default the target aspects themselves, as the paper's
first layer takes the human experts' aspects). Layer 2 decomposes every layer-1 criterion (the
paper's Appendix C.2); each later layer decomposes only the ``expand`` criteria of the layer before
that the proxy aggregator found most important (attribution pruning). After the last layer the
proxy aggregator over every criterion of every layer is the finalized one.

Where the criterion scores come from is a callback, so the same loop runs on an LLM (through the
engine: cached, concurrent, resumable) or on recorded scores with no call at all.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from faceteval._util.text import plural
from faceteval.core import Criterion, Instance
from faceteval.datasets.internal import KEY_FIELDS, group_key, system_key
from faceteval.errors import FacetevalError
from faceteval.methods.hdeval import CriteriaTree, Node
from faceteval.methods.hdeval.internal import domain_of
from faceteval.workflows.hdeval._aggregators import AGGREGATORS, make_aggregator
from faceteval.workflows.hdeval._importance import importance, top_k

Matrix = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class NodeScores:
    """Criterion scores of a set of nodes on the instances, and the instances that could not be scored."""

    scores: Mapping[str, Mapping[str, float]]
    """Instance id -> node id -> score."""
    failed: Mapping[str, str] = field(default_factory=dict)
    """Instance id -> why it has no scores (``parse_error: ...``, ``error: ...``)."""


ScoreNodes = Callable[[Sequence[Node], int], NodeScores]
"""``(nodes, layer) -> their scores``: one layer's fine-grained evaluation."""
Decompose = Callable[[CriteriaTree, Sequence[str], int], CriteriaTree]
"""``(tree, node ids, child count) -> the tree with those nodes decomposed``."""


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """What to train."""

    targets: tuple[str, ...]
    """Human score aspects to predict (keys of ``Instance.scores``)."""
    layers: int = 3
    children: int = 4
    """About how many children each decomposed criterion gets."""
    expand: int = 4
    """How many criteria of a layer (after the first) are decomposed at the next: the pruning's top k."""
    aggregator: str = "mlp"
    train_frac: float = 0.5
    seed: int = 0
    importance: Literal["permutation", "shap"] = "permutation"
    group_by: str | None = None
    """The field (``query``, ``task``, ``category``...) or metadata key of the unit kept whole by the
    train/test split (a source document; ``--group-by``)."""
    system_by: str | None = None
    """The field or metadata key naming each output's system (for the system level), for outputs that
    name no ``systems`` of their own."""

    def __post_init__(self) -> None:
        if not self.targets:
            raise FacetevalError("give at least one target aspect")
        if self.layers < 1 or self.children < 1 or self.expand < 1:
            raise FacetevalError("layers, children and expand must be at least 1")
        if not 0 < self.train_frac < 1:
            raise FacetevalError(f"the training fraction must be between 0 and 1, got {self.train_frac}")
        if self.aggregator not in AGGREGATORS:
            raise FacetevalError(
                f"unknown aggregator {self.aggregator!r}; choose one of {', '.join(AGGREGATORS)}"
            )
        if self.importance not in ("permutation", "shap"):
            raise FacetevalError(f"unknown importance {self.importance!r}; choose permutation or shap")


@dataclass(slots=True)
class Layer:
    """What one iteration did."""

    layer: int
    nodes: list[str]
    importance: dict[str, float]
    """Node id -> the proxy aggregator's importance (mean over targets), for this layer's nodes."""
    selected: list[str]
    """The nodes decomposed at the next layer."""
    failed: int
    """Instances whose scores on this layer's nodes could not be read."""


@dataclass(slots=True)
class Trained:
    """The finalized criteria tree and aggregator, and the data they were fitted and tested on."""

    config: TrainConfig
    tree: CriteriaTree
    features: list[str]
    """Node ids, in the aggregator's column order."""
    aggregator: Any
    ids: list[str]
    """Instances with every score, in row order."""
    x: Matrix
    y: Matrix
    train: NDArray[np.bool_]
    """Row is in the training split (else held out)."""
    importance: Matrix
    """(targets, features): the finalized aggregator's importance on the training rows."""
    layers: list[Layer]
    failed: dict[str, str]
    """Instance id -> why it was left out (a criterion score could not be read)."""
    metadata: dict[str, dict[str, Any]]
    """Instance id -> its metadata (groups and systems for the held-out correlations), with the values of
    the config's ``group_by`` and ``system_by`` under their names where an instance field gives them."""

    @property
    def expanded(self) -> set[str]:
        """Node ids that were decomposed."""
        return {node for layer in self.layers for node in layer.selected}


def initial_tree(
    task: str,
    targets: Sequence[str],
    criteria: Sequence[Criterion] = (),
    background: str = "",
    domain: str | None = None,
) -> CriteriaTree:
    """Layer 1 = the target aspects, with the benchmark's definitions where it has them.

    With a ``domain`` (HD-Eval's: ``summarization``, ``dialogue``, ``data-to-text``), the tree's task is
    the domain's evaluation task ("text summarization"), as the decomposition prompt names it.
    """
    if (known_domain := domain_of(domain)) is not None:
        task = known_domain.task
    known = {c.name.lower(): c for c in criteria}
    top = tuple(
        Criterion(name=target, description=known[target.lower()].description)
        if target.lower() in known
        else Criterion(name=target)
        for target in targets
    )
    return CriteriaTree(task=task, background=background, criteria=top, domain=domain)


def split(instances: Sequence[Instance], train_frac: float, seed: int, group_by: str | None) -> set[str]:
    """Ids of the training split: whole groups (documents) at random, about ``train_frac`` of the rows.

    ``group_by`` names a field or metadata key (`faceteval.datasets` keys); an instance without a value
    of it is a group of its own.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for instance in instances:
        value = group_key(instance, group_by) if group_by else None
        groups[f"group:{value}" if value is not None else f"alone:{instance.id}"].append(instance.id)
    names = sorted(groups)
    random.Random(seed).shuffle(names)
    wanted = max(1, round(train_frac * len(instances)))
    chosen: set[str] = set()
    for name in names:
        if len(chosen) >= wanted:
            break
        chosen.update(groups[name])
    if len(chosen) == len(instances):
        raise FacetevalError("nothing is left to test on: lower --train-frac or give more instances")
    return chosen


def train(
    tree: CriteriaTree,
    instances: Sequence[Instance],
    config: TrainConfig,
    score_nodes: ScoreNodes,
    decompose: Decompose | None = None,
) -> Trained:
    """Algorithm 1 over ``instances`` (those with every target score); see the module docstring."""
    labelled, training = check_trainable(tree, instances, config, decomposes=decompose is not None)
    scores: dict[str, dict[str, float]] = defaultdict(dict)
    failed: dict[str, str] = {}
    layers: list[Layer] = []
    selected: list[str] = []
    for depth in range(1, config.layers + 1):
        fresh = [node for node in selected if not tree.find(node).criterion.children]
        if depth > 1 and fresh:  # criteria the tree already decomposes (a person's edits) are kept
            assert decompose is not None
            tree = decompose(tree, fresh, config.children)
        nodes = tree.layer(depth)
        if not nodes:
            break
        result = score_nodes(nodes, depth)
        unread = _collect(result, [n.id for n in nodes], labelled, scores, failed)
        features = [n.id for layer in range(1, depth + 1) for n in tree.layer(layer)]
        # The proxy aggregator of this layer; after the last layer it is the finalized one.
        data = _matrix(labelled, features, config.targets, scores, failed, training)
        aggregator = fit(config.aggregator, data.x[data.train], data.y[data.train], seed=config.seed)
        per_target = importance(
            aggregator,
            data.x[data.train],
            _shaped(data.y[data.train]),
            method=config.importance,
            seed=config.seed,
        )
        weights = per_target.mean(axis=0)
        mine = {n.id: float(weights[features.index(n.id)]) for n in nodes}
        selected = _select(nodes, mine, config, depth)
        layers.append(Layer(depth, [n.id for n in nodes], mine, selected, unread))
    layers[-1].selected = []  # the last layer is not decomposed further
    return Trained(
        config=config,
        tree=tree,
        features=features,
        aggregator=aggregator,
        ids=data.ids,
        x=data.x,
        y=data.y,
        train=data.train,
        importance=per_target,
        layers=layers,
        failed=failed,
        metadata={i.id: keyed_metadata(i, config) for i in labelled},
    )


def keyed_metadata(instance: Instance, config: TrainConfig) -> dict[str, Any]:
    """``instance``'s metadata, with its group and its system under the names of ``config.group_by`` and
    ``config.system_by`` where an instance field (or its own ``systems``) gives them, not its metadata."""
    metadata = dict(instance.metadata)
    group_by, system_by = config.group_by, config.system_by
    if group_by in KEY_FIELDS and (group := group_key(instance, group_by)) is not None:
        metadata[group_by] = group
    own = instance.systems is not None and len(instance.systems) == 1
    keyed = system_by is not None and (own or system_by in KEY_FIELDS)
    if keyed and (system := system_key(instance, system_by)) is not None:
        metadata[str(system_by)] = system
    return metadata


def check_trainable(
    tree: CriteriaTree, instances: Sequence[Instance], config: TrainConfig, *, decomposes: bool
) -> tuple[list[Instance], set[str]]:
    """What `train` checks before any call: the labelled instances and the ids of the training split.

    Raises:
        FacetevalError: Fewer than 4 instances have every target score, more than one layer without
            an LLM to decompose, a tree without criteria, a split that leaves nothing to test, or a
            target people scored the same on every training output.
    """
    labelled = [i for i in instances if i.scores and all(t in i.scores for t in config.targets)]
    if len(labelled) < 4:
        raise FacetevalError(
            f"{plural(len(labelled), 'instance')} {'has' if len(labelled) == 1 else 'have'} a human score "
            f"for every target ({', '.join(config.targets)}); "
            "at least 4 are needed"
        )
    if config.layers > 1 and not decomposes:
        raise FacetevalError("more than one layer needs an LLM to decompose criteria")
    if not tree.criteria:
        raise FacetevalError("the criteria tree has no criteria")
    training = split(labelled, config.train_frac, config.seed, config.group_by)
    _check_varied(labelled, training, config.targets)
    return labelled, training


def _check_varied(instances: Sequence[Instance], training: set[str], targets: Sequence[str]) -> None:
    """Refuse, before any call, a target whose human scores on the training split are all one value."""
    for target in targets:
        values = {float((i.scores or {})[target]) for i in instances if i.id in training}
        if len(values) == 1:
            everywhere = {float((i.scores or {})[target]) for i in instances} == values
            where = "every output" if everywhere else f"all {len(training)} training outputs"
            raise FacetevalError(
                f"people gave {where} the same {target} score ({values.pop():g}), so there is nothing to "
                "learn about how they weigh the criteria"
                + ("" if everywhere else "; change --seed or --train-frac, or give more outputs")
            )


def _select(
    nodes: Sequence[Node], weights: Mapping[str, float], config: TrainConfig, depth: int
) -> list[str]:
    if depth == 1:
        return [n.id for n in nodes]  # every human aspect is decomposed (Appendix C.2)
    return top_k([n.id for n in nodes], np.array([weights[n.id] for n in nodes]), config.expand)


def _collect(
    result: NodeScores,
    node_ids: Sequence[str],
    instances: Sequence[Instance],
    scores: dict[str, dict[str, float]],
    failed: dict[str, str],
) -> int:
    """Add the scores of ``instances`` to ``scores``; return how many could not be read on these nodes."""
    unread = 0
    for instance in instances:
        if instance.id in result.failed:
            failed.setdefault(instance.id, result.failed[instance.id])
            unread += 1
            continue
        got = result.scores.get(instance.id, {})
        missing = [n for n in node_ids if n not in got or not math.isfinite(got[n])]
        if missing:
            failed.setdefault(instance.id, f"no score for {', '.join(missing[:3])}")
            unread += 1
            continue
        scores[instance.id].update({n: float(got[n]) for n in node_ids})
    return unread


@dataclass(frozen=True, slots=True)
class _Data:
    ids: list[str]
    x: Matrix
    y: Matrix
    train: NDArray[np.bool_]


def _matrix(
    instances: Sequence[Instance],
    features: Sequence[str],
    targets: Sequence[str],
    scores: Mapping[str, Mapping[str, float]],
    failed: Mapping[str, str],
    training: set[str],
) -> _Data:
    rows = [i for i in instances if i.id not in failed]
    x = np.array([[scores[i.id][f] for f in features] for i in rows], dtype=np.float64).reshape(
        -1, len(features)
    )
    y = np.array([[float(i.scores[t]) for t in targets] for i in rows if i.scores], dtype=np.float64).reshape(
        -1, len(targets)
    )
    train = np.array([i.id in training for i in rows], dtype=bool)
    if train.sum() < 2 or (~train).sum() < 2:
        raise FacetevalError(
            f"{len(rows):,} of {plural(len(instances), 'instance')} {'has' if len(rows) == 1 else 'have'} "
            "every criterion score "
            f"({len(failed)} could not be scored): too few to train and test on"
        )
    return _Data([i.id for i in rows], x, y, train)


def fit(kind: str, x: Matrix, y: Matrix, *, seed: int = 0) -> Any:
    """A fitted aggregator of ``kind`` (one target: fitted on a 1-D y, as scikit-learn expects)."""
    return make_aggregator(kind, seed=seed).fit(x, _shaped(y))


def predict(aggregator: Any, x: Matrix) -> Matrix:
    """Predictions as (rows, targets), whether the aggregator has one output or several."""
    out = np.asarray(aggregator.predict(x), dtype=np.float64)
    return out.reshape(len(x), -1)


def mean_of_criteria(x: Matrix, targets: int) -> Matrix:
    """The plain mean of each row's criterion scores, as the prediction of every one of ``targets``.

    HD-Eval's "w/o aggregator": nothing is fitted, so unlike the ``mean`` aggregator (``a + b * mean``,
    fitted) it can never reverse the order of the mean when the training rows happen to disagree with it.
    """
    return np.repeat(x.mean(axis=1, keepdims=True), targets, axis=1)


def _shaped(y: Matrix) -> Matrix:
    return y if y.shape[1] > 1 else y[:, 0]
