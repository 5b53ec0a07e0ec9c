"""Storage: the SQLite response cache (runs resume from it), the typed run record of every command
(`RunRecord` and its kinds, read back whatever version wrote them: `read_record`; a judge run's, with
its result, `read_run`), and the output files and run records of runs, written whole (`OutputFile`,
`RunFiles`) and never over a file that is not ours (`check_outputs`, with an `OutputKind` for each
kind of file a command writes)."""

from typing import Any

from faceteval.store._batches import DONE as BATCH_DONE
from faceteval.store._batches import BatchLedger, BatchRow
from faceteval.store._batches import Refusal as BatchRefusal
from faceteval.store._cache import SQLiteCache
from faceteval.store._kinds import (
    RUN_RECORDS,
    RecordKind,
    RunRecords,
    find_record_kind,
    record_kind,
    record_kinds,
    record_module_name,
    register_record_kind,
    register_record_kinds,
)
from faceteval.store._output import OutputFile, partial_files, write_atomic, write_error
from faceteval.store._record import (
    RECORD_SCHEMA,
    BatchRecord,
    FileEntry,
    InputFile,
    LLMRecord,
    MethodRecord,
    RecordPart,
    RecordSummary,
    RunRecord,
    SpendRecord,
    file_sha256,
    header,
    input_file,
    redacted,
    spend_of,
    stop_reason,
)
from faceteval.store._record_kinds import (
    JudgeRecord,
    JudgeSummary,
    MetaEvalRecord,
    MetaEvalSummary,
)
from faceteval.store._record_read import (
    SPEND,
    Refused,
    command_of,
    old_header,
    old_sections,
    old_spend,
    parse_record,
    read_record,
    read_run,
    without,
)
from faceteval.store._runfiles import (
    RECORD_ROOM,
    WRITTEN,
    RunFiles,
    check_written,
    describes,
    file_entry,
    record_path_for,
)
from faceteval.store._targets import (
    COMPARISON,
    COST_TABLE,
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
    OutputKind,
    check_distinct,
    check_outputs,
    same_file,
)

__all__ = [
    "BATCH_DONE",
    "COMPARISON",
    "COST_TABLE",
    "INSTANCES",
    "JUDGMENTS",
    "RECORD_ROOM",
    "RECORD_SCHEMA",
    "REPORT",
    "REVIEW_ACTIONS",
    "REVIEW_SCORES",
    "REVIEW_STATS",
    "REVIEW_TABLES",
    "RUN_RECORD",
    "RUN_RECORDS",
    "SPEND",
    "SQLITE_MAGIC",
    "SUMMARY",
    "WRITTEN",
    "AnyRunRecord",
    "BatchLedger",
    "BatchRecord",
    "BatchRefusal",
    "BatchRow",
    "FileEntry",
    "InputFile",
    "JudgeRecord",
    "JudgeSummary",
    "LLMRecord",
    "MetaEvalRecord",
    "MetaEvalSummary",
    "MethodRecord",
    "OutputFile",
    "OutputKind",
    "RecordKind",
    "RecordPart",
    "RecordSummary",
    "Refused",
    "RunFiles",
    "RunRecord",
    "RunRecords",
    "SQLiteCache",
    "SpendRecord",
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
    "read_record",
    "read_run",
    "record_kind",
    "record_kinds",
    "record_path_for",
    "redacted",
    "register_record_kind",
    "register_record_kinds",
    "same_file",
    "spend_of",
    "stop_reason",
    "without",
    "write_atomic",
    "write_error",
]

AnyRunRecord = RunRecord
"""Any command's run record (read one with `RUN_RECORDS`, told apart by its ``command``)."""


def __getattr__(name: str) -> Any:
    # the record models and file kinds the method families now hold (``CorrectRecord``, ``TREE`` ...),
    # for code that imported them from here: found among the registered kinds' modules
    return record_module_name(name)
