"""Measuring a judge against human labels: targets, judgment sources, summaries, comparisons."""

from faceteval.metaeval._compare import compare_runs, significance
from faceteval.metaeval._judgments import RECORDED, Joined, JudgmentSource, join, load_judgments, source_files
from faceteval.metaeval._panel import PANEL_SEPARATOR, panel_judgments, panel_specs, panel_summary
from faceteval.metaeval._panel_scores import score_panel_summary
from faceteval.metaeval._slim import SlimJudgments, TraceFacts, read_slim
from faceteval.metaeval._store import (
    INSTANCES,
    JUDGMENTS,
    REPORT_FILES,
    RESULT_FILES,
    SUMMARY,
    forget_results,
    measure,
    read_run,
    read_summary,
    run_files,
    run_inputs,
    write_instances,
    write_judgments,
    write_summary,
)
from faceteval.metaeval._summary import Settings, correlation_levels, summarize
from faceteval.metaeval._sweeps import SWEEP_KEY, Variant, combine, headline, variants
from faceteval.metaeval._target import Target, file_instances, labelled_target, load_target, select
from faceteval.metaeval._weights import HumanWeights, load_human_weights, weight_rankings

__all__ = [
    "INSTANCES",
    "JUDGMENTS",
    "PANEL_SEPARATOR",
    "RECORDED",
    "REPORT_FILES",
    "RESULT_FILES",
    "SUMMARY",
    "SWEEP_KEY",
    "HumanWeights",
    "Joined",
    "JudgmentSource",
    "Settings",
    "SlimJudgments",
    "Target",
    "TraceFacts",
    "Variant",
    "combine",
    "compare_runs",
    "correlation_levels",
    "file_instances",
    "forget_results",
    "headline",
    "join",
    "labelled_target",
    "load_human_weights",
    "load_judgments",
    "load_target",
    "measure",
    "panel_judgments",
    "panel_specs",
    "panel_summary",
    "read_run",
    "read_slim",
    "read_summary",
    "run_files",
    "run_inputs",
    "score_panel_summary",
    "select",
    "significance",
    "source_files",
    "summarize",
    "variants",
    "weight_rankings",
    "write_instances",
    "write_judgments",
    "write_summary",
]
