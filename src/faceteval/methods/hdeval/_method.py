"""Hierarchy-aware evaluation: each criterion of a tree is scored in its own call, shown with its parent.

Liu et al., "HD-Eval" (Section 2.1, "Hierarchy-Aware Prompting"; Appendix G.2, Figures 11-13). When a
child criterion is evaluated the prompt also names its parent, so that the LLM sees where the
criterion sits: "Please evaluate the [parent] of the given response ... on the following metric:
[child]: [definition]", then "Score (1-5):", the score first and the reasoning after. A layer-1
criterion's parent is the task itself ("overall quality").

The wording follows the tree's domain (`faceteval.methods.hdeval._domains`): a summary of a news
article (Figure 12), a response to a conversation with its fact (Figure 11, the fact from the
instance's ``metadata['fact']``), a sentence generated from structured data (Figure 13); without a
domain, a generic wording that shows the task and calls the texts the input and the response. The
figures' closing sentence reads Figure 11's texts in all three ("the conversation history,
corresponding fact, generated response"); each of our prompts names its own texts there.

Judging is pointwise: one response per instance, on a 1-5 scale. The overall score here is the mean
of the criteria's scores; HD-Eval's learned aggregators combine the facet scores afterwards.

The tree is the method's (`HierarchyAware.from_tree`, or ``judge --method hdeval --criteria tree.yaml``),
else each instance's own: its ``criteria`` (with ``children`` for deeper layers) under its ``task``. An
instance with neither is an error for that instance, before any call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from faceteval.aggregation import mean
from faceteval.core import FacetScore, Instance
from faceteval.core.internal import recorded_modes
from faceteval.datasets import Benchmark
from faceteval.errors import ConfigError, InstanceError
from faceteval.methods._base import OrderOutcome, candidate_labels, gather, method_scale, shown
from faceteval.methods._context import JudgeContext
from faceteval.methods.hdeval._domains import DOMAINS, EVALUATE_TEMPLATE, domain_of
from faceteval.methods.hdeval._tree import CriteriaTree, Node, load_tree
from faceteval.parsing import ScoreParser, Scores

HDEVAL_SCALE = (1.0, 5.0)
STAGE = "hdeval.evaluate"
TEMPLATE = EVALUATE_TEMPLATE


@dataclass(frozen=True, slots=True)
class EvalNode:
    """One criterion to score, with the parent it is shown under (as a run record holds it).

    Attributes:
        id: The node id in its tree (``"coherence / logical flow"``); the facet's name.
        name: The criterion's name.
        description: Its definition.
        parent_name: The parent criterion's name; None on layer 1 (the parent is the task).
        parent_description: The parent's definition.
    """

    id: str
    name: str
    description: str = ""
    parent_name: str | None = None
    parent_description: str = ""

    @classmethod
    def of(cls, node: Node) -> EvalNode:
        """The criterion of a tree node, with its parent."""
        parent = node.parent
        return cls(
            id=node.id,
            name=node.criterion.name,
            description=node.criterion.description,
            parent_name=None if parent is None else parent.name,
            parent_description="" if parent is None else parent.description,
        )

    @classmethod
    def coerce(cls, value: EvalNode | Node | Mapping[str, Any]) -> EvalNode:
        """An `EvalNode` from itself, a tree `Node` or a ``{id, name, ...}`` mapping.

        Raises:
            ConfigError: Anything else, a mapping with unknown or missing fields, or a blank id or name.
        """
        if isinstance(value, EvalNode):
            node = value
        elif isinstance(value, Node):
            node = cls.of(value)
        elif not isinstance(value, Mapping):
            raise ConfigError(
                f"a criterion node is an EvalNode, a tree Node or an {{id, name, ...}} mapping, got {value!r}"
            )
        else:
            try:
                node = cls(**value)
            except TypeError as exc:
                raise ConfigError(f"not a criterion node {dict(value)!r}: {exc}") from None
        if not (
            isinstance(node.id, str) and node.id.strip() and isinstance(node.name, str) and node.name.strip()
        ):
            raise ConfigError(f"a criterion node needs a non-blank id and name, got {node!r}")
        return node


@dataclass(frozen=True, slots=True, init=False)
class HierarchyAware:
    """HD-Eval's hierarchy-aware evaluation of one response on every given criterion of a tree.

    Build it with `HierarchyAware.from_tree`; the constructor takes the criteria as `EvalNode`, tree
    `Node` or ``{id, name, description, parent_name, parent_description}`` mappings (as
    `describe` writes them), so ``HierarchyAware(**method.describe()["params"])`` rebuilds it.
    Without criteria, each instance's own tree is scored (its ``criteria``, every node of them); without
    a task, each instance's ``task`` names it.

    Attributes:
        task: The evaluation task, as the prompt names it ("summaries of news articles"); None: each
            instance's own.
        criteria: The criteria to score, each in its own call; None: every node of each instance's
            own criteria.
        background: More about the task, shown after it.
        scale: The score range (the paper's 1 to 5).
        domain: HD-Eval's evaluation domain whose wording the prompt uses (``summarization``,
            ``dialogue``, ``data-to-text``); None: the generic wording, which names the task.
    """

    task: str | None
    criteria: tuple[EvalNode, ...] | None
    background: str = ""
    scale: tuple[float, float] = HDEVAL_SCALE
    domain: str | None = None

    name: ClassVar[str] = "hdeval"

    def __init__(
        self,
        task: str | None = None,
        criteria: Sequence[EvalNode | Node | Mapping[str, Any]] | None = None,
        background: str = "",
        scale: tuple[float, float] = HDEVAL_SCALE,
        domain: str | None = None,
    ) -> None:
        if task is not None and not (isinstance(task, str) and task.strip()):
            raise ConfigError(f"hdeval needs a task description, got {task!r}")
        known = domain_of(domain)
        object.__setattr__(self, "task", known.task if task is None and known is not None else task)
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "criteria", None if criteria is None else _nodes(criteria))
        object.__setattr__(self, "background", background)
        object.__setattr__(self, "scale", method_scale(scale))

    def for_benchmark(self, benchmark: Benchmark) -> HierarchyAware:
        """HD-Eval as it judges ``benchmark``: in the wording of its task type (``summeval``:
        summarization, ``topical-chat``: dialogue, ``sfres``: data-to-text) unless a domain was given."""
        if self.domain is not None or benchmark.task_type not in DOMAINS:
            return self
        return HierarchyAware(self.task, self.criteria, self.background, self.scale, benchmark.task_type)

    @classmethod
    def from_tree(
        cls,
        tree: CriteriaTree,
        node_ids: Iterable[str] | None = None,
        *,
        scale: tuple[float, float] = HDEVAL_SCALE,
    ) -> HierarchyAware:
        """Score the nodes ``node_ids`` of ``tree`` (None: every node, layer by layer).

        Raises:
            ConfigError: An id names no node, or the tree has no criteria.
        """
        nodes = tree.nodes() if node_ids is None else [tree.find(i) for i in node_ids]
        return cls(tree.task, tuple(EvalNode.of(n) for n in nodes), tree.background, scale, tree.domain)

    def describe(self) -> dict[str, Any]:
        """Name and parameters; ``HierarchyAware(**params)`` rebuilds the method."""
        params = {
            "task": self.task,
            "criteria": None if self.criteria is None else [asdict(c) for c in self.criteria],
            "background": self.background,
            "scale": list(self.scale),
            "domain": self.domain,
        }
        return {"name": self.name, "params": params}

    @property
    def template(self) -> str:
        """The hierarchy-aware prompt of the method's domain (the generic one without a domain)."""
        known = domain_of(self.domain)
        return TEMPLATE if known is None else known.template

    def templates(self) -> tuple[str, ...]:
        """The evaluation template, and the re-ask."""
        return (self.template, "common/reask")

    def check(self, instance: Instance) -> None:
        """Raises `InstanceError` for an instance of several candidates (hdeval judges one at a time), or
        one without the tree to score (neither the method nor the instance has criteria, or a task)."""
        if instance.n_candidates != 1:
            raise InstanceError(
                f"hdeval judges one response at a time, but this instance has {instance.n_candidates} "
                "candidates; give each response its own instance"
            )
        self._tree(instance)

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        """One call per criterion, concurrently; the overall score is their mean.

        Raises:
            InstanceError: See `check` (before any call).
        """
        self.check(instance)
        task, nodes = self._tree(instance)
        scored: list[Scores] = await gather(
            [partial(self._score, task, node, instance, ctx) for node in nodes]
        )
        facets = tuple(
            FacetScore(
                name=node.id,
                description=node.description or None,
                scores=[s.values[0]],
                explanation=s.explanation or None,
                score_modes=recorded_modes(s.sources),
            )
            for node, s in zip(nodes, scored, strict=True)
        )
        return OrderOutcome(scores=tuple(mean([s.values for s in scored])), facets=facets)

    def _tree(self, instance: Instance) -> tuple[str, tuple[EvalNode, ...]]:
        """The task and the criteria to score ``instance`` on: the method's, else the instance's own."""
        task = self.task or instance.task
        if self.criteria is None and not instance.criteria:
            raise InstanceError(
                "hdeval scores the criteria of a tree, but this instance has none: pass --criteria "
                "tree.yaml (criteria=... in Python), or give the instances a 'criteria' list (with "
                "'children' for deeper layers)"
            )
        if task is None:
            raise InstanceError(
                "hdeval names the evaluation task in its prompts, but this instance has no 'task': pass "
                "--criteria tree.yaml (which names it), give the instances a 'task', or task=... in Python"
            )
        if self.criteria is not None:
            return task, self.criteria
        try:
            tree = CriteriaTree(task=task, criteria=tuple(instance.criteria or ()))
        except ConfigError as exc:
            raise InstanceError(f"criteria: {exc}") from None
        return task, tuple(EvalNode.of(node) for node in tree.nodes())

    async def _score(self, task: str, node: EvalNode, instance: Instance, ctx: JudgeContext) -> Scores:
        fact = instance.metadata.get("fact") if instance.metadata else None
        messages = ctx.render(
            self.template,
            **shown(instance),
            fact=fact if isinstance(fact, str) and fact.strip() else None,
            task=task,
            background=self.background,
            parent_name=node.parent_name,
            parent_description=node.parent_description,
            metric=node.name,
            definition=node.description,
            scale=self.scale,
        )
        parser = ScoreParser(candidate_labels(1), scale=self.scale, position="first", explained=True)
        return await ctx.ask(messages, parser, stage=STAGE, facet=node.id)


def _nodes(criteria: Sequence[EvalNode | Node | Mapping[str, Any]]) -> tuple[EvalNode, ...]:
    """The criteria as nodes, checked: at least one, each a node, ids unique.

    Raises:
        ConfigError: Not a list of nodes, none, or an id twice.
    """
    if isinstance(criteria, str | Mapping | EvalNode | Node) or not isinstance(criteria, Iterable):
        raise ConfigError(f"criteria is a list of criterion nodes, got {criteria!r}")
    nodes = tuple(EvalNode.coerce(c) for c in criteria)
    if not nodes:
        raise ConfigError("hdeval needs at least one criterion to score")
    ids = [c.id for c in nodes]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ConfigError(f"criterion ids must be unique; repeated: {', '.join(repeated)}")
    return nodes


def tree_params(path: str | Path) -> dict[str, Any]:
    """The method's settings from a tree file: its task, its background and every node of its criteria.

    Raises:
        InputError: The file is not a criteria tree (file, line and field named).
    """
    tree = load_tree(path)
    nodes = tuple(EvalNode.of(node) for node in tree.nodes())
    params = {"task": tree.task, "criteria": nodes, "background": tree.background}
    return params | ({"domain": tree.domain} if tree.domain is not None else {})
