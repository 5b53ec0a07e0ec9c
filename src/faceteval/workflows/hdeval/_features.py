"""Criterion scores from judgments: an HD-Eval run's, or a real LLM's recorded per-criterion scores."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from faceteval.core import Judgment
from faceteval.methods.hdeval import Node
from faceteval.workflows.hdeval._train import NodeScores


def scores_from_judgments(judgments: Iterable[Judgment], node_ids: Sequence[str]) -> NodeScores:
    """Each judgment's facet scores for ``node_ids`` (facets are matched by name, case-blind).

    A judgment that failed (``parse_error``, ``error``) is listed in ``failed`` with its reason; it
    is never given a score.
    """
    wanted = {node.lower(): node for node in node_ids}
    scores: dict[str, dict[str, float]] = {}
    failed: dict[str, str] = {}
    for judgment in judgments:
        if judgment.status != "ok":
            failed[judgment.id] = f"{judgment.status}: {judgment.error or 'no reason recorded'}"
            continue
        found: dict[str, float] = {}
        for facet in judgment.facets:
            node = wanted.get(facet.name.lower())
            if node is not None and facet.scores and facet.scores[0] is not None:
                found[node] = float(facet.scores[0])
        scores[judgment.id] = found
    return NodeScores(scores=scores, failed=failed)


def recorded_scorer(judgments: Iterable[Judgment]) -> Callable[[Sequence[Node], int], NodeScores]:
    """A criterion scorer for `train` that reads recorded judgments instead of calling an LLM."""
    kept = list(judgments)

    def score_nodes(nodes: Sequence[Node], layer: int) -> NodeScores:
        return scores_from_judgments(kept, [node.id for node in nodes])

    return score_nodes
