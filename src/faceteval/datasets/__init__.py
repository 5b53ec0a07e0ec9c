"""Reading inputs: canonical instance JSONL, criteria files, and the built-in benchmarks."""

from faceteval.datasets._benchmark import (
    DATA_DIR_ENV,
    Benchmark,
    RecordedSource,
    RemoteFile,
)
from faceteval.datasets._criteria_file import load_criteria
from faceteval.datasets._jsonl import read_instances, read_judgments
from faceteval.datasets._registry import benchmarks, get_benchmark

__all__ = [
    "DATA_DIR_ENV",
    "Benchmark",
    "RecordedSource",
    "RemoteFile",
    "benchmarks",
    "get_benchmark",
    "load_criteria",
    "read_instances",
    "read_judgments",
]
