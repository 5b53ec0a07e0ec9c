"""The examples run as shown: against a local OpenAI-compatible server answered by a stand-in for a model
(`tests.support.example_judge`), each as a child process, on the example data and the benchmark data
`make test` names."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import example_judge
from tests.support.llm_server import LLMServer
from tests.support.processes import SRC

ROOT = SRC.parent

EXAMPLES = ROOT / "examples"
MODEL = "openai:Qwen/Qwen2.5-7B-Instruct"
TESTED = {"demo.py": "tests/integration/test_demo.py", "judge_pairs.py": __file__, "python_api.py": __file__}


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer(example_judge.respond) as running:
        yield running


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A directory holding the example data, as a user's own files would be."""
    for name in ("pairs.jsonl", "outputs.jsonl", "criteria.yaml"):
        shutil.copy(EXAMPLES / "data" / name, tmp_path / name)
    return tmp_path


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    data_dir = os.environ.get("FACETEVAL_DATA_DIR")
    if not data_dir:
        pytest.fail("FACETEVAL_DATA_DIR must name the benchmark data (make test sets it)")
    return {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "FACETEVAL_CACHE": str(tmp_path / "responses.sqlite"),
        "FACETEVAL_DATA_DIR": data_dir,
        "COLUMNS": "100",
        **extra,
    }


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_every_example_is_run_by_a_test() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == set(TESTED)


def test_judge_pairs_judges_the_example_pairs_and_a_second_run_makes_no_call(
    server: LLMServer, workdir: Path
) -> None:
    argv = [sys.executable, str(EXAMPLES / "judge_pairs.py"), server.base_url, MODEL]
    first = run(argv, workdir, environment(workdir))
    assert first.returncode == 0, first.stderr
    assert first.stdout.count(": ok, verdict") == 8
    assert first.stdout.count("human label") == 8 and "orders agree: True" in first.stdout
    calls = len(server.requests)
    again = run(argv, workdir, environment(workdir))
    assert again.returncode == 0 and again.stdout == first.stdout
    assert len(server.requests) == calls  # every reply came from responses.sqlite


def test_judge_pairs_names_a_server_that_is_not_there_in_one_line(workdir: Path) -> None:
    argv = [sys.executable, str(EXAMPLES / "judge_pairs.py"), "http://127.0.0.1:9/v1", MODEL]
    done = run(argv, workdir, environment(workdir))
    assert done.returncode == 1
    assert (
        done.stderr.startswith("error: cannot connect to http://127.0.0.1:9/v1")
        and "Traceback" not in done.stderr
    )


def test_the_python_api_tour_runs_every_part(server: LLMServer, workdir: Path) -> None:
    done = run(
        [sys.executable, str(EXAMPLES / "python_api.py"), server.base_url, MODEL],
        workdir,
        environment(workdir),
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("calls planned") == 2
    for method in ("direct", "cot", "dna", "fennec"):
        assert re.search(rf"^{method} +verdicts .*'sum': \(\d, True\)", out, re.MULTILINE), out
    assert "dna facet Correctness: weight 0.75" in out and "dna facet Concision: weight 0.25" in out
    assert "streamed 8 judgments ({'ok': 8})" in out
    assert "ProviderUnreachableError: cannot connect to http://127.0.0.1:9/v1" in out
