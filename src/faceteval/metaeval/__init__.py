"""Measuring a judge against human labels: targets, judgment sources, summaries, comparisons."""

from faceteval.metaeval._cascade import CascadeSettings
from faceteval.metaeval._compare import compare_runs, significance
from faceteval.metaeval._judgments import Joined, JudgmentSource, Pairs, join, load_judgments
from faceteval.metaeval._ppi_pairs import PpiSettings
from faceteval.metaeval._slim import TraceFacts
from faceteval.metaeval._store import measure, read_run, read_summary
from faceteval.metaeval._summary import Settings, correlation_levels, summarize
from faceteval.metaeval._sweeps import headline
from faceteval.metaeval._target import Target, load_target, select
from faceteval.metaeval._weights import HumanWeights, load_human_weights

__all__ = [
    "CascadeSettings",
    "HumanWeights",
    "Joined",
    "JudgmentSource",
    "Pairs",
    "PpiSettings",
    "Settings",
    "Target",
    "TraceFacts",
    "compare_runs",
    "correlation_levels",
    "headline",
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
]
