"""The public surface, held on purpose: each public package's ``__all__`` against a checked-in snapshot;
every exported name exists; plumbing stays in the packages' ``internal`` seams; the documentation and
the examples use public names only.

A surface change is a decision: when one of these tests fails because a name was added, removed or
moved on purpose, update the snapshots with

    FACETEVAL_UPDATE_API_SNAPSHOTS=1 python -m pytest tests/unit/api

and commit them with the change (the diff of ``tests/unit/api/snapshots/`` is the change of the API).
The checks read the source, importing nothing, so the optional extras need not be installed.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SRC = ROOT / "src"
SNAPSHOTS = Path(__file__).with_name("snapshots")
UPDATE = "FACETEVAL_UPDATE_API_SNAPSHOTS"
UPDATING = bool(os.environ.get(UPDATE))  # read at import: the tests' environment is cleaned of FACETEVAL_*

PUBLIC = [
    "faceteval",
    "faceteval.aggregation",
    "faceteval.batch",
    "faceteval.core",
    "faceteval.datasets",
    "faceteval.errors",
    "faceteval.frames",
    "faceteval.integrations.deepeval",
    "faceteval.integrations.inspect",
    "faceteval.llm",
    "faceteval.metaeval",
    "faceteval.methods",
    "faceteval.methods.baselines",
    "faceteval.methods.coeval",
    "faceteval.methods.dna",
    "faceteval.methods.fennec",
    "faceteval.methods.hdeval",
    "faceteval.metrics",
    "faceteval.parsing",
    "faceteval.prompts",
    "faceteval.report",
    "faceteval.results",
    "faceteval.review",
    "faceteval.store",
    "faceteval.testing",
    "faceteval.tracing",
    "faceteval.viewer",
    "faceteval.workflows.coeval",
    "faceteval.workflows.fennec",
    "faceteval.workflows.hdeval",
]
"""The packages whose ``__all__`` is public API: every package without an underscore in its name."""

PLUMBING = {"header", "redacted", "write_atomic", "check_outputs", "tracer", "cache_key"}
"""Helpers that other faceteval packages share, which must never be public (they live in a seam).
(`OutputKind` is public: a plugin's record kind names with one the file of lines its command writes.)"""


def source_of(module: str) -> Path:
    path = SRC.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def tree_of(module: str) -> ast.Module:
    return ast.parse(source_of(module).read_text(encoding="utf-8"))


def all_of(module: str) -> list[str]:
    for node in tree_of(module).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "__all__" and node.value is not None:
                names: list[str] = ast.literal_eval(node.value)
                return names
    raise AssertionError(f"{module} has no literal __all__")


def bound(tree: ast.Module, *, type_checking: bool) -> set[str]:
    """The names a module binds at its top level (under ``if TYPE_CHECKING:`` only if asked)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            if type_checking:
                names |= bound(ast.Module(body=node.body, type_ignores=[]), type_checking=False)
            continue
        if isinstance(node, ast.Try | ast.If):
            names |= bound(ast.Module(body=node.body, type_ignores=[]), type_checking=type_checking)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def lazy_homes(tree: ast.Module) -> dict[str, str]:
    """Each name a module imports on first use (`lazy_attributes` maps), and the module that gives it."""
    homes = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and node.keys:
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Tuple):
                    homes |= {e.value: key.value for e in value.elts if isinstance(e, ast.Constant)}
    return homes


def snapshot_diff(module: str) -> str:
    path = SNAPSHOTS / f"{module}.txt"
    now = sorted(all_of(module))
    if UPDATING:
        path.write_text("".join(f"{name}\n" for name in now), encoding="utf-8")
    before = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return "\n".join(
        difflib.unified_diff(before, now, f"{path.name} (snapshot)", f"{module}.__all__", lineterm="")
    )


@pytest.mark.parametrize("module", PUBLIC)
def test_the_public_names_are_the_snapshots(module: str) -> None:
    diff = snapshot_diff(module)

    assert not diff, (
        f"{module}.__all__ is not its snapshot:\n{diff}\n"
        f"If this change of the public API is on purpose, run {UPDATE}=1 python -m pytest tests/unit/api "
        "and commit the snapshot with it; if it is plumbing for other faceteval packages, put it in "
        f"{module}.internal instead (see docs/architecture.md)."
    )


def test_every_public_package_has_a_snapshot_and_no_other() -> None:
    packages = sorted(
        ".".join(path.parent.relative_to(SRC).parts)
        for path in (SRC / "faceteval").rglob("__init__.py")
        if not any(part.startswith("_") for part in path.parent.relative_to(SRC).parts)
        and "__all__" in path.read_text(encoding="utf-8")
    )
    assert sorted([*packages, "faceteval.errors"]) == PUBLIC
    assert sorted(path.stem for path in SNAPSHOTS.glob("*.txt")) == PUBLIC


def gives(module: str, name: str) -> bool:
    """Whether ``module`` binds ``name``, at once or on first use (from a module that gives it)."""
    tree = tree_of(module)
    if name in bound(tree, type_checking=False):
        return True
    package = module.removesuffix(".internal")
    home = lazy_homes(tree).get(name)
    return home is not None and name in bound(tree, type_checking=True) and gives(f"{package}.{home}", name)


SEAMS = [f"{p}.internal" for p in PUBLIC if source_of(f"{p}.internal").is_file()]


@pytest.mark.parametrize("module", [*PUBLIC, *SEAMS])
def test_every_exported_name_exists(module: str) -> None:
    missing = [name for name in all_of(module) if not gives(module, name)]

    assert not missing, (
        f"{module}.__all__ names what it neither imports nor defines (nor on first use): {missing}"
    )


@pytest.mark.parametrize("module", PUBLIC)
def test_plumbing_is_not_public(module: str) -> None:
    names = set(all_of(module))
    seam = source_of(module + ".internal")

    assert not names & PLUMBING, f"{module} exports plumbing: {sorted(names & PLUMBING)}"
    assert all(not name.startswith("_") for name in names - {"__version__"}), module
    if seam.is_file():
        assert not names & set(all_of(module + ".internal")), f"{module}: exported by both it and its seam"


def _documented_imports() -> list[tuple[str, str, list[str]]]:
    """Every ``from faceteval... import ...`` in the README, docs/ and examples/: (where, module, names)."""
    found = []
    pages = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "examples").glob("*.py")),
    ]
    for page in pages:
        if page.name == "architecture.md":
            continue  # the contributors' page: it names the seams and private modules on purpose
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"from (faceteval[\w.]*) import (\([^)]*\)|[^\n]+)", text):
            names = re.findall(r"\b(\w+)(?: as \w+)?\s*(?:,|$|\))", match[2].split("#")[0].strip("() \n"))
            found.append(
                (f"{page.relative_to(ROOT)}:{text[: match.start()].count(chr(10)) + 1}", match[1], names)
            )
    return found


def test_the_documentation_uses_public_names_only() -> None:
    wrong = []
    for where, module, names in _documented_imports():
        if module.endswith(".internal") or any(part.startswith("_") for part in module.split(".")):
            wrong.append(f"{where}: {module} is not public")
        elif module in PUBLIC:
            exported = set(all_of(module))
            submodules = (
                {p.stem for p in source_of(module).parent.iterdir()}
                if module != "faceteval.errors"
                else set()
            )
            wrong += [
                f"{where}: {module}.{n} is not in its __all__"
                for n in names
                if n not in exported | submodules
            ]
    assert not wrong, "\n".join(wrong)
