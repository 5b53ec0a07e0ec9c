"""A package's names imported on first use, so that importing the package loads none of the modules behind
them (a method family's extras, the review app's web stack)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_attributes(package: str, modules: Mapping[str, Sequence[str]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports each name from its module on first use.

    Args:
        package: The package's ``__name__``.
        modules: The names each module of the package gives (``{"_correct": ("correct", ...)}``), or
            each module named in full gives (``{"faceteval.workflows.fennec": (...)}``).

    Examples:
        >>> getattr_ = lazy_attributes("json", {"decoder": ("JSONDecoder",)})
        >>> getattr_("JSONDecoder").__module__
        'json.decoder'
        >>> getattr_("missing")
        Traceback (most recent call last):
        ...
        AttributeError: module 'json' has no attribute 'missing'
    """
    homes = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = homes[name]
        named_in_full = module.partition(".")[0] == package.partition(".")[0]
        return getattr(importlib.import_module(module if named_in_full else f"{package}.{module}"), name)

    return __getattr__


def moved_attributes(package: str, home: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that gives each public name of the module ``home`` (its
    ``__all__``), imported on first use: the names that moved from ``package`` to ``home`` keep working.

    Examples:
        >>> getattr_ = moved_attributes("json", "json.decoder")
        >>> getattr_("JSONDecodeError").__name__
        'JSONDecodeError'
        >>> getattr_("missing")
        Traceback (most recent call last):
        ...
        AttributeError: module 'json' has no attribute 'missing'
    """

    def __getattr__(name: str) -> Any:
        moved = importlib.import_module(home)
        if name.startswith("_") or name not in getattr(moved, "__all__", ()):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(moved, name)

    return __getattr__
