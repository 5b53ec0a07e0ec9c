"""Measuring a judge against human labels: targets, judgment sources, summaries, comparisons."""

from faceteval.metaeval._compare import compare_runs, significance
from faceteval.metaeval._judgments import RECORDED, Joined, JudgmentSource, join, load_judgments
from faceteval.metaeval._store import (
    measure,
    read_run,
    read_summary,
    write_instances,
    write_judgments,
    write_summary,
)
from faceteval.metaeval._summary import Settings, summarize
from faceteval.metaeval._target import Target, load_target, select
from faceteval.metaeval._weights import HumanWeights, load_human_weights, weight_rankings

__all__ = [
    "RECORDED",
    "HumanWeights",
    "Joined",
    "JudgmentSource",
    "Settings",
    "Target",
    "compare_runs",
    "join",
    "load_human_weights",
    "load_judgments",
    "load_target",
    "measure",
    "read_run",
    "read_summary",
    "select",
    "significance",
    "summarize",
    "weight_rankings",
    "write_instances",
    "write_judgments",
    "write_summary",
]
