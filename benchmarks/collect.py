"""Collection: the wall time of ``pytest --collect-only -q`` over the whole suite, and what it collects.

The suite is collected as ``make test`` runs it (the addopts of pyproject.toml: ``--doctest-modules`` over
``src`` and ``tests``, ``--import-mode=importlib``), in a process of its own from the checkout's root,
``--repeats`` times after one run not measured; pytest's cache is left alone (``-p no:cacheprovider``).
Every module is imported from its compiled bytecode, and every test module from the bytecode pytest
writes when it rewrites its asserts, as on a developer's machine: the children write and read it in a
folder of their own (``PYTHONPYCACHEPREFIX``), filled by the run not measured. With ``--compile``, each
run compiles every module and rewrites every test module instead (``PYTHONDONTWRITEBYTECODE=1``), as on
a machine whose environment sets it. The figure is the median wall time of the runs; the CPU time
(user + system) the kernel counts for each child (`os.wait4`) is reported beside it, since the machine
may be shared. Each run must exit with status 0 and report its count of tests, with no error of
collection; a run that did anything else stops the benchmark.

Targets: collection within ``--target`` seconds (30 by default), and at least ``--floor`` tests collected
(5,500 by default: the suite held 5,545 on 2026-12-02, so a collection that loses the tests of a module,
skipped or left out when importing it, or the doctests of a few modules, is caught while the suite may
grow). Results are printed as a Markdown table and written to benchmarks/collect_results.json;
benchmarks/README.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "collect_results.json"
TARGET = 30.0
"""The most seconds collecting the suite may take."""
FLOOR = 5500
"""The fewest tests a collection of the suite may find."""
COLLECTED = re.compile(r"^(\d+) tests? collected(.*) in [\d.]+s", re.MULTILINE)
"""pytest's last line: the tests collected, then any errors and warnings."""


@dataclass(frozen=True, slots=True)
class Run:
    """One collection of the suite: its wall and CPU seconds and the number of tests it found."""

    wall: float
    cpu: float
    tests: int


def environment(src: Path, pycache: Path, compile_each_run: bool) -> dict[str, str]:
    """The children's environment: this checkout's ``src`` imported, bytecode cached in ``pycache`` or not."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(src), str(ROOT)))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if compile_each_run:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def collect(env: dict[str, str]) -> Run:
    """One run of ``pytest --collect-only -q`` from the checkout's root, checked."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    output = process.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stdout.close()
    counted = COLLECTED.search(output)
    if process.returncode != 0 or counted is None or "error" in counted.group(2):
        tail = "\n".join(output.splitlines()[-30:])
        raise SystemExit(f"pytest --collect-only: exit status {process.returncode}, its output ends:\n{tail}")
    return Run(wall=wall, cpu=usage.ru_utime + usage.ru_stime, tests=int(counted.group(1)))


def summary(runs: list[Run], src: Path, compiled: bool, target: float, floor: int) -> dict[str, Any]:
    wall = statistics.median(run.wall for run in runs)
    tests = min(run.tests for run in runs)
    return {
        "measured": datetime.now(UTC).strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, Python {sys.version.split()[0]}",
        "load": [round(value, 2) for value in os.getloadavg()],
        "src": str(src.relative_to(ROOT)) if src.is_relative_to(ROOT) else str(src),
        "repeats": len(runs),
        "bytecode": "compiled each run" if compiled else "cached",
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(statistics.median(run.cpu for run in runs), 2),
        "tests": tests,
        "runs": [{"wall": round(r.wall, 2), "cpu": round(r.cpu, 2), "tests": r.tests} for r in runs],
        "target_seconds": target,
        "floor_tests": floor,
        "pass_time": wall <= target,
        "pass_tests": tests >= floor,
    }


def table(results: dict[str, Any]) -> str:
    rows = [f"| collection (bytecode {results['bytecode']}) | target | measured |", "|---|---|---|"]
    rows.append(
        f"| wall time (median) | at most {results['target_seconds']:g} s | {results['wall_seconds']:.2f} s |"
    )
    rows.append(f"| CPU time (median) | | {results['cpu_seconds']:.2f} s |")
    rows.append(f"| tests collected | at least {results['floor_tests']:,} | {results['tests']:,} |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--target", type=float, default=TARGET, help="the most seconds collection may take")
    parser.add_argument("--floor", type=int, default=FLOOR, help="the fewest tests collection may find")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the faceteval sources to measure")
    parser.add_argument("--compile", action="store_true", help="compile every module in each run")
    parser.add_argument("--no-write", action="store_true", help=f"do not write {RESULTS.name}")
    args = parser.parse_args()
    src = args.src.resolve()
    with tempfile.TemporaryDirectory() as pycache:
        env = environment(src, Path(pycache), args.compile)
        collect(env)  # once first, unmeasured: every module compiled, the files cached
        runs = [collect(env) for _ in range(args.repeats)]
    results = summary(runs, src, args.compile, args.target, args.floor)
    if not args.no_write:
        RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    time_met = "met" if results["pass_time"] else "NOT met"
    tests_met = "met" if results["pass_tests"] else "NOT met"
    print(f"\ncollection: {results['wall_seconds']:.2f} s (target {args.target:g} s): {time_met}")
    print(f"tests collected: {results['tests']:,} (floor {args.floor:,}): {tests_met}")
    return 0 if results["pass_time"] and results["pass_tests"] else 1


if __name__ == "__main__":
    sys.exit(main())
