"""The README's commands and Python, and the examples it points to, run as shown: against a local
OpenAI-compatible server answered by a stand-in for a model (`tests.support.example_judge`), each as a
child process, on the example data and the benchmark data `make test` names."""

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
from tests.support.markdown import ROOT, Step, code_blocks, console_steps
from tests.support.processes import SRC

README = ROOT / "README.md"
EXAMPLES = ROOT / "examples"
SHOWN_URL = "http://127.0.0.1:8000/v1"
"""The server address the README and the examples show (vLLM's default); the tests' server is elsewhere."""
MODEL = "openai:Qwen/Qwen2.5-7B-Instruct"
TESTED = {
    "dataframes.py": "tests/integration/test_frames.py",
    "deepeval_metric.py": "tests/integration/test_deepeval.py",
    "demo.py": "tests/integration/test_demo.py",
    "inspect_task.py": "tests/integration/test_inspect_eval.py",
    "judge_pairs.py": __file__,
    "judge_table.py": __file__,
    "python_api.py": __file__,
    "test_release_gate.py": "tests/integration/test_pytest_plugin.py",
    "tracing.py": "tests/integration/test_tracing.py",
}


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer(example_judge.respond) as running:
        yield running


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A directory holding the example data, as a user's own files would be."""
    for name in ("pairs.jsonl", "outputs.jsonl", "criteria.yaml", "llmbar-sample.jsonl"):
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


def words(line: str) -> str:
    """A line as its words: the same whatever the width of its columns."""
    return " ".join(line.split())


def test_every_example_is_run_by_a_test() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == set(TESTED)


def test_the_readme_commands_run_as_shown(server: LLMServer, workdir: Path) -> None:
    steps = console_steps(README)
    assert len(steps) >= 12 and any(step.argv[:2] == ("faceteval", "meta-eval") for step in steps)
    env = environment(workdir)
    for step in steps:
        argv = [arg.replace(SHOWN_URL, server.base_url) for arg in step.argv]
        if argv[0] == "export":
            env |= dict(arg.split("=", 1) for arg in argv[1:])
            continue
        if argv[:2] == ["make", "live"]:  # a real model's: tests/live/test_make_live.py runs it
            continue
        assert argv[0] == "faceteval", step
        done = run([sys.executable, "-m", "faceteval", *argv[1:]], workdir, env)
        assert done.returncode == 0, f"{' '.join(step.argv)}\n{done.stdout}\n{done.stderr}"
        _shows(step, done.stdout + done.stderr)
    assert (workdir / "runs" / "dna" / "report.html").is_file()
    assert (workdir / "eli5" / "summary.json").is_file()


def _shows(step: Step, output: str) -> None:
    """Every line the README shows under a command is one the command prints (the stand-in server's
    replies are the same on every run, so the numbers are too; columns may be wider or narrower)."""
    printed = {words(line) for line in output.splitlines()}
    for line in step.output:
        assert words(line) in printed, f"{' '.join(step.argv)} no longer prints {line!r}:\n{output}"


def test_the_readme_python_runs_as_shown(server: LLMServer, workdir: Path) -> None:
    (snippet,) = [block for block in code_blocks(README, "python") if "judge(" in block]
    script = workdir / "snippet.py"
    script.write_text(snippet.replace(SHOWN_URL, server.base_url), encoding="utf-8")
    done = run([sys.executable, str(script)], workdir, environment(workdir))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 8 and all(" ok " in line for line in lines), done.stdout


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


def test_judge_table_judges_a_csv_by_its_columns_and_alpacaeval_annotations_by_preset(
    server: LLMServer, tmp_path: Path
) -> None:
    done = run(
        [sys.executable, str(EXAMPLES / "judge_table.py"), server.base_url, MODEL],
        tmp_path,
        environment(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert sum(": ok: verdict" in line and "human label" in line for line in out) == 8
    assert (  # line 12 of the file: the haiku's quoted line breaks are lines too
        f"pairs.csv line-12: error: invalid input: {EXAMPLES / 'data' / 'pairs.csv'}:12: field 'winner'"
        in done.stdout
    )
    systems = [line for line in out if line.startswith("alpacaeval.json system ")]
    assert sorted(line.split()[2] for line in systems) == ["base:", "tuned:"]
    assert "DataFrame: 8 of 9 rows read as instances" in out


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
