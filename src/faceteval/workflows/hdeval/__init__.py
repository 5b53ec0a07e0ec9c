"""HD-Eval's workflows: decomposition, training, evaluators, experiments, reports and the ``hdeval`` commands.

The method itself (`faceteval.methods.hdeval`: the hierarchy-aware method and criteria trees) is below
the engine; these use it. Imported on first use, so that importing faceteval loads no scikit-learn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:
    from faceteval.workflows.hdeval._aggregators import AGGREGATORS, MeanAggregator, make_aggregator
    from faceteval.workflows.hdeval._decompose import decompose_tree, decompose_tree_async
    from faceteval.workflows.hdeval._evaluator import Evaluator, load_evaluator, save_evaluator, score
    from faceteval.workflows.hdeval._experiments import run_experiments
    from faceteval.workflows.hdeval._features import recorded_scorer, scores_from_judgments
    from faceteval.workflows.hdeval._importance import contributions, importance, top_k
    from faceteval.workflows.hdeval._report import write_evaluator_report
    from faceteval.workflows.hdeval._results import evaluator_info, evaluator_summary, held_out
    from faceteval.workflows.hdeval._store import load_aggregator, save_aggregator
    from faceteval.workflows.hdeval._train import NodeScores, TrainConfig, Trained, initial_tree, train


_LAZY = {
    "_aggregators": ("AGGREGATORS", "MeanAggregator", "make_aggregator"),
    "_decompose": ("decompose_tree", "decompose_tree_async"),
    "_evaluator": ("Evaluator", "load_evaluator", "save_evaluator", "score"),
    "_experiments": ("run_experiments",),
    "_features": ("recorded_scorer", "scores_from_judgments"),
    "_importance": ("contributions", "importance", "top_k"),
    "_report": ("write_evaluator_report",),
    "_results": ("evaluator_info", "evaluator_summary", "held_out"),
    "_store": ("load_aggregator", "save_aggregator"),
    "_train": ("NodeScores", "TrainConfig", "Trained", "initial_tree", "train"),
}
__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "AGGREGATORS",
    "Evaluator",
    "MeanAggregator",
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
    "make_aggregator",
    "recorded_scorer",
    "run_experiments",
    "save_aggregator",
    "save_evaluator",
    "score",
    "scores_from_judgments",
    "top_k",
    "train",
    "write_evaluator_report",
]
