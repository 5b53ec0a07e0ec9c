"""Orchestration behind the public `judge` functions."""

from faceteval._runner._api import judge, judge_async
from faceteval._runner._ending import Outcome, ending, note_ending, put_in_place
from faceteval._runner._file import FileJob, RunHooks, RunResult, Started, checked_items, judge_file
from faceteval._runner._judge import (
    DEFAULT_ABORT_AFTER,
    DEFAULT_JUDGE_OPTIONS,
    FailureStreak,
    JudgeOptions,
    RunAborted,
    cannot_judge,
    default_window,
    in_order,
    judge_each,
    judge_instance,
    presentation_orders,
    unwrap_group,
)
from faceteval._runner._output import JudgmentsOutput
from faceteval._runner._reuse import PreviousJudgments, job_of
from faceteval._runner._stats import RunStats, StageStats, spent_since, total_of
from faceteval.core import INVALID_INPUT, UNJUDGEABLE

__all__ = [
    "DEFAULT_ABORT_AFTER",
    "DEFAULT_JUDGE_OPTIONS",
    "INVALID_INPUT",
    "UNJUDGEABLE",
    "FailureStreak",
    "FileJob",
    "JudgeOptions",
    "JudgmentsOutput",
    "Outcome",
    "PreviousJudgments",
    "RunAborted",
    "RunHooks",
    "RunResult",
    "RunStats",
    "StageStats",
    "Started",
    "cannot_judge",
    "checked_items",
    "default_window",
    "ending",
    "in_order",
    "job_of",
    "judge",
    "judge_async",
    "judge_each",
    "judge_file",
    "judge_instance",
    "note_ending",
    "presentation_orders",
    "put_in_place",
    "spent_since",
    "total_of",
    "unwrap_group",
]
