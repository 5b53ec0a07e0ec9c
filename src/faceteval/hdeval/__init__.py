"""HD-Eval: hierarchical criteria, learned white-box aggregators, attribution pruning.

Names are imported on first use, so the command line starts without loading scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faceteval.hdeval._aggregators import AGGREGATORS, MeanAggregator, make_aggregator
    from faceteval.hdeval._decompose import decompose_tree, decompose_tree_async
    from faceteval.hdeval._evaluator import Evaluator, load_evaluator, save_evaluator, score
    from faceteval.hdeval._experiments import run_experiments
    from faceteval.hdeval._features import recorded_scorer, scores_from_judgments
    from faceteval.hdeval._importance import contributions, importance, top_k
    from faceteval.hdeval._method import EvalNode, HierarchyAware
    from faceteval.hdeval._report import write_evaluator_report
    from faceteval.hdeval._results import evaluator_info, evaluator_summary, held_out
    from faceteval.hdeval._store import load_aggregator, save_aggregator
    from faceteval.hdeval._train import NodeScores, TrainConfig, Trained, initial_tree, train
    from faceteval.hdeval._tree import CriteriaTree, Node, load_tree, render_tree, save_tree

_HOMES = {
    "AGGREGATORS": "_aggregators",
    "CriteriaTree": "_tree",
    "EvalNode": "_method",
    "Evaluator": "_evaluator",
    "HierarchyAware": "_method",
    "MeanAggregator": "_aggregators",
    "Node": "_tree",
    "NodeScores": "_train",
    "TrainConfig": "_train",
    "Trained": "_train",
    "contributions": "_importance",
    "decompose_tree": "_decompose",
    "decompose_tree_async": "_decompose",
    "evaluator_info": "_results",
    "evaluator_summary": "_results",
    "held_out": "_results",
    "importance": "_importance",
    "initial_tree": "_train",
    "load_aggregator": "_store",
    "load_evaluator": "_evaluator",
    "load_tree": "_tree",
    "make_aggregator": "_aggregators",
    "recorded_scorer": "_features",
    "render_tree": "_tree",
    "run_experiments": "_experiments",
    "save_aggregator": "_store",
    "save_evaluator": "_evaluator",
    "save_tree": "_tree",
    "score": "_evaluator",
    "scores_from_judgments": "_features",
    "top_k": "_importance",
    "train": "_train",
    "write_evaluator_report": "_report",
}

__all__ = [
    "AGGREGATORS",
    "CriteriaTree",
    "EvalNode",
    "Evaluator",
    "HierarchyAware",
    "MeanAggregator",
    "Node",
    "NodeScores",
    "TrainConfig",
    "Trained",
    "contributions",
    "decompose_tree",
    "decompose_tree_async",
    "evaluator_info",
    "evaluator_summary",
    "held_out",
    "importance",
    "initial_tree",
    "load_aggregator",
    "load_evaluator",
    "load_tree",
    "make_aggregator",
    "recorded_scorer",
    "render_tree",
    "run_experiments",
    "save_aggregator",
    "save_evaluator",
    "save_tree",
    "score",
    "scores_from_judgments",
    "top_k",
    "train",
    "write_evaluator_report",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
