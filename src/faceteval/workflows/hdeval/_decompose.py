"""Hierarchical criteria decomposition: the LLM refines a criterion into finer ones.

Liu et al., "HD-Eval: Aligning Large Language Model Evaluators Through Hierarchical Criteria
Decomposition" (Section 2.1, Equation 1; Appendix G.1, Figure 10). The prompt gives the task, its
background and the criterion to refine (or the task itself, for layer 1), and asks for around ``k``
fine-grained criteria with their definitions. A tree of one of HD-Eval's domains puts the evaluation
task's name in the task slot and the domain's definition after it, as Figure 10 (B) does for SummEval
("quality of text summarization."); a tree of no domain shows its task as quoted data (an instruction
such as "Summarize the news article." would otherwise end the sentence twice). We ask for the
criteria as numbered ``name: definition`` lines so that they can be read back; a reply with none is
re-asked once, then a `ParseError`.

Near-duplicate children are merged (the paper leaves this to the LLM): see `merge_similar`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from functools import partial

import anyio

from faceteval.core import Criterion, TraceEntry, Usage, usage_of
from faceteval.errors import ConfigError, ParseError
from faceteval.llm import LLM, JsonReply
from faceteval.methods import JudgeContext, QueryMemo, gather
from faceteval.methods.hdeval import CriteriaTree, Node
from faceteval.methods.hdeval.internal import SEPARATOR, domain_of
from faceteval.parsing import CriteriaParser
from faceteval.prompts import Templates
from faceteval.prompts.internal import prompts_of

STAGE = "hdeval.decompose"
TEMPLATE = "hdeval/decompose"
JACCARD = 0.75
"""Names whose word sets overlap at least this much (Jaccard) are one criterion."""
SIMILARITY = 0.9
"""Names at least this similar as strings (`difflib.SequenceMatcher` ratio) are one criterion."""

_WORD = re.compile(r"[^\W_]+")
_EXAMPLES = (
    ("Grammar and syntax", "The response should follow the rules of grammar and syntax."),
    ("Spelling and punctuation", "The response should have correct spelling and punctuation."),
    ("Lexical diversity", "The response should use appropriate and varied words, without repetition."),
    ("Topic relevance", "The response should be relevant to the topic of the dialogue."),
    ("Logical flow", "The response should have a logical flow of ideas, without abrupt changes."),
    ("Context consistency", "The response should be consistent with the context of the dialogue."),
    ("Content richness", "The response should provide rich and useful content, not vague statements."),
    ("Emotional engagement", "The response should be emotionally engaging and appropriate."),
    ("Feedback", "The response should attend to the user's input and feedback."),
    ("User involvement", "The response should involve the user rather than be one-sided."),
    ("Factual consistency", "The response should not contradict the facts it was given."),
    ("Factual accuracy", "The response should be free of false or misleading information."),
)
"""Layer-2 criteria of the paper's Topical-Chat case study (Table 10), for dry-run replies."""


def normalised(name: str) -> str:
    """A name compared loosely: lower case, words only.

    Examples:
        >>> normalised("  Logical-Flow. ")
        'logical flow'
    """
    return " ".join(_WORD.findall(name.casefold()))


def similar(a: str, b: str) -> bool:
    """Whether two criterion names mean the same criterion.

    They do when their normalised forms are equal, their word sets have a Jaccard similarity of at
    least `JACCARD`, or their normalised forms a `difflib.SequenceMatcher` ratio of at least `SIMILARITY`.

    Examples:
        >>> similar("Grammar and syntax", "Syntax and grammar"), similar("Grammar", "Topic relevance")
        (True, False)
    """
    left, right = normalised(a), normalised(b)
    if left == right:
        return True
    words_left, words_right = set(left.split()), set(right.split())
    union = words_left | words_right
    if union and len(words_left & words_right) / len(union) >= JACCARD:
        return True
    return SequenceMatcher(None, left, right).ratio() >= SIMILARITY


def merge_similar(criteria: Sequence[Criterion], *, parent: Criterion | None = None) -> list[Criterion]:
    """``criteria`` with near-duplicates merged into the first of them, and copies of ``parent`` dropped.

    A merged criterion keeps the first one's name and the longer description. A child is a copy of
    its parent when their normalised names are equal.
    """
    kept: list[Criterion] = []
    for criterion in criteria:
        if parent is not None and normalised(criterion.name) == normalised(parent.name):
            continue
        match = next((k for k, seen in enumerate(kept) if similar(seen.name, criterion.name)), None)
        if match is None:
            kept.append(criterion)
        elif len(criterion.description) > len(kept[match].description):
            kept[match] = kept[match].model_copy(update={"description": criterion.description})
    return kept


class ChildrenParser:
    """Reads the children of a decomposition: numbered ``name: definition`` lines, merged.

    Args:
        k: About how many children were asked for (only the example uses it).
        parent: The criterion decomposed, None for the task; children that copy it are dropped.
    """

    def __init__(self, k: int, parent: Criterion | None = None) -> None:
        self._k = k
        self._parent = parent
        self._items = CriteriaParser(distinct=False)

    @property
    def instructions(self) -> str:
        """The reply format, in one sentence."""
        return (
            'List the criteria as a numbered list ("1. ", "2. ", ...), one per line, each written as '
            '"<name>: <definition>", such as "1. Logical flow: The response should have a logical flow '
            'of ideas."'
        )

    def example(self) -> str:
        """A well-formed reply with ``k`` criteria (at most the twelve of the paper's case study)."""
        chosen = _EXAMPLES[: self._k]
        return "\n".join(f"{j}. {name}: {definition}" for j, (name, definition) in enumerate(chosen, 1))

    def json_reply(self) -> JsonReply[tuple[Criterion, ...]]:
        """The children as JSON (structured output): names and definitions, near-duplicates merged."""
        items = self._items.json_reply()
        example = {"criteria": [{"name": n, "description": d} for n, d in _EXAMPLES[: self._k]]}
        return replace(
            items, read=lambda reply, text: self._merged(items.read(reply, text), text), example=example
        )

    def parse(self, text: str) -> tuple[Criterion, ...]:
        """The children in ``text``, near-duplicates merged.

        Raises:
            ParseError: The reply lists no criteria, or only copies of the criterion decomposed.
        """
        return self._merged(self._items.parse(text), text)

    def _merged(self, items: tuple[Criterion, ...], text: str) -> tuple[Criterion, ...]:
        children = merge_similar(items, parent=self._parent)
        if not children:
            assert self._parent is not None  # the item parser found at least one criterion
            raise ParseError(
                f'every criterion listed repeats "{self._parent.name}" itself; list finer criteria', raw=text
            )
        return tuple(children)


async def decompose(ctx: JudgeContext, tree: CriteriaTree, node: Node | None, k: int) -> list[Criterion]:
    """Ask the LLM for around ``k`` children of ``node`` (None: the layer-1 criteria of the task).

    Raises:
        ConfigError: ``k`` is below 1.
        ParseError: The reply, and the one re-ask, listed no usable criteria.
        ProviderError: The LLM could not be reached.
    """
    if k < 1:
        raise ConfigError(f"the child count k must be at least 1, got {k}")
    criterion = None if node is None else node.criterion
    domain = domain_of(tree.domain)
    messages = ctx.render(
        TEMPLATE,
        domain_task=None if domain is None else domain.task,
        domain_definition=None if domain is None else domain.definition,
        task=tree.task,
        background=tree.background,
        criterion=criterion,
        parent=None if node is None or node.parent is None else node.parent.name,
        k=k,
    )
    parser = ChildrenParser(k, criterion)
    return list(await ctx.ask(messages, parser, stage=STAGE, sees_candidates=False))


async def decompose_tree_async(
    tree: CriteriaTree,
    node_ids: Sequence[str] | None,
    k: int,
    llm: LLM,
    *,
    templates: Templates | None = None,
) -> tuple[CriteriaTree, list[TraceEntry], Usage]:
    """Decompose the nodes ``node_ids`` concurrently (None: the task, into new layer-1 criteria).

    Each decomposed node's children are replaced by the new ones. Calls go through ``llm`` (its cache,
    retries and concurrency limit); ``templates`` replace built-in ones of their names.

    Returns:
        The new tree, every exchange made (in the order of ``node_ids``), and their usage.

    Raises:
        ConfigError: An id names no node, or one node is under another of ``node_ids``.
        ParseError: A reply, and its one re-ask, listed no usable criteria.
        ProviderError: The LLM could not be reached.
    """
    nodes: list[Node | None] = [None] if node_ids is None else [*_targets(tree, node_ids)]
    prompts = prompts_of(templates)
    contexts = [JudgeContext(llm, QueryMemo(), prompts=prompts) for _ in nodes]
    asks = [partial(decompose, ctx, tree, node, k) for ctx, node in zip(contexts, nodes, strict=True)]
    results = await gather(asks)
    trace = [entry for ctx in contexts for entry in ctx.trace]
    for node, children in zip(nodes, results, strict=True):
        if node is None:
            tree = CriteriaTree(tree.task, tree.background, tuple(children), tree.domain)
        else:
            tree = tree.with_children(node.id, children)
    return tree, trace, usage_of(trace)


def decompose_tree(
    tree: CriteriaTree,
    node_ids: Sequence[str] | None,
    k: int,
    llm: LLM,
    *,
    templates: Templates | None = None,
) -> tuple[CriteriaTree, list[TraceEntry], Usage]:
    """Blocking form of `decompose_tree_async`; ``llm``'s connections are closed before it returns."""
    work = partial(decompose_tree_async, tree, node_ids, k, llm, templates=templates)
    return anyio.run(llm.closing_after, work)


def _targets(tree: CriteriaTree, node_ids: Sequence[str]) -> list[Node]:
    """The nodes named, once each; refused when one is under another (its id would change)."""
    nodes: list[Node] = []
    for node_id in node_ids:
        node = tree.find(node_id)
        if node not in nodes:
            nodes.append(node)
    for node in nodes:
        for other in nodes:
            if other.id.startswith(node.id + SEPARATOR):
                raise ConfigError(
                    f"cannot decompose {node.id!r} and {other.id!r}, which is under it, at once: "
                    "decompose one layer at a time"
                )
    return nodes
