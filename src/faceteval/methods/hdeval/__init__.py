"""HD-Eval: hierarchical criteria, learned white-box aggregators, attribution pruning.

Liu et al., "HD-Eval: Aligning Large Language Model Evaluators Through Hierarchical Criteria
Decomposition". `HierarchyAware` is the method (every node of a tree scored in its own call, shown
under its parent), with criteria trees; decomposition, training, evaluators, experiments and reports are
`faceteval.workflows.hdeval`'s (still reachable here by their old names, imported on first use).
"""

from __future__ import annotations

from faceteval._util.lazy import moved_attributes
from faceteval.methods._spec import Command, CriteriaUse, MethodOption, MethodSpec, RunReport, TemplateFolder
from faceteval.methods.hdeval._domains import DOMAINS, Domain
from faceteval.methods.hdeval._method import HDEVAL_SCALE, EvalNode, HierarchyAware, tree_params
from faceteval.methods.hdeval._tree import CriteriaTree, Node, load_tree, render_tree, save_tree

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
        Command("hdeval", "faceteval.workflows.hdeval._cli._commands:hdeval"),
        Command("criteria show", "faceteval.workflows.hdeval._cli._show:show"),
    ),
    records=("faceteval.workflows.hdeval._records:RECORD_KINDS",),
    reports=(RunReport("hdeval train", "faceteval.workflows.hdeval._report:write_evaluator_report"),),
)
SPECS = (SPEC,)
"""The family's methods, as the registry holds them."""

__all__ = [
    "DOMAINS",
    "HDEVAL_SCALE",
    "SPEC",
    "SPECS",
    "CriteriaTree",
    "Domain",
    "EvalNode",
    "HierarchyAware",
    "Node",
    "load_tree",
    "render_tree",
    "save_tree",
    "tree_params",
]


__getattr__ = moved_attributes(__name__, "faceteval.workflows.hdeval")
"""The names of the family's workflows, kept here for code written before they moved to
`faceteval.workflows.hdeval` (imported on first use)."""
