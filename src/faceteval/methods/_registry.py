"""Methods by name: the built-in families' specs, those registered in Python, and plugins' entry points.

A method of another package registers with `register_method`, or through an entry point of the group
``faceteval.methods`` naming its `MethodSpec` (or a sequence of them)::

    [project.entry-points."faceteval.methods"]
    toy = "toy_method:SPEC"

Entry points are loaded on the first question to the registry, not when faceteval is imported; one
that cannot be loaded is left out with a warning naming it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from importlib import metadata
from typing import Any

from faceteval._util.text import did_you_mean
from faceteval.errors import ConfigError
from faceteval.methods import baselines, coeval, dna, fennec, hdeval
from faceteval.methods._base import Method
from faceteval.methods._spec import DEFAULT_SWEEP, MethodSpec, Sweep
from faceteval.prompts import add_templates
from faceteval.store.internal import register_record_kinds

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "faceteval.methods"
"""The entry-point group other packages register methods under."""

_FAMILIES = (baselines, dna, coeval, fennec, hdeval)
"""The built-in families; each module's ``SPECS`` are registered, in this order."""
DEFAULT_METHOD = "dna"
"""The method ``judge`` uses when none is named."""

_SPECS: dict[str, MethodSpec] = {}
_plugins_loaded = False


def register_method(spec: MethodSpec) -> None:
    """Add ``spec``'s method to the registry (its template folders to the prompts', its record kinds to
    the store's).

    Registering the same spec again does nothing.

    Raises:
        ConfigError: ``spec`` is not a `MethodSpec`, another spec has its name, or a template folder of
            it clashes with one registered.
    """
    if not isinstance(spec, MethodSpec):
        raise ConfigError(f"register_method takes a MethodSpec, got {type(spec).__name__}")
    known = _SPECS.get(spec.name)
    if known is spec:
        return
    if known is not None:
        raise ConfigError(f"a method named {spec.name!r} is registered already")
    for folder in spec.templates:
        add_templates(folder.prefix, folder.package, folder.folder)
    for target in spec.records:
        register_record_kinds(target)
    _SPECS[spec.name] = spec


def method_specs() -> list[MethodSpec]:
    """Every registered method's spec: the built-in ones first, in order, then others as registered."""
    _load_plugins()
    return list(_SPECS.values())


def method_names() -> list[str]:
    """Names of the registered methods."""
    return [spec.name for spec in method_specs()]


def method_spec(name: str) -> MethodSpec:
    """The spec of the method ``name``.

    Raises:
        ConfigError: No method of that name is registered.
    """
    _load_plugins()
    try:
        return _SPECS[name]
    except KeyError:
        hint = did_you_mean(name, _SPECS)
        raise ConfigError(f"unknown method {name!r}{hint}; known: {', '.join(_SPECS)}") from None


def find_method_spec(name: object) -> MethodSpec | None:
    """The spec of the method ``name`` if one is registered (a record's method may not be), else None."""
    _load_plugins()
    return _SPECS.get(name) if isinstance(name, str) else None


def sweep_of(name: object) -> Sweep:
    """How the method ``name`` names a sweep in reports; `DEFAULT_SWEEP` for one without a sweep."""
    spec = find_method_spec(name)
    swept = spec.sweep if spec is not None else None
    return swept[1] if swept is not None else DEFAULT_SWEEP


def create_method(name: str, **params: Any) -> Method:
    """Build the method ``name`` with ``params`` (``{name, params}`` from a run record rebuilds it)."""
    return method_spec(name).factory(**params)


def _load_plugins() -> None:
    """Register the specs the ``faceteval.methods`` entry points name, once."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        where = f"{entry.name} = {entry.value}"
        try:
            loaded = entry.load()
            specs = list(loaded) if isinstance(loaded, Iterable) else [loaded]
            for spec in specs:
                register_method(spec)
        except Exception as exc:  # a plugin's bug or missing dependency: the others still load
            logger.warning("method plugin %s could not be loaded: %s: %s", where, type(exc).__name__, exc)


for _family in _FAMILIES:
    for _spec in _family.SPECS:
        register_method(_spec)
