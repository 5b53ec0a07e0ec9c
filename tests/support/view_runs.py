"""Runs of every kind, made by the real commands, and a real `faceteval view` process, for the viewer's tests.

The judge run judges five pairs of two systems (A and B, named by each pair) with DnA-Eval in both
orders, against the local LLM server answering by rule: one pair is judged inconsistently (a
first-position bias breaks its tie), two disagree with their human label, and one (a candidate the
judge will not score) is a parse error. Its input holds a candidate with HTML and script, to be shown
as text. Its result: A won 2, tied 1, lost 1 (62.5% with ties counted half); B the reverse.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval._cli._failures import FAILURES_EXIT
from tests.support.bridge_judge import BridgeJudge
from tests.support.fennec_judge import FennecJudge
from tests.support.llm_server import LLMServer
from tests.support.processes import SRC, stop, wait_until_answering
from tests.support.review_project import free_port
from tests.support.rule_judge import RuleJudge, stage_of

HOSTILE = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"> Rain falls.'
UNREADABLE = "I would rather not say."
"""What the judge answers when asked to score the candidate ``garbled``."""
PAIRS = [
    {"id": "p1", "query": "Explain rain.", "candidates": ["good", "weak"], "label": 1},
    {"id": "p2", "query": "Name a prime.", "candidates": ["poor", "fine"], "label": 2},
    {"id": "p3", "query": "Explain snow.", "candidates": ["fine", "fine too"], "label": 1},
    {"id": "p4", "query": "Explain hail.", "candidates": ["garbled", "good"], "label": 2},
    {"id": "p5", "query": "Explain fog.", "candidates": ["weak", HOSTILE], "label": 1},
]
SYSTEMS = {"p1": ["A", "B"], "p2": ["A", "B"], "p3": ["A", "B"], "p4": ["A", "B"], "p5": ["B", "A"]}
QUALITY = {"good": 5, "fine": 4, "fine too": 4, "weak": 2, "poor": 1, HOSTILE: 5}


VERDICTS = {"p1": 1, "p2": 2, "p3": 0, "p4": None, "p5": 2}
"""The judge run's verdicts (p3: a tie of orders that disagree; p4: a parse error)."""
INCONSISTENT = ("p3",)
DISAGREE = ("p3", "p5")
"""The items whose verdict is not their human label."""
_JUDGE = RuleJudge(quality=QUALITY, first_bias=1, record=False)


def respond(body: Mapping[str, Any]) -> str:
    """The rule judge's reply, but for a score of the candidate ``garbled``: not a score at all."""
    prompt = "\n".join(str(m["content"]) for m in body["messages"])
    if "garbled" in prompt and stage_of(prompt) == "dna.score":
        return UNREADABLE
    return _JUDGE.respond(body["messages"])


def run_cli(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    # 6: a run with the garbled candidate's parse error, its files written all the same
    assert result.exit_code in (0, FAILURES_EXIT), result.output
    return result.output


def write_pairs(path: Path, pairs: Sequence[Mapping[str, Any]] = PAIRS, *, named: bool = False) -> Path:
    """The pairs, their systems in their metadata (and, ``named``, in their ``systems`` too: the run's
    result is then per system)."""
    lines = [
        json.dumps(
            {
                **p,
                **({"systems": SYSTEMS[p["id"]]} if named else {}),
                "metadata": {"systems": SYSTEMS[p["id"]]},
            }
        )
        for p in pairs
    ]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def judge_run(folder: Path) -> Path:
    """``faceteval judge pairs.jsonl --method dna --swap --out j.jsonl`` in ``folder``; the judgments."""
    pairs = write_pairs(folder / "pairs.jsonl", named=True)
    out = folder / "j.jsonl"
    with LLMServer(respond) as server:
        run_cli(
            "judge", pairs, "--method", "dna", "--aspects", "2", "--swap", "--model", "openai:judge",
            "--base-url", server.base_url, "--no-cache", "--quiet", "--out", out,
        )  # fmt: skip
    return out


def correct_run(folder: Path) -> Path:
    """``faceteval judge --method fennec``, then ``faceteval correct`` of it; the corrections."""
    pairs = folder / "fennec-pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in PAIRS[:3]), encoding="utf-8")
    with LLMServer(FennecJudge(quality=QUALITY).for_server()) as server:
        local = ["--model", "openai:judge", "--base-url", server.base_url, "--quiet", "--no-cache"]
        run_cli("judge", pairs, "--method", "fennec", *local, "--out", folder / "f.jsonl")
        run_cli(
            "correct", folder / "f.jsonl", "--threshold", "3", *local, "--out", folder / "corrected.jsonl"
        )
    return folder / "corrected.jsonl"


def bridge_run(folder: Path, data_dir: Path) -> Path:
    """``faceteval bridge autoj-pairwise --limit 2`` of Auto-J's recorded judgments; its records."""
    with LLMServer(BridgeJudge().for_server()) as server:
        run_cli(
            "bridge", "autoj-pairwise", "--limit", "2", "--model", "openai:judge", "--base-url",
            server.base_url, "--quiet", "--no-cache", "--data-dir", data_dir, "--out", folder / "bridged",
        )  # fmt: skip
    return folder / "bridged" / "autoj-pairwise.jsonl"


def recorded_meta_eval(folder: Path, data_dir: Path) -> Path:
    """``faceteval meta-eval mtbench-human --judgments recorded:gpt4-pair``: GPT-4's recorded verdicts
    on 40 MT-Bench pairs measured against the experts'; the run directory."""
    out = folder / "mtbench"
    run_cli(
        "meta-eval", "mtbench-human", "--judgments", "recorded:gpt4-pair", "--limit", "40", "--resamples",
        "20", "--no-report", "--data-dir", data_dir, "--out", out,
    )  # fmt: skip
    return out


def evaluator(folder: Path, data_dir: Path) -> Path:
    """``faceteval hdeval train`` on CoEval's recorded ChatGPT criterion scores; the evaluator."""
    out = folder / "evaluator"
    run_cli(
        "hdeval", "train", "coeval-rocstories", "--features", "recorded:coeval-chatgpt", "--target",
        "Coherence", "--aggregator", "lr", "--limit", "40", "--resamples", "20", "--data-dir", data_dir,
        "--out", out,
    )  # fmt: skip
    return out


@contextmanager
def view(
    *paths: Path, index_dir: Path, options: Sequence[str] = (), cwd: Path | None = None
) -> Iterator[str]:
    """``faceteval view PATHS`` in its own process (in ``cwd``), on a free port; yields its base URL."""
    port = free_port()
    command = [
        sys.executable, "-m", "faceteval", "view", *map(str, paths), "--port", str(port),
        "--index-dir", str(index_dir), *options,
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"},
        cwd=cwd,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(process, base, "the viewer")
        yield base
    finally:
        stop(process)


def sweep_run(folder: Path) -> Path:
    """``faceteval meta-eval pairs.jsonl --method dna --aspects 1,2``: a sweep of two runs; its directory."""
    pairs = write_pairs(folder / "sweep-pairs.jsonl", PAIRS[:3])
    with LLMServer(respond) as server:
        run_cli(
            "meta-eval", pairs, "--method", "dna", "--aspects", "1,2", "--model", "openai:judge",
            "--base-url", server.base_url, "--no-cache", "--resamples", "20", "--no-report",
            "--out", folder / "sweep",
        )  # fmt: skip
    return folder / "sweep"


@dataclass(frozen=True)
class Runs:
    """One run of each kind, in one folder."""

    folder: Path
    judge: Path
    correct: Path
    bridge: Path
    meta_eval: Path
    sweep: Path
    evaluator: Path


def make_runs(folder: Path, data_dir: Path) -> Runs:
    """One run of each kind in ``folder``, each made by its command."""
    return Runs(
        folder,
        judge=judge_run(folder),
        correct=correct_run(folder),
        bridge=bridge_run(folder, data_dir),
        meta_eval=recorded_meta_eval(folder, data_dir),
        sweep=sweep_run(folder),
        evaluator=evaluator(folder, data_dir),
    )


def data_dir() -> Path:
    """The benchmark data directory (``FACETEVAL_DATA_DIR``, which `make test` sets)."""
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)
