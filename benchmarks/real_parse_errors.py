"""How often a real small model's replies cannot be read, per method and stage, free text and structured.

    PYTHONPATH=. python benchmarks/real_parse_errors.py \
        --model .models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf

Each method judges the example pairs (``examples/data/pairs.jsonl``, in both orders) with the model in
process (``llamacpp:``), once with the papers' free-text prompts and once ``--structured``; every
exchange of the trace is counted by its stage: read, or not (and why, by the first words of the
problem). A judgment is a parse error when a stage's reply could not be read after its one re-ask.
Writes ``benchmarks/real_parse_errors_results.json`` (merged by model) and prints a table.

Self-check: a run whose judgments are not all there, or that made no call (everything from a cache
that should not exist), fails loudly: the figures would not be of this model.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "examples" / "data" / "pairs.jsonl"
RESULTS = ROOT / "benchmarks" / "real_parse_errors_results.json"
METHODS = {
    "direct": [],
    "cot": [],
    "dna": ["--aspects", "3"],
    "fennec": ["--criteria-count", "3"],
}


def run(model: Path, method: str, structured: bool, pairs: Path, folder: Path) -> dict[str, Any]:
    """One method's run, and what its trace says of each stage."""
    out = folder / f"{method}-{'structured' if structured else 'text'}.jsonl"
    command = [sys.executable, "-m", "faceteval", "judge", str(pairs), "--method", method, *METHODS[method]]
    command += ["--swap", "--model", f"llamacpp:{model}?threads=1", "--out", str(out), "--no-cache"]
    command += ["--max-tokens", "512", "--timeout", "600", "--seed", "1"]
    if structured:
        command.append("--structured")
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if "Traceback" in done.stderr:
        raise SystemExit(f"{method}: the run crashed:\n{done.stderr[-3000:]}")
    judged = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    expected = sum(1 for line in pairs.read_text().splitlines() if line.strip())
    statuses = Counter(j["status"] for j in judged)
    if not judged:  # nothing ok: the command writes no file; its summary line still counts them
        statuses = Counter({"parse_error": expected})
    elif len(judged) != expected:
        raise SystemExit(f"{method}: {len(judged)} judgments of {expected} instances")
    stages: dict[str, Counter[str]] = {}
    calls = 0
    for judgment in judged:
        for entry in judgment["trace"]:
            calls += not entry["cached"]
            outcome = "read" if entry["problem"] is None else _why(entry["problem"], entry["finish_reason"])
            stages.setdefault(entry["stage"], Counter())[outcome] += 1
    if judged and calls == 0:
        raise SystemExit(f"{method}: no call was made: these are not this model's replies")
    return {
        "method": method,
        "structured": structured,
        "judgments": expected,
        "parse_errors": statuses.get("parse_error", 0),
        "ok": statuses.get("ok", 0),
        "calls": calls,
        "seconds": round(seconds, 1),
        "stages": {stage: dict(counts) for stage, counts in sorted(stages.items())},
    }


def _why(problem: str, finish: str | None) -> str:
    if finish == "length":
        return "cut off at max_tokens"
    return " ".join(problem.split(":")[0].split()[:6])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a .gguf file")
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for method in args.methods.split(","):
            for structured in (False, True):
                row = run(args.model, method, structured, PAIRS, Path(folder))
                rows.append(row)
                mode = "structured" if structured else "free text"
                print(
                    f"{method:8} {mode:10} parse errors {row['parse_errors']}/{row['judgments']}"
                    f"  calls {row['calls']:4}  {row['seconds']:7.1f} s  {row['stages']}",
                    flush=True,
                )
    recorded = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    recorded[args.model.name] = {"date": time.strftime("%Y-%m-%d"), "pairs": str(PAIRS.name), "runs": rows}
    RESULTS.write_text(json.dumps(recorded, indent=2) + "\n")


if __name__ == "__main__":
    main()
