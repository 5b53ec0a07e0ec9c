"""Names a family's package gives on first use, so that importing faceteval loads none of its extras."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports each name of ``homes`` from its module.

    Args:
        package: The package's ``__name__``.
        homes: Each name's module, relative to the package (``{"correct": "_correct"}``).

    Examples:
        >>> getattr_ = lazy_attributes("json", {"dumps": ""})
        >>> getattr_("loads")
        Traceback (most recent call last):
        ...
        AttributeError: module 'json' has no attribute 'loads'
    """

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{homes[name]}"), name)

    return __getattr__
