"""Saving a fitted aggregator in skops' format, and loading it back without ever unpickling.

A skops file records the skops protocol and, inside each estimator's state, the scikit-learn version that
fitted it (scikit-learn warns when loading under another version). Loading trusts only the types an
aggregator is built from; a file that names any other type is refused before anything is constructed.
Before skops reads anything, the file (a zip archive) is checked against `AGGREGATOR_LIMITS`: what each
member declares and what its data really inflate to (`faceteval._util.zips`), so a zip bomb is refused
having inflated no more than its largest allowed member.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from faceteval._util.zips import MIB, ZipLimits, read_zip
from faceteval.errors import FacetevalError
from faceteval.store.internal import write_atomic

__all__ = ["AGGREGATOR_LIMITS", "ALLOWED_TYPES", "load_aggregator", "save_aggregator"]

AGGREGATOR_LIMITS = ZipLimits(members=10_000, member_bytes=256 * MIB, total_bytes=1024 * MIB)
"""What an aggregator file may hold: 10,000 members, 256 MiB in one, 1 GiB in all (and the file itself),
at most 100 times its packed size past 1 MiB. `save_aggregator` writes members stored (not packed): a
random forest of 100 trees on 1,600 outputs is 17.7 MB in 301 members, its largest 1.5 MB; on 10,000
outputs, 103 MB."""

ALLOWED_TYPES: frozenset[str] = frozenset(
    {
        "faceteval.workflows.hdeval._aggregators.MeanAggregator",
        "sklearn.ensemble._forest.RandomForestRegressor",
        "sklearn.linear_model._base.LinearRegression",
        "sklearn.neural_network._multilayer_perceptron.MLPRegressor",
        "sklearn.neural_network._stochastic_optimizers.AdamOptimizer",
        "sklearn.pipeline.Pipeline",
        "sklearn.preprocessing._data.StandardScaler",
        "sklearn.tree._classes.DecisionTreeRegressor",
        "sklearn.tree._tree.Tree",
        "numpy.dtype",
        "numpy.float64",
        "numpy.int64",
        "numpy.ndarray",
        "numpy.random._mt19937.MT19937",
        "numpy.random.mtrand.RandomState",
    }
)
"""Every type a fitted aggregator of `faceteval.methods.hdeval.AGGREGATORS` may be made of."""
MOVED_MODULES = {"faceteval.hdeval._aggregators": "faceteval.workflows.hdeval._aggregators"}
"""Where the types an aggregator file of an earlier faceteval names (by module) live now."""


def save_aggregator(estimator: Any, path: Path) -> None:
    """Write a fitted aggregator to ``path`` (conventionally ``*.skops``), replacing the file whole.

    Args:
        estimator: The aggregator.
        path: Where to write it; its folder must exist.
    """
    write_atomic(path, _skops_io().dumps(estimator))


def load_aggregator(path: Path) -> Any:
    """Read an aggregator written by `save_aggregator`.

    Args:
        path: The file.

    Returns:
        The fitted aggregator.

    A file of an earlier faceteval, which names a type by a module since moved (`MOVED_MODULES`), is
    read as if written now.

    Raises:
        FacetevalError: The file cannot be read as a skops file, it breaks `AGGREGATOR_LIMITS` (a
            member larger than declared, too large or too packed: a zip bomb) or it names a type
            outside `ALLOWED_TYPES` (nothing is loaded then).
    """
    skops_io = _skops_io()
    try:
        data = _moved(read_zip(path, AGGREGATOR_LIMITS))
        untrusted = skops_io.get_untrusted_types(data=data)
    except (OSError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise FacetevalError(f"{path}: not a readable aggregator file ({exc})") from exc
    refused = sorted(set(untrusted) - ALLOWED_TYPES)
    if refused:
        raise FacetevalError(
            f"{path}: refusing to load an aggregator of untrusted types: {', '.join(refused)}"
        )
    return skops_io.load(io.BytesIO(data), trusted=untrusted)


def _skops_io() -> Any:
    """``skops.io``, imported on first use: skops imports scikit-learn (and torch, through its array-API
    shim)."""
    import skops.io  # type: ignore[import-untyped]

    return skops.io


def _moved(data: bytes) -> bytes:
    """A skops file's bytes with the modules of `MOVED_MODULES` named where they live now."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        schema = archive.read("schema.json").decode("utf-8")
        renamed = schema
        for old, new in MOVED_MODULES.items():
            renamed = renamed.replace(f'"__module__": "{old}"', f'"__module__": "{new}"')
        if renamed == schema:
            return data
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as copy:
            for item in archive.infolist():
                copy.writestr(item, renamed if item.filename == "schema.json" else archive.read(item))
    return out.getvalue()
