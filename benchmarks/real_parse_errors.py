"""How often a real small model's replies cannot be read, per method and stage, free text and structured.

    PYTHONPATH=. python benchmarks/real_parse_errors.py \
        --model .models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf

Each pairwise method (direct, cot, dna, fennec) judges the example pairs (``examples/data/pairs.jsonl``,
in both orders) and each pointwise one (coeval, hdeval) the example outputs
(``examples/data/outputs.jsonl``), with the model in process (``llamacpp:``), once with the papers'
free-text prompts and once ``--structured``; every
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
DATA = ROOT / "examples" / "data"
PAIRS = DATA / "pairs.jsonl"
OUTPUTS = DATA / "outputs.jsonl"
RESULTS = ROOT / "benchmarks" / "real_parse_errors_results.json"
METHODS: dict[str, tuple[Path, list[str]]] = {
    "direct": (PAIRS, ["--swap"]),
    "cot": (PAIRS, ["--swap"]),
    "dna": (PAIRS, ["--aspects", "3", "--swap"]),
    "fennec": (PAIRS, ["--criteria-count", "3", "--swap"]),
    "coeval": (OUTPUTS, ["--criteria", str(DATA / "criteria.yaml")]),
    "hdeval": (OUTPUTS, ["--criteria", str(DATA / "tree.yaml")]),
}
"""Each method's input and flags."""


def run(model: Path, method: str, structured: bool, limit: int | None, folder: Path) -> dict[str, Any]:
    """One method's run, and what its trace says of each stage."""
    source, flags = METHODS[method]
    items = folder / f"{source.stem}-{limit}.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)[:limit]
    items.write_text("".join(lines))
    out = folder / f"{method}-{'structured' if structured else 'text'}.jsonl"
    command = [sys.executable, "-m", "faceteval", "judge", str(items), "--method", method, *flags]
    command += ["--model", f"llamacpp:{model}?threads=1", "--out", str(out), "--no-cache"]
    command += ["--max-tokens", "512", "--timeout", "600", "--seed", "1"]
    if structured:
        command.append("--structured")
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if "Traceback" in done.stderr:
        raise SystemExit(f"{method}: the run crashed:\n{done.stderr[-3000:]}")
    judged = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    expected = sum(1 for line in lines if line.strip())
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
        "date": time.strftime("%Y-%m-%d"),
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
    parser.add_argument("--modes", default="text,structured", help="text, structured or both")
    parser.add_argument("--limit", type=int, default=None, help="the first N instances of each input")
    parser.add_argument("--keep", type=Path, default=None, help="keep the runs' outputs in this folder")
    args = parser.parse_args()
    modes = [mode == "structured" for mode in args.modes.split(",")]
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or scratch
        for method in args.methods.split(","):
            for structured in modes:
                row = run(args.model, method, structured, args.limit, Path(folder))
                record(args.model.name, row)  # at once: a long run stopped later keeps what it measured
                mode = "structured" if structured else "free text"
                print(
                    f"{method:8} {mode:10} parse errors {row['parse_errors']}/{row['judgments']}"
                    f"  calls {row['calls']:4}  {row['seconds']:7.1f} s  {row['stages']}",
                    flush=True,
                )


def record(model: str, row: dict[str, Any]) -> None:
    """``row`` in the results file, in place of the same model's earlier row for its method and mode."""
    recorded = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    runs = recorded.get(model, {}).get("runs", [])
    runs = [r for r in runs if (r["method"], r["structured"]) != (row["method"], row["structured"])]
    recorded[model] = {"runs": [*runs, row]}
    partial = RESULTS.with_suffix(".partial")
    partial.write_text(json.dumps(recorded, indent=2) + "\n")
    partial.replace(RESULTS)


if __name__ == "__main__":
    main()
