"""faceteval: judge LLM outputs with LLMs, decomposed into facets and aggregated in code.

Examples:
    Judge pairs with DnA-Eval through any OpenAI-compatible server::

        from faceteval import DnA, LLM, judge, read_instances

        llm = LLM.from_spec("openai:gpt-4o-mini")
        judgments = judge(read_instances("pairs.jsonl"), DnA(aspects=3), llm)
        result = compute_result(judgments, read_instances("pairs.jsonl"))  # win rates, facets ...
"""

from faceteval._runner import JudgeOptions, RunAborted, RunStats, judge, judge_async, judge_each
from faceteval._version import __version__
from faceteval.core import Criterion, FacetScore, Instance, Judgment, OrderResult, TraceEntry, Usage
from faceteval.datasets import load_criteria, read_instances
from faceteval.llm import LLM, GenerateConfig, RetryPolicy
from faceteval.methods import Method, create_method
from faceteval.methods.baselines import CoT, Direct
from faceteval.methods.dna import DnA
from faceteval.results import JudgeResult, compute_result
from faceteval.store import SQLiteCache

__all__ = [
    "LLM",
    "CoT",
    "Criterion",
    "Direct",
    "DnA",
    "FacetScore",
    "GenerateConfig",
    "Instance",
    "JudgeOptions",
    "JudgeResult",
    "Judgment",
    "Method",
    "OrderResult",
    "RetryPolicy",
    "RunAborted",
    "RunStats",
    "SQLiteCache",
    "TraceEntry",
    "Usage",
    "__version__",
    "compute_result",
    "create_method",
    "judge",
    "judge_async",
    "judge_each",
    "load_criteria",
    "read_instances",
]
