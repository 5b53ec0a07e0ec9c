"""Storage: the SQLite response cache (runs resume from it), and the output files and run records of
runs, written whole (`OutputFile`, `RunFiles`) and never over a file that is not ours
(`check_outputs`)."""

from faceteval.store._cache import SQLiteCache
from faceteval.store._output import OutputFile, partial_files, write_atomic, write_error
from faceteval.store._runfiles import RECORD_ROOM, WRITTEN, RunFiles, describes, record_path_for
from faceteval.store._targets import (
    BRIDGE_RECORDS,
    CHATS,
    CORRECTIONS,
    INSTANCES,
    JUDGMENTS,
    REPORT,
    RUN_RECORD,
    SFT_STATS,
    SQLITE_MAGIC,
    SUMMARY,
    OutputKind,
    check_outputs,
    same_file,
)

__all__ = [
    "BRIDGE_RECORDS",
    "CHATS",
    "CORRECTIONS",
    "INSTANCES",
    "JUDGMENTS",
    "RECORD_ROOM",
    "REPORT",
    "RUN_RECORD",
    "SFT_STATS",
    "SQLITE_MAGIC",
    "SUMMARY",
    "WRITTEN",
    "OutputFile",
    "OutputKind",
    "RunFiles",
    "SQLiteCache",
    "check_outputs",
    "describes",
    "partial_files",
    "record_path_for",
    "same_file",
    "write_atomic",
    "write_error",
]
