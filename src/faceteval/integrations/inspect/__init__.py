"""faceteval in Inspect AI: `facet_scorer` judges a sample's output with any faceteval method.

The judge's calls go through Inspect's model API (`InspectProvider`, `inspect_llm`), so Inspect's
providers, connection limits, retries, caching and sample limits apply to them, and they show in the
sample's transcript. Needs the ``inspect`` extra: ``pip install 'faceteval[inspect]'``.

Examples:
    In a task file::

        from inspect_ai import Task, task
        from inspect_ai.solver import generate
        from faceteval.integrations.inspect import facet_scorer

        @task
        def answers() -> Task:
            return Task(dataset=..., solver=generate(), scorer=facet_scorer("dna", aspects=3))
"""

try:
    import inspect_ai  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name is None or exc.name.partition(".")[0] != "inspect_ai":
        raise
    from faceteval.errors import MissingDependencyError

    raise MissingDependencyError("faceteval.integrations.inspect", extra="inspect") from exc

from faceteval.integrations.inspect._provider import CacheSetting, InspectProvider, inspect_llm
from faceteval.integrations.inspect._score import OUTCOMES, Against
from faceteval.integrations.inspect._scorer import Baseline, facet_scorer

__all__ = [
    "OUTCOMES",
    "Against",
    "Baseline",
    "CacheSetting",
    "InspectProvider",
    "facet_scorer",
    "inspect_llm",
]
