"""Storage: the SQLite response cache (runs resume from it), the typed run record of every command
(`RunRecord` and its kinds, read back whatever version wrote them: `read_record`; a judge run's, with
its result, `read_run`), and the files of runs (`RunFiles`). How the commands write them, whole and
never over a file that is not ours (`OutputFile`, `check_outputs`, an `OutputKind` for each kind of
file a command writes, the records' `header`), is in `faceteval.store.internal`."""

from faceteval.store._batches import BatchLedger, BatchRow
from faceteval.store._batches import Refusal as BatchRefusal
from faceteval.store._cache import SQLiteCache
from faceteval.store._record import (
    RECORD_SCHEMA,
    BatchRecord,
    FileEntry,
    InputFile,
    LLMRecord,
    MethodRecord,
    RecordSummary,
    RunRecord,
    SpendRecord,
)
from faceteval.store._record_kinds import (
    RUN_RECORDS,
    AnyRunRecord,
    BridgeRunRecord,
    BridgeRunSummary,
    CorrectionGain,
    CorrectRecord,
    CorrectSummary,
    Demonstration,
    GeneratedSet,
    GenerationFailure,
    GenerationRecord,
    GenerationSummary,
    JudgeRecord,
    JudgeSummary,
    MetaEvalRecord,
    MetaEvalSummary,
    TrainRecord,
    TrainSummary,
)
from faceteval.store._record_read import read_record, read_run
from faceteval.store._runfiles import RunFiles

__all__ = [
    "RECORD_SCHEMA",
    "RUN_RECORDS",
    "AnyRunRecord",
    "BatchLedger",
    "BatchRecord",
    "BatchRefusal",
    "BatchRow",
    "BridgeRunRecord",
    "BridgeRunSummary",
    "CorrectRecord",
    "CorrectSummary",
    "CorrectionGain",
    "Demonstration",
    "FileEntry",
    "GeneratedSet",
    "GenerationFailure",
    "GenerationRecord",
    "GenerationSummary",
    "InputFile",
    "JudgeRecord",
    "JudgeSummary",
    "LLMRecord",
    "MetaEvalRecord",
    "MetaEvalSummary",
    "MethodRecord",
    "RecordSummary",
    "RunFiles",
    "RunRecord",
    "SQLiteCache",
    "SpendRecord",
    "TrainRecord",
    "TrainSummary",
    "read_record",
    "read_run",
]
