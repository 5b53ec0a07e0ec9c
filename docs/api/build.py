"""Build the API reference: HTML pages of faceteval's public packages, from their docstrings, with pdoc.

    python docs/api/build.py [OUT]        (``make docs-api``; OUT defaults to build/api)

Only the public surface is documented: each package's ``__all__`` (its names imported on first use
included), never a private module or an ``internal`` seam. Exits 1, saying why, if pdoc warned of
anything (a name in an ``__all__`` that does not resolve, a docstring it cannot read).
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path

PACKAGES = [
    "faceteval",
    "faceteval.errors",
    "faceteval.core",
    "faceteval.llm",
    "faceteval.methods",
    "faceteval.methods.baselines",
    "faceteval.methods.dna",
    "faceteval.methods.coeval",
    "faceteval.methods.fennec",
    "faceteval.methods.hdeval",
    "faceteval.datasets",
    "faceteval.results",
    "faceteval.metrics",
    "faceteval.aggregation",
    "faceteval.metaeval",
    "faceteval.store",
    "faceteval.frames",
    "faceteval.batch",
    "faceteval.tracing",
    "faceteval.prompts",
    "faceteval.parsing",
    "faceteval.report",
    "faceteval.testing",
    "faceteval.integrations.inspect",
    "faceteval.integrations.deepeval",
]
"""The packages the documentation presents to users (docs/python.md and the pages it links)."""


UNEVALUABLE = ("type 'array.array' is not subscriptable",)
"""Warnings of annotations this Python cannot evaluate, that pdoc then shows as written: ``array[int]``
(generic for type checkers, subscriptable at run time from Python 3.12)."""


def resolve_lazy(name: str) -> None:
    """Put each of a package's names imported on first use into its namespace, where pdoc looks."""
    module = importlib.import_module(name)
    for attribute in getattr(module, "__all__", []):
        if attribute not in vars(module):
            setattr(module, attribute, getattr(module, attribute))


def build(out: Path) -> list[str]:
    """Write the reference into ``out``; the warnings pdoc gave."""
    import pdoc
    import pdoc.render

    for name in PACKAGES:
        resolve_lazy(name)
    pdoc.render.configure(docformat="google", footer_text="faceteval", search=True, show_source=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*PACKAGES, output_directory=out)
    return [str(w.message) for w in caught if not str(w.message).endswith(UNEVALUABLE)]


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("build/api")
    problems = build(out)
    for problem in problems:
        sys.stderr.write(f"docs/api/build.py: {problem}\n")
    if problems:
        return 1
    sys.stdout.write(f"API reference: {out / 'index.html'}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
