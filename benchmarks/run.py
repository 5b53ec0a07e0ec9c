"""Engine benchmarks behind `make bench`: throughput, framework CPU per call, streaming memory.

A local OpenAI-compatible server (tests/support/llm_server.py, a separate process) sleeps a fixed
latency per request and answers by rule. faceteval talks to it through the official openai SDK, as
it would to any server.

1. throughput: 2,000 DnA calls (400 pairs x (aspects + weights + 3 facet scores)) at 100 ms latency
   and concurrency 64. Target: wall time within 1.3x the ideal (calls x latency / concurrency) plus
   start-up; framework CPU under 2 ms per call.
   The wall-time target is checked on the job as users run it, `faceteval judge` (with its default
   response cache): the median of three runs of the time the command records in its run record, less
   the start-up it records beside it (opening the model). The job is also run through
   `faceteval.judge` in this process, where CPU is measured per call and split between the SDK and
   faceteval; the server's CPU is reported beside it, as they share the machine's cores.
2. streaming: a 100,000-line input judged with `faceteval judge` (direct, 100,000 calls, no latency).
   Target: memory flat, peak RSS under 500 MB.

Results go to benchmarks/results.json and are printed as JSON; benchmarks/README.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import psutil

from faceteval import DnA, Instance, JudgeOptions, SQLiteCache, judge
from faceteval.llm import LLM, CompletionRequest, ModelSpec, ScriptedProvider
from faceteval.llm._openai import OpenAIProvider
from faceteval.store import record_path_for
from faceteval.store.internal import partial_files
from tests.support.rule_judge import benchmark_responder

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "data" / "llmbar-sample.jsonl"
RESULTS = ROOT / "benchmarks" / "results.json"


@contextmanager
def llm_server(latency: float) -> Iterator[tuple[str, psutil.Process]]:
    """A server process; yields its OpenAI base URL and the process."""
    command = [
        sys.executable,
        "-m",
        "tests.support.llm_server",
        "--latency",
        str(latency),
        "--no-record",
        "--responder",
        "tests.support.rule_judge:benchmark_responder",
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip(), psutil.Process(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)


def judge_command(base_url: str, method: str, concurrency: int, *extra: str) -> list[str]:
    """`faceteval judge` against the benchmark server, without its input and output."""
    flags = ["--method", method, "--model", "openai:bench", "--base-url", base_url, "--quiet"]
    return [sys.executable, "-m", "faceteval", "judge", *flags, "--concurrency", str(concurrency), *extra]


def sample_pairs() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


def instances(n: int) -> list[Instance]:
    """``n`` real LLMBar pairs, each with its own query so that nothing is shared or cached."""
    pairs = sample_pairs()
    return [
        Instance(
            id=str(i),
            query=f"{pairs[i % len(pairs)]['query']}\n(#{i})",
            candidates=tuple(pairs[i % len(pairs)]["candidates"]),
        )
        for i in range(n)
    ]


def captured_requests(pairs: list[Instance]) -> list[CompletionRequest]:
    """The exact requests the DnA job sends, captured with a scripted stand-in (no server involved)."""
    provider = ScriptedProvider(
        lambda request: benchmark_responder({"messages": [m.to_dict() for m in request.messages]})
    )
    judge(pairs, DnA(aspects=3), LLM(provider, ModelSpec("openai", "bench")))
    return provider.requests


def _dicts(request: CompletionRequest) -> list[dict[str, str]]:
    return [message.to_dict() for message in request.messages]


async def _replay(provider: OpenAIProvider, requests: list[CompletionRequest], concurrency: int) -> None:
    limiter = anyio.CapacityLimiter(concurrency)

    async def send(request: CompletionRequest) -> None:
        async with limiter:
            await provider.complete(request)

    try:
        async with anyio.create_task_group() as group:
            for request in requests:
                group.start_soon(send, request)
    finally:
        await provider.aclose()


def transport_cpu(base_url: str, pairs: list[Instance], concurrency: int) -> float:
    """CPU seconds the same requests cost through the provider alone (the openai SDK and its HTTP stack)."""
    requests = captured_requests(pairs)
    provider = OpenAIProvider(api_key="bench", base_url=base_url)
    cpu = time.process_time()
    anyio.run(_replay, provider, requests, concurrency)
    return time.process_time() - cpu


def bench_throughput(calls: int = 2000, latency: float = 0.1, concurrency: int = 64) -> dict[str, Any]:
    """The DnA job, in this process and with `faceteval judge`."""
    pairs = instances(calls // 5)
    with llm_server(latency) as (base_url, server), tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        with SQLiteCache(Path(tmp) / "cache.sqlite") as cache:
            llm = LLM.from_spec("openai:bench", base_url=base_url, concurrency=concurrency, cache=cache)
            startup = time.perf_counter() - started
            measured = [psutil.Process(), server]
            cpu, wall = _cpu(measured), time.perf_counter()
            judgments = judge(pairs, DnA(aspects=3), llm, options=JudgeOptions())
            wall = time.perf_counter() - wall
            main_cpu, server_cpu = (after - before for before, after in zip(cpu, _cpu(measured), strict=True))
        made = sum(j.usage.calls - j.usage.cached_calls for j in judgments)
        transport = transport_cpu(base_url, pairs, concurrency)
        cli = _cli_timings(base_url, pairs, concurrency, Path(tmp))
    ideal = made * latency / concurrency
    cli_run = cli["run"]
    ms = lambda seconds: round(1000 * seconds / made, 3)  # noqa: E731
    return {
        "calls": made,
        "latency_s": latency,
        "concurrency": concurrency,
        "ideal_s": round(ideal, 3),
        "cli_wall_s": cli["wall"],
        "cli_startup_s": cli["startup"],
        "cli_run_s": round(cli_run, 3),
        "ratio_to_ideal": round(cli_run / ideal, 3),
        "cli_runs_s": cli["runs"],
        "library_wall_s": round(wall, 3),
        "library_ratio_to_ideal": round(wall / ideal, 3),
        "library_startup_s": round(startup, 3),
        "cpu_ms_per_call": ms(main_cpu),
        "server_cpu_ms_per_call": ms(server_cpu),
        "all_cpu_s": round(main_cpu + server_cpu, 2),
        "ok": sum(j.status == "ok" for j in judgments),
        "pass_wall": cli_run <= 1.3 * ideal,
        "transport_cpu_ms_per_call": ms(transport),
        "framework_cpu_ms_per_call": ms(main_cpu - transport),
        "pass_framework_cpu": (main_cpu - transport) / made < 0.002,
    }


def _cpu(processes: list[psutil.Process]) -> list[float]:
    """User plus system CPU seconds of each process so far."""
    return [sum(p.cpu_times()[:2]) for p in processes]


def _cli_timings(
    base_url: str, pairs: list[Instance], concurrency: int, tmp: Path, runs: int = 3
) -> dict[str, Any]:
    """`faceteval judge` on the job: median times of ``runs``, and the command's start-up on an empty input.

    ``wall`` and ``startup`` are the commands' wall times. ``run`` is the job's time as the command
    records it in its run record: the whole run less its start-up (opening the model); the
    interpreter's start and the imports are in neither. Each run starts with an empty response cache
    of its own, as a first run does.
    """
    source, empty = tmp / "pairs.jsonl", tmp / "empty.jsonl"
    source.write_text("".join(p.model_dump_json(exclude_defaults=True) + "\n" for p in pairs))
    empty.write_text("")
    base = judge_command(base_url, "dna", concurrency)
    walls: dict[str, list[float]] = {"startup": [], "wall": []}
    jobs: list[float] = []
    for run in range(runs):
        for name, path in (("startup", empty), ("wall", source)):
            cache, out = tmp / f"cli-{run}-{name}.sqlite", tmp / f"cli-{name}.jsonl"
            started = time.perf_counter()
            done = subprocess.run(
                [*base, "--cache", str(cache), str(path), "--out", str(out)], capture_output=True, text=True
            )
            if done.returncode != (1 if path == empty else 0):  # an empty input is an error, after start-up
                raise RuntimeError(f"faceteval judge failed: {done.stderr[-2000:]}")
            walls[name].append(time.perf_counter() - started)
        summary = json.loads(record_path_for(out).read_text(encoding="utf-8"))["summary"]
        jobs.append(round(summary["seconds"] - summary["start_seconds"], 3))
    return {
        "startup": round(statistics.median(walls["startup"]), 3),
        "wall": round(statistics.median(walls["wall"]), 3),
        "run": statistics.median(jobs),
        "runs": jobs,
    }


def bench_streaming(lines: int = 100_000, concurrency: int = 64) -> dict[str, Any]:
    pairs = sample_pairs()
    with llm_server(0.0) as (base_url, _), tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "big.jsonl", Path(tmp) / "out.jsonl"
        with source.open("w", encoding="utf-8") as handle:
            for i in range(lines):
                pair = pairs[i % len(pairs)]
                record = {"id": str(i), "query": f"{pair['query']}\n(#{i})", "candidates": pair["candidates"]}
                handle.write(json.dumps(record) + "\n")
        cache = str(Path(tmp) / "cache.sqlite")
        command = [
            *judge_command(base_url, "direct", concurrency, "--cache", cache),
            str(source),
            "--out",
            str(out),
        ]
        started = time.perf_counter()
        process = psutil.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        samples = []
        counter = _LineCounter(out)
        while process.poll() is None:
            rss = process.memory_info().rss
            samples.append((time.perf_counter() - started, counter.count(), rss))
            time.sleep(0.5)
        wall = time.perf_counter() - started
        if process.returncode != 0:
            raise RuntimeError(process.stderr.read().decode() if process.stderr else "faceteval failed")
        written = _count_lines(out)
    peak = max(rss for _, _, rss in samples)
    at = {pct: _rss_at(samples, lines * pct // 100) for pct in (10, 50, 90)}
    mb = lambda b: round(b / 2**20, 1)  # noqa: E731
    return {
        "lines": lines,
        "written": written,
        "wall_s": round(wall, 1),
        "peak_rss_mb": mb(peak),
        "rss_mb_at_10pct": mb(at[10]),
        "rss_mb_at_50pct": mb(at[50]),
        "rss_mb_at_90pct": mb(at[90]),
        "growth_10_to_90pct_mb": mb(at[90] - at[10]),
        "pass": written == lines and peak < 500 * 2**20,
    }


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))


class _LineCounter:
    """Lines written so far to an output, reading only what was added since the last look: in its
    partial file while the run goes, then in the output it is renamed to."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.lines = 0

    def count(self) -> int:
        for candidate in (*partial_files(self.path), self.path):
            try:
                with candidate.open("rb") as handle:
                    handle.seek(self.offset)
                    chunk = handle.read()
            except FileNotFoundError:  # renamed meanwhile
                continue
            self.offset += len(chunk)
            self.lines += chunk.count(b"\n")
            break
        return self.lines


def _rss_at(samples: list[tuple[float, int, int]], done: int) -> int:
    return next((rss for _, count, rss in samples if count >= done), samples[-1][2])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["throughput", "streaming"])
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    os.chdir(ROOT)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if args.only in (None, "throughput"):
        results["throughput"] = bench_throughput()
        print("throughput:", json.dumps(results["throughput"]))
    if args.only in (None, "streaming"):
        results["streaming"] = bench_streaming(args.lines)
        print("streaming:", json.dumps(results["streaming"]))
    results["machine"] = f"{os.cpu_count()} cores, Python {sys.version.split()[0]}"
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwritten to {RESULTS.relative_to(ROOT)}")
    checks = [
        v for r in results.values() if isinstance(r, dict) for k, v in r.items() if k.startswith("pass")
    ]
    return 0 if all(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
