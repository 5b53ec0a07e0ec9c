"""`faceteval review import` of a big judge run: its peak memory, and how it grows with the run.

The run is written as `view_index.py` writes one (real DnA-Eval pairwise judgments with their traces,
about 8 kB a line; 2% parse errors; kept under 10,000 judgments a run, whose 10,000th line is a bad
line the import would refuse), its input passed with ``--input`` (the record that script writes is the
viewer's, which review import does not read). `faceteval review import` runs in its own process for
each size (through its click command, in process); its peak resident set is the
kernel's (``VmHWM`` of /proc; not ``ru_maxrss``, which a child inherits from the process that started it).

Results are printed as a Markdown table for benchmarks/README.md.
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


def peak_mb(judgments: Path, project: Path, src: Path, pad_kb: int) -> float:
    """The peak resident set (MB) of `faceteval review import` of ``judgments``, run from ``src``."""
    (judgments.parent / "j.run.json").unlink()  # the viewer's benchmark writes a record only it reads
    _prepared(judgments, pad_kb)
    inputs = judgments.parent / "pairs.jsonl"
    command = [sys.executable, "-c", _MEASURED, str(project), str(judgments), str(inputs)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    return float(done.stdout.strip()) / 1024


def _prepared(judgments: Path, pad_kb: int) -> None:
    """Drop each judgment's hash of its instance: the viewer's benchmark varies the instances of a few
    judged ones, so the hashes are the templates' (and the import would refuse them as edited since).
    Add a trace entry of ``pad_kb`` kB to each (a long prompt, as real traces carry: 75 kB a judgment
    was measured with DnA-Eval on long inputs)."""
    pad = {"stage": "pad", "messages": [{"role": "user", "content": "x" * (pad_kb * 1024)}], "raw": ""}
    lines = judgments.read_text(encoding="utf-8").splitlines()
    kept = []
    for line in lines:
        record = json.loads(line)
        record.pop("input_hash", None)
        if pad_kb:
            record["trace"] = [*record.get("trace", []), pad]
        kept.append(json.dumps(record, separators=(",", ":")))
    judgments.write_text("\n".join(kept) + "\n", encoding="utf-8")


_MEASURED = """
import sys
from pathlib import Path
from click.testing import CliRunner
from faceteval._cli._app import cli
project, judgments, inputs = sys.argv[1:4]
result = CliRunner().invoke(cli, ["review", "import", project, judgments, "--input", inputs, "--task", "t"])
assert result.exit_code == 0, result.output
status = Path("/proc/self/status").read_text().splitlines()
print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 9_000])
    parser.add_argument("--pad-kb", type=int, default=64, help="a trace entry of this size added to each")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the faceteval sources to measure")
    args = parser.parse_args()
    print(f"| judgments | run size | peak RSS of review import ({args.src}) |\n|---|---|---|")
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            judgments = write_run(Path(tmp), n)
            peak = peak_mb(judgments, Path(tmp) / "project", args.src, args.pad_kb)
            size = judgments.stat().st_size / 2**20
            print(f"| {n:,} | {size:.0f} MB | {peak:.0f} MB |")


if __name__ == "__main__":
    main()
