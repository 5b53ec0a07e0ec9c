"""Collecting the suite imports none of the heavy libraries its tests use, and lists every doctest.

The suite is collected as it is run (pyproject.toml's addopts: ``--doctest-modules`` over ``src`` and
``tests``) in a child process of its own, which then writes the names of every module it imported.
scikit-learn, and scipy and pandas with it, are imported: `test_aggregators` parametrizes over the
checks scikit-learn lists for each aggregator.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.pathlib import import_path

from tests.support.doctests import imported_doctests, module_name, source_doctests
from tests.support.processes import SRC

ROOT = SRC.parent
HEAVY = (
    "anthropic",
    "datasets",
    "deepeval",
    "inspect_ai",
    "opentelemetry.proto",
    "opentelemetry.sdk",
    "playwright",
    "polars",
    "ray",
    "sentence_transformers",
    "skops",
    "textual",
    "torch",
    "transformers",
)
"""Libraries that take from a tenth of a second to seconds of CPU to import, and that a test needs only
when it runs."""

_CHILD = """
import json, sys
import pytest
out = sys.argv[1]
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider"])
with open(out, "w") as handle:
    json.dump({"code": int(code), "modules": sorted(sys.modules)}, handle)
"""


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """Those of the modules ``names`` of which ``modules`` holds a module."""
    return sorted(name for name in names if any(m == name or m.startswith(name + ".") for m in modules))


@pytest.mark.slow
def test_collecting_the_suite_imports_no_heavy_library(tmp_path: Path) -> None:
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(SRC), str(ROOT)))}
    command = [sys.executable, "-c", _CHILD, str(out)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert out.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    written = json.loads(out.read_text())
    assert written["code"] == 0, done.stdout[-3000:]
    assert loaded(set(written["modules"]), HEAVY) == []


def _with_doctests() -> list[Path]:
    """Every module of ``src`` and ``tests`` whose source holds ``>>>``, but those defining fixtures
    (collected as pytest collects them)."""
    found = []
    for path in sorted([*(ROOT / "src").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]):
        source = path.read_text(encoding="utf-8")
        if ">>>" in source and "pytest.fixture" not in source and path.name != "conftest.py":
            found.append(path)
    return found


def test_the_doctests_listed_from_the_source_are_those_doctest_finds_in_the_module(
    pytestconfig: pytest.Config,
) -> None:
    modules = _with_doctests()
    assert len(modules) > 100  # src's modules with examples among them
    differing = {}
    for path in modules:
        listed = [test.name for test in source_doctests(path, module_name(path, pytestconfig))]
        module = import_path(
            path, mode="importlib", root=pytestconfig.rootpath, consider_namespace_packages=False
        )
        found = sorted(imported_doctests(module))
        if listed != found:
            differing[str(path.relative_to(ROOT))] = (listed, found)
    assert differing == {}


def test_a_docstring_is_listed_where_doctest_looks_for_it(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    """The module, its functions and classes, and their methods and properties, also inside ``if`` and
    ``try``; not functions inside functions, nor docstrings without examples."""
    path = tmp_path / "listed.py"
    path.write_text(
        '"""\\n>>> 1\\n1\\n"""\n'
        "def f():\n    '>>> 2\\n2'\n    def inner():\n        '>>> 3\\n3'\n"
        "class C:\n    '>>> 4\\n4'\n"
        "    @property\n    def p(self):\n        '>>> 5\\n5'\n"
        "    @staticmethod\n    def s():\n        '>>> 6\\n6'\n"
        "    class Inner:\n        def m(self):\n            '>>> 8\\n8'\n"
        "    def plain(self):\n        'no examples'\n"
        "if True:\n    def g():\n        '>>> 9\\n9'\n"
        "try:\n    def h():\n        '>>> 10\\n10'\nexcept ImportError:\n    pass\n",
        encoding="utf-8",
    )
    module = import_path(path, mode="importlib", root=tmp_path, consider_namespace_packages=False)
    name = module.__name__
    listed = [test.name for test in source_doctests(path, name)]
    expected = ["", ".C", ".C.Inner.m", ".C.p", ".C.s", ".f", ".g", ".h"]
    assert listed == [name + suffix for suffix in expected]
    assert sorted(imported_doctests(module)) == listed
