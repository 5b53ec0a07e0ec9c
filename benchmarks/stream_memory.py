"""`faceteval meta-eval` and `faceteval review import` of big judge runs: their peak memory against N.

1. Templates: `view_index.write_run` makes 500 real DnA-Eval pairwise judgments (three aspects, with
   their traces, about 8 kB a line; 2% parse errors) and their labelled pairs (five systems).
2. A run of N judgments copies them in turn under the ids ``q0`` ... (each with its pair, the label and
   systems of its template), without the hash of the input (the copies' inputs are the templates'),
   optionally with a trace entry of ``--pad-kb`` kB more each (a long prompt: real DnA-Eval traces on
   long inputs were 75 kB a judgment).
3. Each command runs in its own process (its click command, in process): `faceteval meta-eval PAIRS
   --judgments RUN --no-report` (1,000 bootstrap resamples, the default), `faceteval report` of the run
   directory it wrote (what `meta-eval` does next without ``--no-report``), `faceteval review import
   PROJECT RUN --input PAIRS`, and (``--commands meta-eval-with-report``) `meta-eval` with its report,
   as users run it. The figure is the process's peak resident set, the kernel's ``VmHWM``
   (not ``ru_maxrss``, which a child inherits from the process that started it), and its seconds.

``--src`` measures another checkout's sources (main's, for the figures before). Results are printed as a
Markdown table for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.view_index import write_run

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = 500
ID = "@@ID@@"


def templates(folder: Path, pad_kb: int) -> tuple[list[str], list[str]]:
    """The lines of the template judgments and of their pairs, each with ``ID`` where its id goes."""
    folder.mkdir()
    judged = write_run(folder, TEMPLATES)
    pad = {"stage": "pad", "messages": [{"role": "user", "content": "x" * (pad_kb * 1024)}], "raw": ""}
    judgments = []
    for line in judged.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("input_hash", None)
        record["id"] = ID
        if pad_kb:
            record["trace"] = [*record.get("trace", []), pad]
        judgments.append(json.dumps(record, separators=(",", ":")))
    pairs = []
    for line in (folder / "pairs.jsonl").read_text(encoding="utf-8").splitlines():
        pairs.append(json.dumps(json.loads(line) | {"id": ID}))
    return judgments, pairs


def write_copies(folder: Path, n: int, judgments: list[str], pairs: list[str]) -> tuple[Path, Path]:
    """The run of ``n`` judgments and its pairs, copied from the templates in turn."""
    run, given = folder / "run.jsonl", folder / "pairs.jsonl"
    with run.open("w", encoding="utf-8") as out, given.open("w", encoding="utf-8") as inputs:
        for i in range(n):
            out.write(judgments[i % len(judgments)].replace(ID, f"q{i}", 1) + "\n")
            inputs.write(pairs[i % len(pairs)].replace(ID, f"q{i}", 1) + "\n")
    return run, given


_MEASURED = """
import sys, time
from pathlib import Path
from click.testing import CliRunner
from faceteval._cli._app import cli
started = time.perf_counter()
result = CliRunner().invoke(cli, sys.argv[1:])
assert result.exit_code == 0, result.output
status = Path("/proc/self/status").read_text().splitlines()
print(next(line.split()[1] for line in status if line.startswith("VmHWM:")), time.perf_counter() - started)
"""


def peak(args: list[str], src: Path) -> tuple[float, float]:
    """The peak resident set (MB) and seconds of the faceteval command ``args``, run from ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *args], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    kb, seconds = done.stdout.split()
    return float(kb) / 1024, float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--pad-kb", type=int, default=0, help="a trace entry of this size added to each")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the faceteval sources to measure")
    parser.add_argument("--commands", nargs="+", default=["meta-eval", "report", "review-import"])
    args = parser.parse_args()
    print(f"| judgments | run size | command ({args.src}) | peak RSS | seconds |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        judgments, pairs = templates(Path(tmp) / "templates", args.pad_kb)
        for n in args.sizes:
            folder = Path(tmp) / str(n)
            folder.mkdir()
            run, given = write_copies(folder, n, judgments, pairs)
            size = run.stat().st_size / 2**20
            project = str(folder / "project")
            commands = {
                "meta-eval": ["meta-eval", str(given), "--judgments", str(run), "--out", str(folder / "m"),
                              "--no-report"],
                "report": ["report", str(folder / "m")],
                "meta-eval-with-report": ["meta-eval", str(given), "--judgments", str(run), "--out",
                                          str(folder / "mr")],
                "review-import": ["review", "import", project, str(run), "--input", str(given),
                                  "--task", "t"],
            }  # fmt: skip
            for name in args.commands:
                mb, seconds = peak(commands[name], args.src)
                print(f"| {n:,} | {size:,.0f} MB | {name} | {mb:,.0f} MB | {seconds:,.0f} |", flush=True)
            run.unlink()


if __name__ == "__main__":
    main()
