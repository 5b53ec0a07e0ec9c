"""Methods by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from faceteval.errors import ConfigError
from faceteval.hdeval._method import HierarchyAware
from faceteval.methods._base import Method
from faceteval.methods._coeval import CoEval, CoEvalDirect
from faceteval.methods._dna import DnA
from faceteval.methods._fennec import Fennec
from faceteval.methods._holistic import CoT, Direct

_METHODS: dict[str, Callable[..., Method]] = {
    "direct": Direct,
    "cot": CoT,
    "dna": DnA,
    "coeval": CoEval,
    "coeval-direct": CoEvalDirect,
    "fennec": Fennec,
    "hdeval": HierarchyAware,
}


def method_names() -> list[str]:
    """Names of the registered methods."""
    return list(_METHODS)


def create_method(name: str, **params: Any) -> Method:
    """Build the method ``name`` with ``params`` (``{name, params}`` from a run record rebuilds it)."""
    try:
        factory = _METHODS[name]
    except KeyError:
        raise ConfigError(f"unknown method {name!r}; known: {', '.join(_METHODS)}") from None
    return factory(**params)
