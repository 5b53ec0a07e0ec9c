"""Doctests collected from a module's source, its module imported only when one of them runs.

``--doctest-modules`` imports every module of ``src`` and ``tests`` to list its doctests, and with them the
libraries they import at their top (scikit-learn, skops, deepeval...): most of the suite's collection time.
`LazyDoctestModule` lists the same doctests from the module's syntax tree: the docstrings, holding
examples, of the module and of the functions, classes, methods and properties defined at its top and in
its classes (where `doctest.DocTestFinder` looks). When a doctest runs, its module is imported as
pytest imports it and the doctest run is the one `doctest.DocTestFinder` finds there under the same name;
a name the finder does not find fails the test, naming the doctest and the names it found.
``tests/unit/test_collection.py`` checks that the two lists agree for every module.

A module defining fixtures is collected as pytest collects it (its doctests may use them).
"""

from __future__ import annotations

import ast
import doctest
import functools
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _pytest.doctest import (
    DoctestItem,
    DoctestModule,
    _get_checker,
    _get_continue_on_failure,
    _get_runner,
    get_optionflags,
)
from _pytest.pathlib import CouldNotResolvePathError, module_name_from_path, resolve_pkg_root_and_module_name

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def docstrings(tree: ast.Module, module: str) -> Iterator[tuple[str, str, int]]:
    """The name, docstring and line of each docstring `doctest.DocTestFinder` looks at, from the syntax tree.

    Examples:
        >>> tree = ast.parse('"m"\\ndef f():\\n    "f"\\nclass C:\\n    def g(self):\\n        "g"')
        >>> [name for name, _, _ in docstrings(tree, "mod")]
        ['mod', 'mod.f', 'mod.C.g']
    """
    text = ast.get_docstring(tree, clean=False)
    if text is not None:
        yield module, text, 0
    yield from _definitions(tree.body, module)


def _definitions(body: Iterable[ast.stmt], prefix: str) -> Iterator[tuple[str, str, int]]:
    for node in _flattened(body):
        if isinstance(node, _DEFINITIONS):
            name = f"{prefix}.{node.name}"
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                yield name, text, node.lineno - 1
            if isinstance(node, ast.ClassDef):
                yield from _definitions(node.body, name)


def _flattened(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body``, those of its ``if`` and ``try`` blocks in their place."""
    for node in body:
        if isinstance(node, ast.If):
            yield from _flattened([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            yield from _flattened([*node.body, *node.orelse, *node.finalbody])
            for handler in node.handlers:
                yield from _flattened(handler.body)
        else:
            yield node


def source_doctests(path: Path, module: str) -> list[doctest.DocTest]:
    """The doctests with examples of the module at ``path`` named ``module``, from its source, by name."""
    parser = doctest.DocTestParser()
    found: dict[str, doctest.DocTest] = {}
    for name, text, line in docstrings(ast.parse(path.read_bytes(), str(path)), module):
        test = parser.get_doctest(text, {}, name, str(path), line)
        if test.examples:
            found.setdefault(name, test)
    return sorted(found.values(), key=lambda test: test.name)


class _Finder(doctest.DocTestFinder):
    """`doctest.DocTestFinder`, counting a ``functools.cached_property`` in its module as pytest's does."""

    def _from_module(self, module: Any, object: Any) -> bool:
        if isinstance(object, functools.cached_property):
            object = object.func
        return bool(super()._from_module(module, object))  # type: ignore[misc]


def imported_doctests(module: ModuleType) -> dict[str, doctest.DocTest]:
    """The doctests with examples `doctest.DocTestFinder` finds in the imported ``module``, by name."""
    return {test.name: test for test in _Finder().find(module, module.__name__) if test.examples}


def module_name(path: Path, config: pytest.Config) -> str:
    """The name pytest's importlib import mode gives the module at ``path``."""
    try:
        consider = bool(config.getini("consider_namespace_packages"))
        return resolve_pkg_root_and_module_name(path, consider_namespace_packages=consider)[1]
    except CouldNotResolvePathError:
        return module_name_from_path(path, config.rootpath)


class LazyDoctestModule(DoctestModule):
    """A module's doctests, listed from its source: the module is imported when one of them runs."""

    def collect(self) -> Iterable[DoctestItem]:
        source = self.path.read_text(encoding="utf-8")
        if ">>>" not in source:
            return []
        if "pytest.fixture" in source:
            return super().collect()
        tests = source_doctests(self.path, module_name(self.path, self.config))
        if not tests:
            return []
        runner = _runner(self.config)
        return [LazyDoctestItem.from_parent(self, name=t.name, runner=runner, dtest=t) for t in tests]


class LazyDoctestItem(DoctestItem):
    """A doctest whose module is imported, and whose examples are found in it, when it runs."""

    def setup(self) -> None:
        found = imported_doctests(self.parent.obj)  # type: ignore[union-attr]
        if self.name not in found:
            pytest.fail(
                f"doctest {self.name} was listed from {self.path}'s source, but doctest finds no such"
                f" doctest in the imported module (it finds {sorted(found) or 'none'}): the module makes"
                " its names other than by the definitions in its source; have tests/support/doctests.py"
                " list that module as pytest does",
                pytrace=False,
            )
        self.dtest = found[self.name]
        super().setup()


def _runner(config: pytest.Config) -> doctest.DocTestRunner:
    """The runner pytest makes for a module's doctests."""
    return _get_runner(
        verbose=False,
        optionflags=get_optionflags(config),
        checker=_get_checker(),
        continue_on_failure=_get_continue_on_failure(config),
    )
