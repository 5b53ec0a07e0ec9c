"""The plumbing of `faceteval.datasets` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes
from faceteval.datasets._jsonl import instance_from_line, judgment_from_line, read_numbered_judgments
from faceteval.datasets._judged import (
    changed_since,
    judged_input,
    judged_instances,
    judged_reading,
    recorded_reading,
    run_record,
    why_missing,
)
from faceteval.datasets._keys import ID_SEPARATOR, KEY_FIELDS, check_key, group_key, key_text, system_key
from faceteval.datasets._presets import PRESET_NAMES
from faceteval.datasets._reader import FORMATS, SUFFIXES, measure_input, reading_of
from faceteval.datasets._reader import PLAIN as PLAIN_READING

if TYPE_CHECKING:  # imported on first use, as the package's own names are
    from faceteval.datasets._coeval_tasks import TASKS_BY_NAME

__getattr__ = lazy_attributes(
    "faceteval.datasets",
    {
        "_coeval_tasks": ("TASKS_BY_NAME",),
    },
)

__all__ = [
    "FORMATS",
    "ID_SEPARATOR",
    "KEY_FIELDS",
    "PLAIN_READING",
    "PRESET_NAMES",
    "SUFFIXES",
    "TASKS_BY_NAME",
    "changed_since",
    "check_key",
    "group_key",
    "instance_from_line",
    "judged_input",
    "judged_instances",
    "judged_reading",
    "judgment_from_line",
    "key_text",
    "measure_input",
    "read_numbered_judgments",
    "reading_of",
    "recorded_reading",
    "run_record",
    "system_key",
    "why_missing",
]
