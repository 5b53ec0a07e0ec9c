"""Reading inputs: canonical instance JSONL, criteria files, and the built-in benchmarks."""

from faceteval.datasets._benchmark import (
    DATA_DIR_ENV,
    Benchmark,
    RecordedSource,
    RemoteFile,
)
from faceteval.datasets._criteria_file import load_criteria
from faceteval.datasets._fetch import FetchReport, fetch
from faceteval.datasets._field_map import FieldMap
from faceteval.datasets._generic import load_labelled, parse_field_options
from faceteval.datasets._jsonl import read_instances, read_judgments
from faceteval.datasets._judged import judged_input, judged_instances, run_record
from faceteval.datasets._registry import benchmarks, get_benchmark

__all__ = [
    "DATA_DIR_ENV",
    "Benchmark",
    "FetchReport",
    "FieldMap",
    "RecordedSource",
    "RemoteFile",
    "benchmarks",
    "fetch",
    "get_benchmark",
    "judged_input",
    "judged_instances",
    "load_criteria",
    "load_labelled",
    "parse_field_options",
    "read_instances",
    "read_judgments",
    "run_record",
]
