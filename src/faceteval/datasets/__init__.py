"""Reading inputs: instances from canonical JSONL, JSON, CSV/TSV, Parquet, Hugging Face datasets,
DataFrames and iterables of dicts (`read_instances`, with field maps and presets), criteria files,
and the built-in benchmarks.

CoEval's released review data (`read_coeval`: a task's outputs with every score; `coeval_actions`: the
annotators' review of ChatGPT's evaluations; `chatgpt_texts`) is read on first use of those names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes
from faceteval.datasets._benchmark import (
    DATA_DIR_ENV,
    DEFAULT_DATA_DIR,
    Benchmark,
    Kind,
    RecordedSource,
    RemoteFile,
)
from faceteval.datasets._criteria_file import load_criteria
from faceteval.datasets._fetch import FetchReport, fetch
from faceteval.datasets._field_map import FieldMap
from faceteval.datasets._generic import load_labelled, parse_field_options
from faceteval.datasets._jsonl import (
    instance_from_line,
    judgment_from_line,
    read_judgments,
    read_numbered_judgments,
)
from faceteval.datasets._judged import (
    changed_since,
    judged_input,
    judged_instances,
    judged_reading,
    recorded_reading,
    run_record,
    why_missing,
)
from faceteval.datasets._presets import PRESET_NAMES, PRESETS, Preset, get_preset
from faceteval.datasets._reader import (
    FORMATS,
    SUFFIXES,
    InputFormat,
    InstanceFile,
    Reading,
    measure_input,
    read_instances,
    reading_of,
)
from faceteval.datasets._reader import PLAIN as PLAIN_READING
from faceteval.datasets._registry import benchmarks, get_benchmark

if TYPE_CHECKING:
    from faceteval.datasets._coeval_recorded import CoevalAction, chatgpt_texts, coeval_actions
    from faceteval.datasets._coeval_tasks import TASKS_BY_NAME, CoevalOutput, CoevalTask, read_coeval

_LAZY = {
    "_coeval_recorded": ("CoevalAction", "chatgpt_texts", "coeval_actions"),
    "_coeval_tasks": ("TASKS_BY_NAME", "CoevalOutput", "CoevalTask", "read_coeval"),
}

__all__ = [
    "DATA_DIR_ENV",
    "DEFAULT_DATA_DIR",
    "FORMATS",
    "PLAIN_READING",
    "PRESETS",
    "PRESET_NAMES",
    "SUFFIXES",
    "TASKS_BY_NAME",
    "Benchmark",
    "CoevalAction",
    "CoevalOutput",
    "CoevalTask",
    "FetchReport",
    "FieldMap",
    "InputFormat",
    "InstanceFile",
    "Kind",
    "Preset",
    "Reading",
    "RecordedSource",
    "RemoteFile",
    "benchmarks",
    "changed_since",
    "chatgpt_texts",
    "coeval_actions",
    "fetch",
    "get_benchmark",
    "get_preset",
    "instance_from_line",
    "judged_input",
    "judged_instances",
    "judged_reading",
    "judgment_from_line",
    "load_criteria",
    "load_labelled",
    "measure_input",
    "parse_field_options",
    "read_coeval",
    "read_instances",
    "read_judgments",
    "read_numbered_judgments",
    "reading_of",
    "recorded_reading",
    "run_record",
    "why_missing",
]

__getattr__ = lazy_attributes(__name__, _LAZY)
