"""Storage: the SQLite response cache (runs resume from it), the typed run record of every command
(`RunRecord` and its kinds, read back whatever version wrote them: `read_record`; a judge run's, with
its result, `read_run`; a family's kinds registered as `RecordKind`\\ s), and the files of runs
(`RunFiles`). How the commands write them, whole and never over a file that is not ours
(`OutputFile`, `check_outputs`, the records' `header`), is in `faceteval.store.internal`."""

from typing import Any

from faceteval.store._batches import BatchLedger, BatchRow
from faceteval.store._batches import Refusal as BatchRefusal
from faceteval.store._cache import SQLiteCache
from faceteval.store._kinds import (
    RUN_RECORDS,
    RecordKind,
    RunRecords,
    record_kind,
    record_kinds,
    record_module_name,
    register_record_kind,
)
from faceteval.store._record import (
    RECORD_SCHEMA,
    BatchRecord,
    FileEntry,
    InputFile,
    LLMRecord,
    MethodRecord,
    PriceRecord,
    RecordPart,
    RecordSummary,
    RunRecord,
    SpendRecord,
)
from faceteval.store._record_kinds import (
    JudgeRecord,
    JudgeSummary,
    MetaEvalRecord,
    MetaEvalSummary,
)
from faceteval.store._record_read import read_record, read_run
from faceteval.store._runfiles import RunFiles, record_path_for
from faceteval.store._targets import OutputKind

__all__ = [
    "RECORD_SCHEMA",
    "RUN_RECORDS",
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
    "OutputKind",
    "PriceRecord",
    "RecordKind",
    "RecordPart",
    "RecordSummary",
    "RunFiles",
    "RunRecord",
    "RunRecords",
    "SQLiteCache",
    "SpendRecord",
    "read_record",
    "read_run",
    "record_kind",
    "record_kinds",
    "record_path_for",
    "register_record_kind",
]

AnyRunRecord = RunRecord
"""Any command's run record (read one with `RUN_RECORDS`, told apart by its ``command``)."""


def __getattr__(name: str) -> Any:
    # the record models and file kinds the method families now hold (``CorrectRecord``, ``TREE`` ...),
    # for code that imported them from here: found among the registered kinds' modules
    return record_module_name(name)
