"""The run viewer on a big run: time to the first page and memory, for 100,000 judgments.

1. A real judge run makes the lines to copy: `faceteval judge` (DnA-Eval, three aspects, with its
   trace) of a few pairs against the local OpenAI-compatible server of the tests, answering by rule,
   and of one pair it cannot score (a parse error).
2. From them, a run of N judgments (100,000 by default) is written as `judge` writes one: its
   instances (five systems, human labels), its judgments (each a real one under another id, with
   other verdicts and scores, its facets named from a pool of 300 aspects as DnA-Eval's vary by query;
   2% parse errors; one bad line in 10,000) and its run record.
3. `faceteval view` serves it in its own process. Timed over HTTP: the first page of the run (the
   index is built then), the same page again, a filtered page, a page deep in the run, and an item.
   Memory: the server's peak resident set (VmHWM) before and after, and the index's size on disk.

Targets: the first page in under 60 s on this machine, every later page in under 1 s; the server's
peak memory grows by less than 100 MB however big the run (it pages from disk).

Results go to benchmarks/view_results.json and are printed as a Markdown table for
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from faceteval._cli._app import cli
from tests.support.llm_server import LLMServer
from tests.support.review_project import free_port
from tests.support.rule_judge import RuleJudge, stage_of

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "view_results.json"
SYSTEMS = ("alpha", "bravo", "charlie", "delta", "echo")
ASPECTS = 300
TEXTS = {"good": 8, "fine": 6, "weak": 3, "poor": 2}


def template_run(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Real judgments to copy (the last a parse error), and their run record."""
    pairs = [
        {"id": f"t{i}", "query": f"Explain topic {i}.", "candidates": [a, b]}
        for i, (a, b) in enumerate(
            [("good", "weak"), ("poor", "fine"), ("fine", "good"), ("garbled", "good")]
        )
    ]
    (folder / "t.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    judge = RuleJudge(quality=TEXTS, record=False)

    def respond(body: dict[str, Any]) -> str:
        prompt = "\n".join(str(m["content"]) for m in body["messages"])
        if "garbled" in prompt and stage_of(prompt) == "dna.score":
            return "I would rather not say."
        return judge.respond(body["messages"])

    with LLMServer(respond) as server:
        result = CliRunner().invoke(
            cli,
            ["judge", str(folder / "t.jsonl"), "--method", "dna", "--aspects", "3", "--model", "openai:judge",
             "--base-url", server.base_url, "--no-cache", "--quiet", "--out", str(folder / "t-out.jsonl")],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in (folder / "t-out.jsonl").read_text(encoding="utf-8").splitlines()]
    record = json.loads((folder / "t-out.run.json").read_text(encoding="utf-8"))
    assert [j["status"] for j in lines] == ["ok", "ok", "ok", "parse_error"]
    return lines, record


def write_run(folder: Path, n: int, seed: int = 0) -> Path:
    """A judge run of ``n`` judgments in ``folder`` (see the module's docstring); its judgments file."""
    templates, record = template_run(folder)
    ok, failed = templates[:3], templates[3]
    rng = random.Random(seed)
    aspects = [f"Does the output handle aspect {k} of the instruction?" for k in range(ASPECTS)]
    statuses: dict[str, int] = {}
    with (
        (folder / "pairs.jsonl").open("w", encoding="utf-8") as pairs,
        (folder / "j.jsonl").open("w", encoding="utf-8") as out,
    ):
        for i in range(n):
            two = rng.sample(SYSTEMS, 2)
            pair = {"id": f"q{i}", "query": f"Question {i}?", "candidates": [f"answer {i}a", f"answer {i}b"],
                    "label": rng.choice([1, 2, 2, 0]), "metadata": {"systems": two}}  # fmt: skip
            pairs.write(json.dumps(pair) + "\n")
            if i % 10_000 == 9_999:
                out.write(f'{{"id": "q{i}", "method": "dna", "status": "ok", "verdict": \n')
                statuses["bad line"] = statuses.get("bad line", 0) + 1
                continue
            judgment = _varied(failed if rng.random() < 0.02 else rng.choice(ok), f"q{i}", rng, aspects)
            statuses[judgment["status"]] = statuses.get(judgment["status"], 0) + 1
            out.write(json.dumps(judgment, separators=(",", ":")) + "\n")
    record |= {
        "input": "pairs.jsonl",
        "input_path": str(folder / "pairs.jsonl"),
        "output": "j.jsonl",
        "written": {},
        "summary": {**record["summary"], "judgments": statuses},
    }
    (folder / "j.run.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    return folder / "j.jsonl"


def _varied(template: dict[str, Any], id_: str, rng: random.Random, aspects: list[str]) -> dict[str, Any]:
    judgment = json.loads(json.dumps(template))
    judgment["id"] = id_
    if judgment["status"] != "ok":
        return judgment
    names = rng.sample(aspects, len(judgment["facets"]))
    for facet, name in zip(judgment["facets"], names, strict=True):
        facet["name"] = name
        facet["scores"] = [float(rng.randint(1, 10)), float(rng.randint(1, 10))]
    first, second = (sum(f["weight"] * f["scores"][k] for f in judgment["facets"]) for k in (0, 1))
    judgment["scores"] = [round(first, 4), round(second, 4)]
    judgment["verdict"] = 1 if first > second else 2 if second > first else 0
    judgment["ranks"] = [1, 2] if first >= second else [2, 1]
    return judgment


@contextmanager
def viewer(run: Path, index: Path) -> Iterator[tuple[str, int]]:
    """``faceteval view RUN`` in its own process; yields its base URL and process id."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    command = [
        sys.executable,
        "-m",
        "faceteval",
        "view",
        str(run),
        "--port",
        str(port),
        "--index-dir",
        str(index),
    ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(base + "/", timeout=5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the viewer did not start") from None
                time.sleep(0.1)
        yield base, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def fetch(url: str) -> tuple[float, str]:
    clock = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        page = response.read().decode("utf-8")
    return time.perf_counter() - clock, page


def peak_mb(pid: int) -> float:
    """The process's peak resident set so far (VmHWM), in MB."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    assert found is not None
    return int(found[1]) / 1024


def measure(n: int) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="view-bench-"))
    try:
        clock = time.perf_counter()
        judgments = write_run(folder, n)
        made = time.perf_counter() - clock
        with viewer(judgments, folder / "index") as (base, pid):
            _, listing = fetch(base + "/")
            found = re.search(r'href="(/run/[0-9a-f]+)"', listing)
            assert found is not None
            run = base + found[1]
            before = peak_mb(pid)
            first, page = fetch(run)
            assert f"{n:,} items" in page, "not every line is indexed"
            after_first = peak_mb(pid)
            again, _ = fetch(run)
            filtered, page = fetch(run + "?winner=charlie&agreement=disagree&status=ok")
            assert "match the filters" in page
            deep, _ = fetch(run + f"?page={n // 50 - 10}")
            item, page = fetch(run + f"/item?line={n // 2 + 1}")
            assert 'id="trace"' in page
            after = peak_mb(pid)
        index_mb = sum(p.stat().st_size for p in (folder / "index").iterdir()) / 1e6
        return {
            "judgments": n,
            "file_mb": round(judgments.stat().st_size / 1e6, 1),
            "generate_seconds": round(made, 1),
            "first_page_seconds": round(first, 2),
            "same_page_again_seconds": round(again, 3),
            "filtered_page_seconds": round(filtered, 3),
            "deep_page_seconds": round(deep, 3),
            "item_page_seconds": round(item, 3),
            "peak_rss_mb_before": round(before, 1),
            "peak_rss_mb_after_first_page": round(after_first, 1),
            "peak_rss_mb_after": round(after, 1),
            "index_mb": round(index_mb, 1),
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def table(results: dict[str, Any]) -> str:
    rows = [
        ("Run", f"{results['judgments']:,} judgments with traces, {results['file_mb']:,} MB"),
        ("First page (index built)", f"{results['first_page_seconds']} s"),
        ("Same page again", f"{results['same_page_again_seconds']} s"),
        ("Filtered page (winner, agreement, status)", f"{results['filtered_page_seconds']} s"),
        ("A page deep in the run", f"{results['deep_page_seconds']} s"),
        ("An item with its trace", f"{results['item_page_seconds']} s"),
        (
            "Server's peak memory",
            f"{results['peak_rss_mb_before']} MB started, {results['peak_rss_mb_after_first_page']} MB after "
            f"indexing, {results['peak_rss_mb_after']} MB after every page",
        ),
        ("Index on disk", f"{results['index_mb']} MB"),
    ]
    return "| Measure | Result |\n|---|---|\n" + "\n".join(f"| {a} | {b} |" for a, b in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=100_000)
    args = parser.parse_args()
    results = measure(args.judgments)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))


if __name__ == "__main__":
    main()
