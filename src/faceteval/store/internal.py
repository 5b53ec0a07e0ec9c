"""The plumbing of `faceteval.store` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.store._batches import DONE as BATCH_DONE
from faceteval.store._kinds import find_record_kind, register_record_kinds
from faceteval.store._output import OutputFile, partial_files, write_atomic, write_error
from faceteval.store._record import file_sha256, header, input_file, redacted, spend_of, stop_reason
from faceteval.store._record_read import (
    SPEND,
    Refused,
    command_of,
    old_header,
    old_sections,
    old_spend,
    parse_record,
    without,
)
from faceteval.store._runfiles import (
    RECORD_ROOM,
    WRITTEN,
    check_written,
    describes,
    file_entry,
)
from faceteval.store._targets import (
    COMPARISON,
    COST_TABLE,
    HUMAN_LABELS,
    INSTANCES,
    JUDGMENTS,
    REPORT,
    REVIEW_ACTIONS,
    REVIEW_SCORES,
    REVIEW_STATS,
    REVIEW_TABLES,
    RUN_RECORD,
    SQLITE_MAGIC,
    SUMMARY,
    check_distinct,
    check_outputs,
    same_file,
)

__all__ = [
    "BATCH_DONE",
    "COMPARISON",
    "COST_TABLE",
    "HUMAN_LABELS",
    "INSTANCES",
    "JUDGMENTS",
    "RECORD_ROOM",
    "REPORT",
    "REVIEW_ACTIONS",
    "REVIEW_SCORES",
    "REVIEW_STATS",
    "REVIEW_TABLES",
    "RUN_RECORD",
    "SPEND",
    "SQLITE_MAGIC",
    "SUMMARY",
    "WRITTEN",
    "OutputFile",
    "Refused",
    "check_distinct",
    "check_outputs",
    "check_written",
    "command_of",
    "describes",
    "file_entry",
    "file_sha256",
    "find_record_kind",
    "header",
    "input_file",
    "old_header",
    "old_sections",
    "old_spend",
    "parse_record",
    "partial_files",
    "redacted",
    "register_record_kinds",
    "same_file",
    "spend_of",
    "stop_reason",
    "without",
    "write_atomic",
    "write_error",
]
