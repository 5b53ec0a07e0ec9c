"""The stall case: 2,000 DnA instances with one slow call, written in input order or as they finish.

A local OpenAI-compatible server (tests/support/llm_server.py, a separate process) answers by rule after
``--latency``; the first call of the first instance (the head of every window) takes 10 s more. The job
runs as users run it, `faceteval judge --no-cache`, and is timed from the outside (the process's wall
time, start-up included) in four ways:

- ``baseline``: no slow call;
- ``input``: the slow call, the default input order (judgments finished before their turn wait in a
  temporary file: the other instances go on);
- ``finish``: the slow call, ``--order finish``;
- ``stalled``: the slow call, input order as it was before (the window waits for its head), with
  ``--src PATH`` naming a checkout's ``src`` of that time (skipped without it).

With the slow call, no order can end before the slow instance does (10 s plus its two later rounds);
the figure to read is how much of the rest of the run waits behind it. Each run is checked to be the
case it stands for (`check_run`: the call was slowed, and the run lasted that long; every judgment ok),
else the benchmark stops. Results are printed as JSON and written to benchmarks/stall_results.json;
benchmarks/README.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.run import instances, judge_command

from tests.support.llm_server import Hang
from tests.support.rule_judge import benchmark_responder

ROOT = Path(__file__).resolve().parents[1]

RESULTS = ROOT / "benchmarks" / "stall_results.json"
SLOW_SECONDS = 10.0
MARKER = "(#0)"
"""What the first instance's query ends with (`benchmarks.run.instances`), as every prompt of it
quotes it (``> ... (#0)``); no other instance's holds it (``(#10)`` does not)."""
SLOWED = "stall: the first call of instance 0 hangs"
"""What the server prints (on its stderr) when it slows that call: the evidence the case was run."""
_SLOWED: list[bool] = []


def slow_first_responder(body: dict[str, Any]) -> str | Hang:
    """`benchmark_responder`, but the first call of instance 0 first hangs `SLOW_SECONDS`."""
    if not _SLOWED and any(MARKER in str(m.get("content")) for m in body["messages"]):
        _SLOWED.append(True)
        print(f"{SLOWED} {SLOW_SECONDS:g} s", file=sys.stderr, flush=True)
        return Hang(SLOW_SECONDS)
    return benchmark_responder(body)


def serve(responder: str, latency: float) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "tests.support.llm_server", "--latency", str(latency), "--no-record"]
    process = subprocess.Popen(
        [*command, "--responder", responder],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def timed_run(source: Path, out: Path, *, slow: bool, src: Path, order: str | None, args: Any) -> float:
    """The wall time of one judge run, checked to be the case it stands for (`check_run`)."""
    responder = (
        "benchmarks.stall:slow_first_responder" if slow else "tests.support.rule_judge:benchmark_responder"
    )
    server, base_url = serve(responder, args.latency)
    try:
        extra = ["--no-cache", "--out", str(out), str(source)] + ([] if order is None else ["--order", order])
        command = judge_command(base_url, "dna", args.concurrency, *extra)
        env = os.environ | {"PYTHONPATH": f"{src}{os.pathsep}{ROOT}"}
        start = time.monotonic()
        subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
        seconds = round(time.monotonic() - start, 2)
    finally:
        server.terminate()
        _, told = server.communicate(timeout=10)
    check_run(out, told, seconds, slow=slow, instances=args.instances)
    return seconds


def check_run(out: Path, told: str, seconds: float, *, slow: bool, instances: int) -> None:
    """Fail loudly unless the run is the case it is meant to measure: with ``slow``, the server did
    slow a call (it said so) and the run lasted at least that long; without, no call was slowed; and
    every instance was judged ok (a slow call answered at once, as text, would be a parse error).

    Raises:
        SystemExit: The case did not happen as it should.
    """
    slowed = SLOWED in told
    if slow and not slowed:
        raise SystemExit(f"stall: no call was slowed (the server said nothing of it): {told[-500:]!r}")
    if not slow and slowed:
        raise SystemExit("stall: the baseline's server slowed a call")
    if slow and seconds < SLOW_SECONDS:
        raise SystemExit(f"stall: a run with a {SLOW_SECONDS:g} s call took {seconds} s: it was not slow")
    statuses = Counter(json.loads(line)["status"] for line in out.read_text(encoding="utf-8").splitlines())
    if statuses != Counter({"ok": instances}):
        raise SystemExit(f"stall: {out.name}: judgments {dict(statuses)}, not {instances} ok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--src", type=Path, help="a checkout's src whose input order stalls (for 'stalled')")
    args = parser.parse_args()
    results: dict[str, Any] = {"instances": args.instances, "latency": args.latency}
    results |= {"concurrency": args.concurrency, "slow_call_s": SLOW_SECONDS}
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "pairs.jsonl"
        lines = (json.dumps(i.model_dump(mode="json", exclude_none=True)) for i in instances(args.instances))
        source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        src = ROOT / "src"
        runs = {
            "baseline": dict(slow=False, src=src, order=None),
            "input": dict(slow=True, src=src, order="input"),
            "finish": dict(slow=True, src=src, order="finish"),
        }
        if args.src is not None:
            runs["stalled"] = dict(slow=True, src=args.src.resolve(), order=None)
        for name, how in runs.items():
            results[f"{name}_s"] = timed_run(source, Path(folder) / f"{name}.jsonl", args=args, **how)  # type: ignore[arg-type]
            print(name, results[f"{name}_s"], file=sys.stderr)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
