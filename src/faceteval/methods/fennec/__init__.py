"""Fennec: criteria, scoring guidelines and per-criterion judgments; correction, SFT data and bridging.

Liang et al., "Fennec: Fine-grained Language Model Evaluation and Correction Extended through
Branching and Bridging". `Fennec` is the judge (branching); its replies are read by the parsers here.
``correct`` rewrites the responses a fennec judgment scored under a threshold (and can re-judge the
rewrite against the original); ``build_sft`` / ``export_sft`` turn fennec judgments and corrections
into chat-format training sets (criteria, scoring guidelines, judgments, corrections); ``bridge``
recovers criteria and guidelines for judge datasets that have only verdicts, keeping the
behaviourally consistent records. Correction, SFT data and bridging are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes
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

if TYPE_CHECKING:
    from faceteval.methods.fennec._bridge import BridgeRecord, bridge, bridge_async
    from faceteval.methods.fennec._bridge_files import BridgeSummary, save_bridge, summarize
    from faceteval.methods.fennec._bridge_sources import BRIDGEABLE, BridgeSource, load_sources
    from faceteval.methods.fennec._correct import (
        DEFAULT_THRESHOLD,
        Correction,
        CorrectOptions,
        correct,
        correct_async,
    )
    from faceteval.methods.fennec._correctable import load_correctable, response_score
    from faceteval.methods.fennec._rejudge import Improvement, improvement
    from faceteval.methods.fennec._sft import build_sft, export_sft, read_corrections, write_sft
    from faceteval.methods.fennec._sft_model import SftData, SftStats

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
        Command("correct", f"{__name__}._cli._correct:correct"),
        Command("bridge", f"{__name__}._cli._bridge:bridge"),
        Command("export", f"{__name__}._cli._export:export"),
    ),
    reports=(
        RunReport("correct", f"{__name__}._run_reports:write_correct_report"),
        RunReport("bridge", f"{__name__}._run_reports:write_bridge_report"),
    ),
    per_criterion_judgments=True,
    overall_scale=overall_scale,
)
SPECS = (SPEC,)
"""The family's methods, as the registry holds them."""

_LAZY = {
    "_bridge": ("BridgeRecord", "bridge", "bridge_async"),
    "_bridge_files": ("BridgeSummary", "save_bridge", "summarize"),
    "_bridge_sources": ("BRIDGEABLE", "BridgeSource", "load_sources"),
    "_correct": ("DEFAULT_THRESHOLD", "CorrectOptions", "Correction", "correct", "correct_async"),
    "_correctable": ("load_correctable", "response_score"),
    "_rejudge": ("Improvement", "improvement"),
    "_sft": ("build_sft", "export_sft", "read_corrections", "write_sft"),
    "_sft_model": ("SftData", "SftStats"),
}
__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "BRIDGEABLE",
    "DEFAULT_CRITERIA_COUNT",
    "DEFAULT_THRESHOLD",
    "FENNEC_AGGREGATES",
    "FENNEC_SCALE",
    "SPEC",
    "SPECS",
    "BridgeRecord",
    "BridgeSource",
    "BridgeSummary",
    "CorrectOptions",
    "Correction",
    "DecisionParser",
    "Fennec",
    "FennecCriteriaParser",
    "GuidelineParser",
    "Improvement",
    "JudgeResultParser",
    "Judged",
    "ReverseCriteriaParser",
    "RewriteParser",
    "SftData",
    "SftStats",
    "bridge",
    "bridge_async",
    "build_sft",
    "correct",
    "correct_async",
    "export_sft",
    "improvement",
    "load_correctable",
    "load_sources",
    "overall_scale",
    "read_corrections",
    "response_labels",
    "response_score",
    "save_bridge",
    "summarize",
    "write_sft",
]
