"""Orchestration behind the public `judge` and `meta_evaluate` functions.

The meta-evaluation's names are imported on first use: importing faceteval loads no metric or report.
"""

from typing import TYPE_CHECKING

from faceteval._runner._annotators import Annotators
from faceteval._runner._api import judge, judge_async
from faceteval._runner._batch import BatchDone, collect_in_rounds, from_cache
from faceteval._runner._calibration import check_calibration, record_identity, run_identity
from faceteval._runner._cascade import CascadeResult, CascadeStage, cascade, cascade_async
from faceteval._runner._ending import Outcome, ending, note_ending, put_in_place
from faceteval._runner._file import FileJob, RunHooks, RunResult, Started, checked_items, judge_file
from faceteval._runner._instance import cannot_judge, judge_instance, presentation_orders
from faceteval._runner._job import (
    BatchMode,
    FileInstances,
    JobHooks,
    JobOutputs,
    JudgeJob,
    JudgeSpec,
    Mode,
    SyncMode,
    file_instances,
)
from faceteval._runner._judge import FailureStreak, default_window, judge_each
from faceteval._runner._options import (
    CONFIDENCE_CHOICES,
    DEFAULT_ABORT_AFTER,
    DEFAULT_JUDGE_OPTIONS,
    JudgeOptions,
    calibration_of,
    check_score_mode,
    human_labels_of,
    templates_of,
)
from faceteval._runner._output import JudgmentsOutput
from faceteval._runner._reuse import PreviousJudgments, job_of
from faceteval._runner._run_job import check_keys, open_judge, open_judges, run_job, run_job_async
from faceteval._runner._stats import RunStats, StageStats, spent_since, total_of, with_batch
from faceteval._runner._subset import selected, selected_count, subset_options
from faceteval._runner._window import (
    ORDERS,
    Order,
    Spill,
    as_finished,
    in_order,
    in_order_spilled,
    unwrap_group,
)
from faceteval._util.lazy import lazy_attributes
from faceteval.core.internal import INVALID_INPUT, UNJUDGEABLE
from faceteval.errors import RunAborted

if TYPE_CHECKING:
    from faceteval._runner._criteria_use import criteria_use
    from faceteval._runner._metaeval import (
        grouped_as,
        labelled_as,
        measure_source,
        measured_instances,
        meta_evaluate,
        meta_evaluate_async,
        plan_runs,
    )
    from faceteval._runner._metaeval_runs import (
        DEFAULT_META_EVAL_OPTIONS,
        MetaEvalHooks,
        MetaEvalOptions,
        RunContext,
        RunPlan,
        cache_file,
        check_judgeable,
        collect_runs,
        run_meta_eval,
    )
    from faceteval.errors import NothingJudged

_LAZY = {
    "_criteria_use": ("criteria_use",),
    "_metaeval": (
        "grouped_as",
        "labelled_as",
        "measure_source",
        "measured_instances",
        "meta_evaluate",
        "meta_evaluate_async",
        "plan_runs",
    ),
    "_metaeval_runs": (
        "DEFAULT_META_EVAL_OPTIONS",
        "MetaEvalHooks",
        "MetaEvalOptions",
        "NothingJudged",
        "RunContext",
        "RunPlan",
        "cache_file",
        "check_judgeable",
        "collect_runs",
        "run_meta_eval",
    ),
}
__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "CONFIDENCE_CHOICES",
    "DEFAULT_ABORT_AFTER",
    "DEFAULT_JUDGE_OPTIONS",
    "DEFAULT_META_EVAL_OPTIONS",
    "INVALID_INPUT",
    "ORDERS",
    "UNJUDGEABLE",
    "Annotators",
    "BatchDone",
    "BatchMode",
    "CascadeResult",
    "CascadeStage",
    "FailureStreak",
    "FileInstances",
    "FileJob",
    "JobHooks",
    "JobOutputs",
    "JudgeJob",
    "JudgeOptions",
    "JudgeSpec",
    "JudgmentsOutput",
    "MetaEvalHooks",
    "MetaEvalOptions",
    "Mode",
    "NothingJudged",
    "Order",
    "Outcome",
    "PreviousJudgments",
    "RunAborted",
    "RunContext",
    "RunHooks",
    "RunPlan",
    "RunResult",
    "RunStats",
    "Spill",
    "StageStats",
    "Started",
    "SyncMode",
    "as_finished",
    "cache_file",
    "calibration_of",
    "cannot_judge",
    "cascade",
    "cascade_async",
    "check_calibration",
    "check_judgeable",
    "check_keys",
    "check_score_mode",
    "checked_items",
    "collect_in_rounds",
    "collect_runs",
    "criteria_use",
    "default_window",
    "ending",
    "file_instances",
    "from_cache",
    "grouped_as",
    "human_labels_of",
    "in_order",
    "in_order_spilled",
    "job_of",
    "judge",
    "judge_async",
    "judge_each",
    "judge_file",
    "judge_instance",
    "labelled_as",
    "measure_source",
    "measured_instances",
    "meta_evaluate",
    "meta_evaluate_async",
    "note_ending",
    "open_judge",
    "open_judges",
    "plan_runs",
    "presentation_orders",
    "put_in_place",
    "record_identity",
    "run_identity",
    "run_job",
    "run_job_async",
    "run_meta_eval",
    "selected",
    "selected_count",
    "spent_since",
    "subset_options",
    "templates_of",
    "total_of",
    "unwrap_group",
    "with_batch",
]
