"""Start-up: the CPU time of light `faceteval` commands, as a ratio to `python -c "import openai"`.

Each command runs as users run it (``python -m faceteval ...``), in a process of its own, in a folder
with no faceteval.toml; its figure is the CPU time (user + system) the kernel counts for that child
(`os.wait4`), so the other work on the machine does not count, and the median over ``--repeats`` runs.
Every module is imported from its compiled bytecode, as in an installed faceteval: the children write
and read it in a folder of their own (``PYTHONPYCACHEPREFIX``), filled by a first round not measured.
The commands run interleaved (one run of each, then again), so a change in the machine's speed
touches them all alike; the ratio is of medians measured in the same session. The commands:

- ``import openai``: the reference, `python -c "import openai"`; ``python``: `python -c pass`, what any
  Python process costs (for reading the rest);
- ``--version``: `faceteval --version`;
- ``criteria show``: `faceteval criteria show small.yaml`, a tree file of 2 lines;
- ``judge (empty input)``: `faceteval judge empty.jsonl --model openai:... --base-url ... --out j.jsonl`
  on an empty file: it opens the model (the openai SDK), reads the input and writes its run record,
  then exits with status 1 (nothing to judge), making no call.

Each run is checked for what it was to do: its exit status and what it printed (the version; the
tree's criterion and description, read from the file; the judge's refusal of the empty input), and
the judge's run record written with no instance judged. A run that did something else stops the
benchmark. Target: ``judge`` at most 1.3x ``import openai``. Results are printed as a Markdown table
and written to benchmarks/startup_results.json; benchmarks/README.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "startup_results.json"
TARGET = 1.3
"""The most ``judge`` on an empty input may cost, as a multiple of ``import openai``."""
TREE = "task: summarization\ncriteria: [{name: coherence, description: well organised}]\n"
SHOWN = ("coherence", "well organised")
"""What ``criteria show`` prints of `TREE`: its criterion, read from the file."""
REFUSED = "empty.jsonl holds no instance to judge"
JUDGE = (
    "empty.jsonl", "--model", "openai:judge", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "unused",
    "--out", "j.jsonl",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Command:
    """One command measured, and how to tell that it did what it was to do."""

    name: str
    args: tuple[str, ...]
    code: int
    says: tuple[str, ...]
    """Texts its output (stdout and stderr) must hold."""


COMMANDS = (
    Command("import openai", ("-c", "import openai"), 0, ()),
    Command("python", ("-c", "pass"), 0, ()),
    Command("--version", ("-m", "faceteval", "--version"), 0, ("faceteval, version",)),
    Command("criteria show", ("-m", "faceteval", "criteria", "show", "small.yaml"), 0, SHOWN),
    Command("judge (empty input)", ("-m", "faceteval", "judge", *JUDGE), 1, (REFUSED,)),
)


def cpu_seconds(command: Command, folder: Path, env: dict[str, str]) -> float:
    """The CPU time (user + system) of one run of ``command`` in ``folder``, checked."""
    for written in ("j.jsonl", "j.run.json"):  # each run starts as the first did
        (folder / written).unlink(missing_ok=True)
    process = subprocess.Popen(
        [sys.executable, *command.args],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    output = process.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stdout.close()
    _check(command, process.returncode, output, folder)
    return usage.ru_utime + usage.ru_stime


def _check(command: Command, code: int, output: str, folder: Path) -> None:
    """Stop the benchmark if ``command`` did not do what it was to do."""
    missing = [text for text in command.says if text not in output]
    if code != command.code or missing:
        raise SystemExit(f"{command.name}: exit status {code} (expected {command.code}), output:\n{output}")
    if command.name.startswith("judge"):
        record = json.loads((folder / "j.run.json").read_text(encoding="utf-8"))
        judged = record["summary"]["result"]["judgments"]
        read = (record["inputs"]["input"]["path"], record["llm"]["model"], judged)
        if read != ("empty.jsonl", "openai:judge", 0):
            raise SystemExit(f"{command.name}: its run record has input, model, judgments {read}")


def measure(repeats: int, src: Path) -> dict[str, list[float]]:
    """Each command's CPU seconds over ``repeats`` interleaved rounds, run from ``src``."""
    times: dict[str, list[float]] = {command.name: [] for command in COMMANDS}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        env = {**os.environ, "PYTHONPATH": str(src), "PYTHONPYCACHEPREFIX": str(folder / "pycache")}
        for unset in ("PYTHONDONTWRITEBYTECODE", "FACETEVAL_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
            env.pop(unset, None)
        (folder / "small.yaml").write_text(TREE, encoding="utf-8")
        (folder / "empty.jsonl").write_text("", encoding="utf-8")
        for command in COMMANDS:  # once first, unmeasured: every module compiled, the files cached
            cpu_seconds(command, folder, env)
        for _ in range(repeats):
            for command in COMMANDS:
                times[command.name].append(cpu_seconds(command, folder, env))
    return times


def summary(times: dict[str, list[float]], repeats: int, src: Path) -> dict[str, Any]:
    medians = {name: statistics.median(values) for name, values in times.items()}
    reference = medians["import openai"]
    judge = medians["judge (empty input)"] / reference
    return {
        "measured": datetime.now(UTC).strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, Python {sys.version.split()[0]}",
        "src": str(src.relative_to(ROOT)) if src.is_relative_to(ROOT) else str(src),
        "repeats": repeats,
        "cpu_seconds": {name: round(value, 4) for name, value in medians.items()},
        "ratio": {name: round(value / reference, 3) for name, value in medians.items()},
        "runs": {name: [round(v, 4) for v in values] for name, values in times.items()},
        "target": TARGET,
        "pass_judge": judge <= TARGET,
    }


def table(results: dict[str, Any]) -> str:
    rows = ["| command | CPU (median) | / `import openai` |", "|---|---|---|"]
    for name, seconds in results["cpu_seconds"].items():
        rows.append(f"| {name} | {seconds:.3f} s | {results['ratio'][name]:.2f}x |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the faceteval sources to measure")
    parser.add_argument("--no-write", action="store_true", help=f"do not write {RESULTS.name}")
    args = parser.parse_args()
    src = args.src.resolve()
    results = summary(measure(args.repeats, src), args.repeats, src)
    if not args.no_write:
        RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    met = "met" if results["pass_judge"] else "NOT met"
    print(f"\njudge: {results['ratio']['judge (empty input)']:.2f}x import openai (target {TARGET}x): {met}")
    return 0 if results["pass_judge"] else 1


if __name__ == "__main__":
    sys.exit(main())
