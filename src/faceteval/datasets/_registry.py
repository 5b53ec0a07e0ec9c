"""Every built-in benchmark, by name."""

from __future__ import annotations

from functools import cache

from faceteval.datasets._benchmark import Benchmark
from faceteval.errors import FacetevalError


@cache
def _all() -> dict[str, Benchmark]:
    from faceteval.datasets import _llmbar, _mtbench, _pairwise_sets, _pointwise_sets

    found: dict[str, Benchmark] = {}
    for module in (_llmbar, _mtbench, _pairwise_sets, _pointwise_sets):
        for benchmark in module.BENCHMARKS:
            if benchmark.name in found:
                raise RuntimeError(f"benchmark {benchmark.name!r} registered twice")
            found[benchmark.name] = benchmark
    return found


def benchmarks() -> list[Benchmark]:
    """Every built-in benchmark, in registry order."""
    return list(_all().values())


def get_benchmark(name: str) -> Benchmark:
    """The built-in benchmark called ``name``."""
    try:
        return _all()[name]
    except KeyError:
        raise FacetevalError(
            f"unknown benchmark {name!r}; `faceteval datasets list` shows the built-in ones"
        ) from None
