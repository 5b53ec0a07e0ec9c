"""Reading inputs: instances from canonical JSONL, JSON, CSV/TSV, Parquet, Hugging Face datasets,
DataFrames and iterables of dicts (`read_instances`, with field maps and presets), criteria files,
and the built-in benchmarks.

MT-Bench's `vote_key` (the question, model pair and turn a human vote and a judge's verdict are
compared on) and CoEval's released review data (`read_coeval`: a task's outputs with every score;
`coeval_actions`: the annotators' review of ChatGPT's evaluations; `chatgpt_texts`) are loaded on
first use of those names.
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
from faceteval.datasets._jsonl import read_judgments
from faceteval.datasets._labels import SAMPLINGS, HumanLabel, labels_jsonl, read_human_labels, relabelled
from faceteval.datasets._presets import PRESETS, Preset, get_preset
from faceteval.datasets._reader import InputFormat, InstanceFile, Reading, read_instances
from faceteval.datasets._registry import benchmarks, get_benchmark

if TYPE_CHECKING:
    from faceteval.datasets._coeval_recorded import CoevalAction, chatgpt_texts, coeval_actions
    from faceteval.datasets._coeval_tasks import CoevalOutput, CoevalTask, read_coeval
    from faceteval.datasets._mtbench import vote_key

_LAZY = {
    "_coeval_recorded": ("CoevalAction", "chatgpt_texts", "coeval_actions"),
    "_coeval_tasks": ("CoevalOutput", "CoevalTask", "read_coeval"),
    "_mtbench": ("vote_key",),
}

__all__ = [
    "DATA_DIR_ENV",
    "DEFAULT_DATA_DIR",
    "PRESETS",
    "SAMPLINGS",
    "Benchmark",
    "CoevalAction",
    "CoevalOutput",
    "CoevalTask",
    "FetchReport",
    "FieldMap",
    "HumanLabel",
    "InputFormat",
    "InstanceFile",
    "Kind",
    "Preset",
    "Reading",
    "RecordedSource",
    "RemoteFile",
    "benchmarks",
    "chatgpt_texts",
    "coeval_actions",
    "fetch",
    "get_benchmark",
    "get_preset",
    "labels_jsonl",
    "load_criteria",
    "load_labelled",
    "parse_field_options",
    "read_coeval",
    "read_human_labels",
    "read_instances",
    "read_judgments",
    "relabelled",
    "vote_key",
]

__getattr__ = lazy_attributes(__name__, _LAZY)
