"""HD-Eval: hierarchical criteria, learned white-box aggregators, attribution pruning.

Liu et al., "HD-Eval: Aligning Large Language Model Evaluators Through Hierarchical Criteria
Decomposition". `HierarchyAware` is the method (every node of a tree scored in its own call, shown
under its parent); the rest (decomposition, training, evaluators, experiments, reports) is imported on
first use, so that importing faceteval loads no scikit-learn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes
from faceteval.methods._spec import Command, CriteriaUse, MethodOption, MethodSpec, RunReport, TemplateFolder
from faceteval.methods.hdeval._domains import DOMAINS, Domain
from faceteval.methods.hdeval._method import HDEVAL_SCALE, EvalNode, HierarchyAware, tree_params
from faceteval.methods.hdeval._tree import CriteriaTree, Node, load_tree, render_tree, save_tree

if TYPE_CHECKING:
    from faceteval.methods.hdeval._aggregators import AGGREGATORS, MeanAggregator, make_aggregator
    from faceteval.methods.hdeval._decompose import decompose_tree, decompose_tree_async
    from faceteval.methods.hdeval._evaluator import Evaluator, load_evaluator, save_evaluator, score
    from faceteval.methods.hdeval._experiments import run_experiments
    from faceteval.methods.hdeval._features import recorded_scorer, scores_from_judgments
    from faceteval.methods.hdeval._importance import contributions, importance, top_k
    from faceteval.methods.hdeval._report import write_evaluator_report
    from faceteval.methods.hdeval._results import evaluator_info, evaluator_summary, held_out
    from faceteval.methods.hdeval._store import load_aggregator, save_aggregator
    from faceteval.methods.hdeval._train import NodeScores, TrainConfig, Trained, initial_tree, train

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

SPEC = MethodSpec(
    name="hdeval",
    factory=HierarchyAware,
    summary="HD-Eval's hierarchy-aware scoring: every criterion of a tree in its own call, named under "
    "its parent; the overall score their mean.",
    scale=HDEVAL_SCALE,
    options=(
        MethodOption(param="task", help="the evaluation task the prompts name (else each instance's task)."),
        MethodOption(param="background", default="", help="more about the task, shown after it."),
        MethodOption(
            param="domain",
            choices=tuple(DOMAINS),
            help="HD-Eval's wording of the prompt for a summarization, dialogue or data-to-text task "
            "(Figures 11-13); default: the tree's, else a generic wording that names the task.",
        ),
    ),
    criteria=CriteriaUse(
        meaning="a criteria tree (its task, background and criteria with children), every node scored",
        read=tree_params,
    ),
    templates=(TemplateFolder("hdeval", __name__),),
    commands=(
        Command("hdeval", f"{__name__}._cli._commands:hdeval"),
        Command("criteria show", f"{__name__}._cli._show:show"),
    ),
    reports=(RunReport("hdeval train", f"{__name__}._report:write_evaluator_report"),),
)
SPECS = (SPEC,)
"""The family's methods, as the registry holds them."""

__all__ = [
    "AGGREGATORS",
    "DOMAINS",
    "HDEVAL_SCALE",
    "SPEC",
    "SPECS",
    "CriteriaTree",
    "Domain",
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
    "tree_params",
    "write_evaluator_report",
]


__getattr__ = lazy_attributes(__name__, _LAZY)
