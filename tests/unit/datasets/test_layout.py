"""How benchmarks are declared: one module per published source, each listed by the registry, each small."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import faceteval.datasets
from faceteval.datasets import Benchmark, benchmarks

MAX_LINES = 400
"""The style guide's module size; no module of the package is exempt."""


def _modules() -> list[ModuleType]:
    names = [info.name for info in pkgutil.iter_modules(faceteval.datasets.__path__)]
    return [importlib.import_module(f"faceteval.datasets.{name}") for name in names]


def test_every_declaring_module_is_registered_and_every_benchmark_declared_once() -> None:
    declared: dict[str, str] = {}
    for module in _modules():
        for benchmark in getattr(module, "BENCHMARKS", ()):
            assert isinstance(benchmark, Benchmark), module.__name__
            assert benchmark.name not in declared, (benchmark.name, module.__name__)
            declared[benchmark.name] = module.__name__
    registered = benchmarks()
    assert sorted(declared) == sorted(b.name for b in registered), "a BENCHMARKS module is not registered"
    for benchmark in registered:
        module = importlib.import_module(declared[benchmark.name])
        assert benchmark in module.BENCHMARKS  # the registry holds the declared object itself


def test_a_source_module_declares_its_benchmarks_in_order() -> None:
    """The registry lists modules: each module's benchmarks stay together, in their declared order."""
    names = [b.name for b in benchmarks()]
    for module in _modules():
        own = [b.name for b in getattr(module, "BENCHMARKS", ())]
        if own:
            start = names.index(own[0])
            assert names[start : start + len(own)] == own, module.__name__


def test_no_module_of_the_package_exceeds_the_size_rule() -> None:
    folder = Path(faceteval.datasets.__file__).parent
    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in folder.glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
