"""The plumbing of `faceteval.metaeval` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.metaeval._cascade_judges import cascade_summary, measured_sources
from faceteval.metaeval._judgments import RECORDED, pair_by_id, source_files
from faceteval.metaeval._panel import PANEL_SEPARATOR, panel_judgments, panel_specs, panel_summary
from faceteval.metaeval._panel_scores import score_panel_summary
from faceteval.metaeval._ppi_pairs import ppi_summary
from faceteval.metaeval._relabel import relabelled
from faceteval.metaeval._selective import run_scale
from faceteval.metaeval._slim import Packed, SlimInstances, SlimJudgments, read_slim
from faceteval.metaeval._store import (
    INSTANCES,
    JUDGMENTS,
    REPORT_FILES,
    RESULT_FILES,
    SUMMARY,
    check_run,
    forget_results,
    run_files,
    run_inputs,
    stage_instances,
    write_instances,
    write_judgments,
    write_summary,
)
from faceteval.metaeval._strategies import CONFIDENCE_CHOICES
from faceteval.metaeval._sweeps import SWEEP_KEY, Variant, combine, variants
from faceteval.metaeval._target import file_instances, grouped, labelled_target
from faceteval.metaeval._weights import weight_rankings

__all__ = [
    "CONFIDENCE_CHOICES",
    "INSTANCES",
    "JUDGMENTS",
    "PANEL_SEPARATOR",
    "RECORDED",
    "REPORT_FILES",
    "RESULT_FILES",
    "SUMMARY",
    "SWEEP_KEY",
    "Packed",
    "SlimInstances",
    "SlimJudgments",
    "Variant",
    "cascade_summary",
    "check_run",
    "combine",
    "file_instances",
    "forget_results",
    "grouped",
    "labelled_target",
    "measured_sources",
    "pair_by_id",
    "panel_judgments",
    "panel_specs",
    "panel_summary",
    "ppi_summary",
    "read_slim",
    "relabelled",
    "run_files",
    "run_inputs",
    "run_scale",
    "score_panel_summary",
    "source_files",
    "stage_instances",
    "variants",
    "weight_rankings",
    "write_instances",
    "write_judgments",
    "write_summary",
]
