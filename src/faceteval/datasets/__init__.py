"""Reading inputs: canonical instance JSONL and criteria files."""

from faceteval.datasets._criteria_file import load_criteria
from faceteval.datasets._jsonl import read_instances

__all__ = ["load_criteria", "read_instances"]
