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


def test_the_layers_name_packages_and_leave_none_out() -> None:
    # every package is placed whole: the layers contract is exhaustive with no exceptions, and no layer
    # reaches into a package for some of its modules
    layers = contract("layers")
    tops = [tail.strip() for layer in layers["layers"] for tail in re.split(r"[|:]", layer)]

    assert layers["exhaustive"] is True
    assert "exhaustive_ignores" not in layers
    assert all("." not in top for top in tops), tops


def test_an_import_made_only_for_types_counts_against_the_layers(tmp_path: Path) -> None:
    copy = tmp_path / "src"
    shutil.copytree(SRC / "faceteval", copy / "faceteval", ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "faceteval" / "store" / "_record.py").open("a", encoding="utf-8") as handle:
        handle.write("\nif TYPE_CHECKING:\n    from faceteval.workflows.fennec import Correction\n")

    result = lint_imports(copy, tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    assert verdicts(result.stdout)[contract("layers")["name"]] == "BROKEN"
    assert "faceteval.store._record -> faceteval.workflows" in result.stdout


def test_every_method_family_is_named_by_the_families_contract() -> None:
    families = {
        f"faceteval.methods.{path.parent.name}"
        for path in (SRC / "faceteval" / "methods").glob("*/__init__.py")
        if not path.parent.name.startswith("_")
    }

    assert set(contract("families")["forbidden_modules"]) == families | {"faceteval.workflows"}
