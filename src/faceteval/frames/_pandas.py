"""pandas, imported when a table is first asked for (``faceteval[pandas]``)."""

from __future__ import annotations

from types import ModuleType

from faceteval.errors import MissingDependencyError


def import_pandas(feature: str) -> ModuleType:
    """The pandas module, for ``feature`` (named in the error when pandas is not installed).

    Raises:
        MissingDependencyError: pandas is not installed.
    """
    try:
        import pandas
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "pandas":
            raise
        raise MissingDependencyError(feature, extra="pandas") from exc
    module: ModuleType = pandas
    return module
