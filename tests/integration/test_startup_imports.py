"""What the light commands import: none of the heavy libraries a command that needs them imports when it runs.

Each command runs in a child process of its own, through the CLI's entry point, in a working directory
with no faceteval.toml; the child then writes the names of every module it imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import SRC

HEAVY = (
    "datasets",
    "matplotlib",
    "numpy",
    "pandas",
    "pyarrow",
    "scipy",
    "sentence_transformers",
    "skops",
    "sklearn",
    "torch",
)
"""Libraries that take from a tenth of a second to seconds of CPU to import, and no light command uses."""
SDKS = ("aiohttp", "anthropic", "openai")
WEB = ("opentelemetry", "starlette", "uvicorn")
NOTHING = HEAVY + SDKS + WEB + ("jinja2", "faceteval._runner", "faceteval.methods")
"""What `--version` needs none of: no command is loaded, no method found, no prompt rendered."""

_CHILD = """
import json, sys
out, *args = sys.argv[1:]
sys.argv = ["faceteval", *args]
from faceteval._cli import main
try:
    main()
    code = 0
except SystemExit as exc:
    code = exc.code
with open(out, "w") as handle:
    json.dump({"code": code, "modules": sorted(sys.modules)}, handle)
"""


def imported(tmp_path: Path, *args: str) -> tuple[int, set[str], str]:
    """The exit status, the modules imported and the output (stdout and stderr) of `faceteval ARGS` run
    in its own process in ``tmp_path``."""
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("FACETEVAL_MODEL", None)
    command = [sys.executable, "-c", _CHILD, str(out), *args]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.is_file(), done.stdout + done.stderr
    written = json.loads(out.read_text())
    return written["code"], set(written["modules"]), done.stdout + done.stderr


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """Those of the modules ``names`` of which ``modules`` holds a module."""
    return sorted(name for name in names if any(m == name or m.startswith(name + ".") for m in modules))


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    rows = [{"id": "a", "query": "Explain rain.", "candidates": ["Water falls.", "It is wet."], "label": 1}]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_version_loads_no_command(tmp_path: Path) -> None:
    code, modules, output = imported(tmp_path, "--version")
    assert (code, output.strip()) == (0, "faceteval, version " + output.split()[-1])
    assert loaded(modules, NOTHING) == []


def test_criteria_show_of_a_tree_file_imports_no_heavy_library(tmp_path: Path) -> None:
    tree = tmp_path / "small.yaml"
    tree.write_text("task: summarization\ncriteria: [{name: coherence, description: well organised}]\n")
    code, modules, output = imported(tmp_path, "criteria", "show", str(tree))
    assert code == 0, output
    assert "coherence" in output and "well organised" in output  # the file was read and shown
    assert loaded(modules, HEAVY + SDKS + WEB) == []


def test_judge_of_an_empty_input_imports_the_sdk_it_uses_and_no_heavy_library(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    engine = ["--model", "openai:judge", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k"]
    code, modules, output = imported(tmp_path, "judge", "empty.jsonl", *engine, "--out", "j.jsonl")
    assert code == 1 and "empty.jsonl holds no instance to judge" in output, output
    assert loaded(modules, HEAVY + WEB) == []
    assert loaded(modules, SDKS) == ["aiohttp", "openai"]  # the openai SDK's own transport


def test_a_dry_run_imports_no_heavy_library(tmp_path: Path, pairs: Path) -> None:
    code, modules, output = imported(tmp_path, "judge", str(pairs), "--model", "openai:judge", "--dry-run")
    assert code == 0 and "No LLM was called" in output and "1 instance;" in output, output
    assert loaded(modules, HEAVY + WEB) == []
    assert loaded(modules, SDKS) == ["aiohttp", "openai"]  # the provider names the endpoint in cache keys
