"""Fennec: criteria, scoring guidelines and per-criterion judgments; correction, SFT data and bridging.

Liang et al., "Fennec: Fine-grained Language Model Evaluation and Correction Extended through
Branching and Bridging". `Fennec` is the judge (branching); its replies are read by the parsers here.
Correction, SFT data and bridging are `faceteval.workflows.fennec`'s (still reachable here by their old
names, imported on first use).
"""

from __future__ import annotations

from faceteval._util.lazy import moved_attributes
from faceteval.methods._spec import Command, MethodOption, MethodSpec, RunReport, Sweep, TemplateFolder
from faceteval.methods.fennec._method import (
    DEFAULT_CRITERIA_COUNT,
    FENNEC_AGGREGATES,
    Fennec,
    overall_scale,
    response_labels,
)
from faceteval.methods.fennec._parsers import (
    FENNEC_SCALE,
    DecisionParser,
    FennecCriteriaParser,
    GuidelineParser,
    Judged,
    JudgeResultParser,
    ReverseCriteriaParser,
    RewriteParser,
)

SPEC = MethodSpec(
    name="fennec",
    factory=Fennec,
    summary="Fennec: criteria (given, or generated per query), a scoring guideline for each, one judgment "
    "per criterion, summed in code.",
    scale=FENNEC_SCALE,
    options=(
        MethodOption(
            param="criteria_count",
            flag="--criteria-count",
            type=int,
            default=DEFAULT_CRITERIA_COUNT,
            minimum=1,
            maximum=20,
            help="criteria generated per query when there are no predefined criteria.",
            sweep=Sweep(
                help="generated criteria per query (branches); a list (1,2,3,4,5) runs the branch-number "
                "sweep.",
                title="Branch-number sweep (criteria per query)",
                column="Criteria",
                axis="criteria (branches)",
                prefix="criteria",
                metavar="N[,N...]",
            ),
            counts_criteria=True,
        ),
        MethodOption(
            param="aggregate",
            flag="--aggregate",
            choices=FENNEC_AGGREGATES,
            default="sum",
            lead="How facet scores combine.",
            help="sum (default), mean, or weighted.",
        ),
        MethodOption(
            param="single",
            flag="--single",
            type=bool,
            default=False,
            help="judge each response on its own (single-eval) instead of side by side.",
        ),
    ),
    templates=(TemplateFolder("fennec", __name__),),
    commands=(
        Command("correct", "faceteval.workflows.fennec._cli._correct:correct"),
        Command("bridge", "faceteval.workflows.fennec._cli._bridge:bridge"),
        Command("export", "faceteval.workflows.fennec._cli._export:export"),
    ),
    records=("faceteval.workflows.fennec._records:RECORD_KINDS",),
    reports=(
        RunReport("correct", "faceteval.workflows.fennec._run_reports:write_correct_report"),
        RunReport("bridge", "faceteval.workflows.fennec._run_reports:write_bridge_report"),
    ),
    per_criterion_judgments=True,
    overall_scale=overall_scale,
)
SPECS = (SPEC,)
"""The family's methods, as the registry holds them."""

__getattr__ = moved_attributes(__name__, "faceteval.workflows.fennec")
"""The names of the family's workflows, kept here for code written before they moved to
`faceteval.workflows.fennec` (imported on first use)."""

__all__ = [
    "DEFAULT_CRITERIA_COUNT",
    "FENNEC_AGGREGATES",
    "FENNEC_SCALE",
    "SPEC",
    "SPECS",
    "DecisionParser",
    "Fennec",
    "FennecCriteriaParser",
    "GuidelineParser",
    "JudgeResultParser",
    "Judged",
    "ReverseCriteriaParser",
    "RewriteParser",
    "overall_scale",
    "response_labels",
]
