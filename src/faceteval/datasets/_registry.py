"""Every built-in benchmark, by name.

Each published source is one module holding its `Benchmark` declarations in a ``BENCHMARKS`` tuple;
`_all` lists the modules, in the order ``faceteval datasets list`` shows them. Adding a benchmark is a
new module and one entry there.
"""

from __future__ import annotations

from functools import cache

from faceteval._util.text import did_you_mean
from faceteval.datasets._benchmark import Benchmark
from faceteval.errors import FacetevalError


@cache
def _all() -> dict[str, Benchmark]:
    from faceteval.datasets import (
        _autoj,
        _coeval,
        _faireval,
        _llmbar,
        _llmeval2,
        _mtbench,
        _pandalm,
        _prometheus,
        _summeval,
        _unieval,
    )

    modules = (
        *(_llmbar, _mtbench),  # pairwise, no ties
        *(_faireval, _pandalm, _autoj, _llmeval2, _prometheus),  # pairwise with ties; Prometheus' sets
        *(_summeval, _unieval, _coeval),  # pointwise
    )
    found: dict[str, Benchmark] = {}
    for module in modules:
        for benchmark in module.BENCHMARKS:
            if benchmark.name in found:
                raise RuntimeError(f"benchmark {benchmark.name!r} registered twice")
            found[benchmark.name] = benchmark
    return found


def benchmarks() -> list[Benchmark]:
    """Every built-in benchmark, in registry order."""
    return list(_all().values())


def get_benchmark(name: str) -> Benchmark:
    """The built-in benchmark called ``name``.

    Raises:
        FacetevalError: No benchmark is called that; the message names the closest ones.
    """
    try:
        return _all()[name]
    except KeyError:
        raise FacetevalError(
            f"unknown benchmark {name!r}{did_you_mean(name, _all())}; `faceteval datasets list` shows "
            "the built-in ones"
        ) from None
