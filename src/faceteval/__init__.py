"""faceteval: judge LLM outputs with LLMs, decomposed into facets and aggregated in code.

Examples:
    Judge pairs with DnA-Eval through any OpenAI-compatible server::

        from faceteval import DnA, LLM, compute_result, judge, read_instances, read_run

        llm = LLM.from_spec("openai:gpt-4o-mini")
        judgments = judge(read_instances("pairs.jsonl"), DnA(aspects=3), llm, out="judgments.jsonl")
        result = read_run("judgments.jsonl").summary.result  # win rates, facets ... as recorded
        # or, from any judgments: compute_result(judgments, read_instances("pairs.jsonl"))
        table = judgments_to_pandas("judgments.jsonl")  # a DataFrame, one row per judgment

    Measure it against the human labels of a benchmark, as ``faceteval meta-eval`` does::

        from faceteval import meta_evaluate

        summary = meta_evaluate("llmbar-natural", DnA(aspects=3), llm, out="runs/dna", data_dir="data")
        print(summary.agreement)

Every name is imported on first use: importing faceteval loads none of the modules behind them, so
that a process that only needs a part of it (the pytest plugin, the command line) pays for that part.
"""

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes
from faceteval._version import __version__

if TYPE_CHECKING:
    from faceteval._runner import (
        Annotators,
        BatchMode,
        CascadeResult,
        FileInstances,
        JobOutputs,
        JudgeJob,
        JudgeOptions,
        JudgeSpec,
        MetaEvalOptions,
        RunStats,
        SyncMode,
        cascade,
        cascade_async,
        judge,
        judge_async,
        judge_each,
        meta_evaluate,
        meta_evaluate_async,
        run_job,
        run_job_async,
    )
    from faceteval.core import Criterion, FacetScore, Instance, Judgment, OrderResult, TraceEntry, Usage
    from faceteval.datasets import load_criteria, read_instances
    from faceteval.errors import NothingJudged, RunAborted
    from faceteval.frames import judgments_to_pandas
    from faceteval.llm import LLM, GenerateConfig, Panel, RetryPolicy
    from faceteval.methods import Method, Templates, create_method
    from faceteval.methods.baselines import CoT, Direct
    from faceteval.methods.dna import DnA
    from faceteval.results import CalibratedThreshold, JudgeResult, calibrate_threshold, compute_result
    from faceteval.store import SQLiteCache, read_run

__getattr__ = lazy_attributes(
    __name__,
    {
        "_runner": (
            "Annotators",
            "BatchMode",
            "CascadeResult",
            "FileInstances",
            "JobOutputs",
            "JudgeJob",
            "JudgeOptions",
            "JudgeSpec",
            "MetaEvalOptions",
            "RunStats",
            "SyncMode",
            "cascade",
            "cascade_async",
            "judge",
            "judge_async",
            "judge_each",
            "meta_evaluate",
            "meta_evaluate_async",
            "run_job",
            "run_job_async",
        ),
        "core": ("Criterion", "FacetScore", "Instance", "Judgment", "OrderResult", "TraceEntry", "Usage"),
        "datasets": ("load_criteria", "read_instances"),
        "errors": ("NothingJudged", "RunAborted"),
        "frames": ("judgments_to_pandas",),
        "llm": ("LLM", "GenerateConfig", "Panel", "RetryPolicy"),
        "methods": ("Method", "Templates", "create_method"),
        "methods.baselines": ("CoT", "Direct"),
        "methods.dna": ("DnA",),
        "results": ("CalibratedThreshold", "JudgeResult", "calibrate_threshold", "compute_result"),
        "store": ("SQLiteCache", "read_run"),
    },
)

__all__ = [
    "LLM",
    "Annotators",
    "BatchMode",
    "CalibratedThreshold",
    "CascadeResult",
    "CoT",
    "Criterion",
    "Direct",
    "DnA",
    "FacetScore",
    "FileInstances",
    "GenerateConfig",
    "Instance",
    "JobOutputs",
    "JudgeJob",
    "JudgeOptions",
    "JudgeResult",
    "JudgeSpec",
    "Judgment",
    "MetaEvalOptions",
    "Method",
    "NothingJudged",
    "OrderResult",
    "Panel",
    "RetryPolicy",
    "RunAborted",
    "RunStats",
    "SQLiteCache",
    "SyncMode",
    "Templates",
    "TraceEntry",
    "Usage",
    "__version__",
    "calibrate_threshold",
    "cascade",
    "cascade_async",
    "compute_result",
    "create_method",
    "judge",
    "judge_async",
    "judge_each",
    "judgments_to_pandas",
    "load_criteria",
    "meta_evaluate",
    "meta_evaluate_async",
    "read_instances",
    "read_run",
    "run_job",
    "run_job_async",
]
