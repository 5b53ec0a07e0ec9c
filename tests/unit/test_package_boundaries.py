"""Package boundaries: the import contracts of pyproject.toml hold, and each catches what it forbids.

`make lint` runs the contracts with ``lint-imports``; CI runs only the tests, so they run here too, in a
child process on this checkout's source. Each contract is then shown to bite: a copy of the source
with one import that breaks it fails that contract alone, naming the import.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
SRC = ROOT / "src"
CONTRACTS: list[dict[str, Any]] = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"][
    "importlinter"
]["contracts"]
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def contract(contract_id: str) -> dict[str, Any]:
    return next(entry for entry in CONTRACTS if entry["id"] == contract_id)


def lint_imports(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` with pyproject.toml's contracts, over the faceteval found in ``src``."""
    path = os.pathsep.join(p for p in (str(src), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, str(PYPROJECT), "--no-cache", "--no-logo"],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def verdicts(output: str) -> dict[str, str]:
    """Each contract's name and whether it was ``KEPT`` or ``BROKEN``, from ``lint-imports``' output."""
    flat = " ".join(output.split())  # long contract names are wrapped to the terminal's width
    return {
        entry["name"]: found[1]
        for entry in CONTRACTS
        if (found := re.search(re.escape(entry["name"]) + r" (KEPT|BROKEN)", flat))
    }


def test_the_import_contracts_are_kept() -> None:
    result = lint_imports(SRC, ROOT)

    assert result.returncode == 0, result.stdout + result.stderr
    assert verdicts(result.stdout) == {entry["name"]: "KEPT" for entry in CONTRACTS}


BREAKS = {
    # core is the bottom of the data model: it may not import the reports above it
    "layers": (
        "core/_instance.py",
        "from faceteval.report import Table",
        "faceteval.core._instance -> faceteval.report",
    ),
    # the CLI may use report, but through its package, not a private module of it
    "private": (
        "_cli/_judge.py",
        "from faceteval.report._plots import plot_label",
        "faceteval._cli._judge -> faceteval.report._plots",
    ),
    # a report reads MethodSpecs; it may not name a method family
    "families": (
        "report/_run.py",
        "from faceteval.methods.dna import DnA",
        "faceteval.report._run -> faceteval.methods.dna",
    ),
}


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_each_contract_catches_an_import_it_forbids(tmp_path: Path, broken: str) -> None:
    module, statement, reported = BREAKS[broken]
    copy = tmp_path / "src"
    shutil.copytree(SRC / "faceteval", copy / "faceteval", ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "faceteval" / module).open("a", encoding="utf-8") as handle:
        handle.write(f"\n{statement}\n")

    result = lint_imports(copy, tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    expected = {entry["name"]: "BROKEN" if entry["id"] == broken else "KEPT" for entry in CONTRACTS}
    assert verdicts(result.stdout) == expected, result.stdout
    assert reported in result.stdout


def modules_under(package: Path, name: str) -> list[str]:
    """Every module of the package at ``package`` (named ``name``), subpackages included."""
    found = [name]
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found.append(".".join((name, *parts)))
    return sorted(set(found))


def unlayered(modules: Iterable[str], layers: Mapping[str, Any]) -> list[str]:
    """The modules no layer of the ``layers`` contract holds, but a family's package itself (its
    __init__, which the registry imports, so that what it imports is checked through the registry's
    layer) and ``faceteval.methods``."""
    (container,) = layers["containers"]
    listed = [
        f"{container}.{tail.strip().strip('()')}"
        for layer in layers["layers"]
        for tail in re.split(r"[|:]", layer)
    ]
    glue = re.compile(rf"{re.escape(container)}\.methods(\.[a-z]\w*)?")
    return [
        module
        for module in modules
        if not glue.fullmatch(module)
        and not any(module == top or module.startswith(f"{top}.") for top in listed)
    ]


def test_every_module_of_the_method_families_has_a_layer() -> None:
    # `methods` is placed module by module (its families span the layers), so import-linter's own
    # exhaustive check leaves it out; a module added to a family without a layer would go unchecked.
    modules = modules_under(SRC / "faceteval" / "methods", "faceteval.methods")

    assert "faceteval.methods.hdeval._cli._commands" in modules
    assert unlayered(modules, contract("layers")) == []


def test_a_module_without_a_layer_is_found() -> None:
    modules = [
        "faceteval.methods",
        "faceteval.methods.dna",
        "faceteval.methods.dna._method",
        "faceteval.methods.dna._new",
    ]

    assert unlayered(modules, contract("layers")) == ["faceteval.methods.dna._new"]


def test_every_method_family_is_named_by_the_families_contract() -> None:
    families = {
        f"faceteval.methods.{path.parent.name}"
        for path in (SRC / "faceteval" / "methods").glob("*/__init__.py")
        if not path.parent.name.startswith("_")
    }

    assert set(contract("families")["forbidden_modules"]) == families
