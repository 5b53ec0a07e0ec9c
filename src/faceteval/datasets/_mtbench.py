"""Placeholder: filled in by its loader."""

from faceteval.datasets._benchmark import Benchmark

BENCHMARKS: tuple[Benchmark, ...] = ()
