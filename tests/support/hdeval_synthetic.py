"""Synthetic HD-Eval data: a judge and a decomposer by rule, no LLM.

Human ``coherence`` follows the layer-3 criteria ``coherence / flow / transitions`` (strongly) and
``... / ordering``; human ``fluency`` follows ``fluency / grammar / agreement`` and ``... / tense``. On
layer 2, ``flow`` and ``grammar`` are noisy summaries of their children; every other criterion is noise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from faceteval.core import Criterion, Instance
from faceteval.methods.hdeval._tree import CriteriaTree, Node
from faceteval.workflows.hdeval._train import NodeScores

TASK = "summaries of news articles"
CHILDREN = {
    "coherence": ("flow", "structure"),
    "fluency": ("grammar", "wording"),
    "flow": ("transitions", "ordering"),
    "structure": ("layout", "headings"),
    "grammar": ("agreement", "tense"),
    "wording": ("register", "variety"),
}
SIGNAL = {"coherence": ("transitions", "ordering"), "fluency": ("agreement", "tense")}
"""Each human aspect = 3 x its first criterion + its second (+ a little noise)."""
SUMMARIES = {"flow": SIGNAL["coherence"], "grammar": SIGNAL["fluency"]}
INFORMATIVE_LAYER_2 = {"coherence / flow", "fluency / grammar"}


def _byte(instance_id: str, name: str) -> int:
    return hashlib.sha256(f"{instance_id}|{name}".encode()).digest()[0]


def latent(instance_id: str, name: str) -> int:
    """A fixed pseudo-random 1-5 score."""
    return _byte(instance_id, name) % 5 + 1


def criterion_score(instance_id: str, name: str) -> float:
    """What the rule judge gives an output on a criterion (by the criterion's own name)."""
    name = name.lower()
    if name in SUMMARIES:
        first, second = (latent(instance_id, part) for part in SUMMARIES[name])
        jitter = _byte(instance_id, f"{name} jitter") % 3 - 1
        return float(min(5, max(1, round((first + second) / 2 + jitter))))
    return float(latent(instance_id, name))


def human(instance_id: str, aspect: str) -> float:
    first, second = (latent(instance_id, part) for part in SIGNAL[aspect])
    return 3 * first + second + (_byte(instance_id, f"{aspect} noise") % 7 - 3) / 10


def instances(
    n: int = 64, targets: Sequence[str] = ("coherence", "fluency"), prefix: str = "i"
) -> list[Instance]:
    """Outputs in documents of four (``doc``), each by one of four systems (``system``)."""
    out = []
    for i in range(n):
        instance_id = f"{prefix}{i}"
        out.append(
            Instance(
                id=instance_id,
                query=f"Summarise article {i // 4}.",
                candidates=(f"summary {i}",),
                scores={aspect: human(instance_id, aspect) for aspect in targets},
                metadata={"doc": f"d{i // 4}", "system": f"s{i % 4}"},
            )
        )
    return out


def tree(targets: Sequence[str] = ("coherence", "fluency")) -> CriteriaTree:
    return CriteriaTree(task=TASK, criteria=tuple(Criterion(name=t) for t in targets))


@dataclass
class Judge:
    """``score_nodes`` for `train`: scores by rule, and records what it was asked.

    ``fail`` (layer -> ids) reports those outputs as failed; ``unreadable`` (layer -> ids) gives them
    NaN on the layer's first node.
    """

    fail: Mapping[int, set[str]] = field(default_factory=dict)
    unreadable: Mapping[int, set[str]] = field(default_factory=dict)
    ids: Sequence[str] = ()
    calls: list[tuple[int, list[str]]] = field(default_factory=list)

    def __call__(self, nodes: Sequence[Node], layer: int) -> NodeScores:
        self.calls.append((layer, [node.id for node in nodes]))
        failed = {i: "parse_error: no score in the reply" for i in self.fail.get(layer, set())}
        scores: dict[str, dict[str, float]] = {}
        for instance_id in self.ids:
            if instance_id in failed:
                continue
            scores[instance_id] = {
                node.id: criterion_score(instance_id, node.criterion.name) for node in nodes
            }
            if instance_id in self.unreadable.get(layer, set()):
                scores[instance_id][nodes[0].id] = float("nan")
        return NodeScores(scores=scores, failed=failed)


@dataclass
class Decomposer:
    """``decompose`` for `train`: children from `CHILDREN`, and records what it was asked."""

    calls: list[tuple[list[str], int]] = field(default_factory=list)

    def __call__(self, current: CriteriaTree, node_ids: Sequence[str], k: int) -> CriteriaTree:
        self.calls.append((list(node_ids), k))
        for node_id in node_ids:
            name = current.find(node_id).criterion.name.lower()
            children = tuple(Criterion(name=child) for child in CHILDREN[name][:k])
            current = current.with_children(node_id, children)
        return current
