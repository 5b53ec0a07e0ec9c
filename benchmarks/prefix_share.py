"""The shared-prefix share of DnA-Eval's per-facet score calls, in the papers' order and with
``--prefix-cache``, on real benchmark instances, and what a server's prefix cache makes of it.

For each benchmark (LLMBar Natural + Adversarial, and the first ``--limit`` MT-Bench human pairs),
`faceteval judge --method dna --swap --no-cache` runs twice against the tests' local server
(tests/support/llm_server.py, in this process) with its prefix-cache emulation on: each reply reports
as cached the tokens (characters / 4) its prompt shares with the longest-matching earlier prompt, as
vLLM's automatic prefix caching would. From each run it reads what the command records:

- ``prefix_share``: the run record's ``summary.prefix_share``, the characters the per-facet prompts of
  one instance and order share (their longest common prefix), of all their characters: the figure
  ``--prefix-cache`` reports (issue 28 gave 64% for DnA's score calls, measured on toy pairs);
- ``score_prefix_share``: the same computed here over the ``dna.score`` calls alone, from the server's
  requests (the run record's figure also counts any other stage asked more than once per order);
- ``cached_share``: ``spend.cached_input_tokens`` of ``spend.input_tokens`` as the server reported them
  (the emulation shares across instances too: the instructions every prompt starts with);
- ``openai_cached_share``: the same tokens under OpenAI's rule (a prompt is cached only from 1,024
  tokens, in steps of 128), recomputed here from the requests the server received;
- the cost of the run's tokens at a few models' prices (genai-prices'), with cached tokens at their
  cached-input rate (emulated, then under OpenAI's rule) and with none cached.

Results are printed as JSON and written to benchmarks/prefix_share_results.json; benchmarks/README.md
keeps the figures.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from faceteval._util.prefix import common_prefix
from faceteval.core import Instance
from faceteval.datasets import DATA_DIR_ENV, get_benchmark
from faceteval.llm import PriceTable
from tests.support.llm_server import LLMServer, RecordedRequest
from tests.support.rule_judge import RuleJudge

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "prefix_share_results.json"
BENCHMARKS = {"llmbar": ("llmbar-natural", "llmbar-adversarial"), "mtbench": ("mtbench-human",)}
"""LLMBar's 419 pairs whole (DnA proposes three aspects); MT-Bench's human pairs up to ``--limit`` (its
six criteria given)."""
JUDGE = RuleJudge(weights=(20, 20, 15, 15, 15, 15), record=False)
"""Every candidate at quality 5; a weight for each of up to six aspects."""
PRICED = ("openai:gpt-4o-mini", "openai:gpt-4.1", "openai:gpt-5-mini")
OPENAI_MIN, OPENAI_STEP = 1024, 128
"""OpenAI caches a prompt's prefix only from 1,024 tokens, in steps of 128 tokens."""


def instances(names: Iterable[str], data_dir: Path, limit: int | None) -> list[Instance]:
    found: list[Instance] = []
    for name in names:
        found += list(get_benchmark(name).load(data_dir))
    return found[:limit] if limit else found


def judged(
    source: Path, out: Path, *, prefix_cache: bool, concurrency: int
) -> tuple[dict[str, Any], list[RecordedRequest]]:
    """The run record of one `faceteval judge` run and the requests the server received."""
    with LLMServer(lambda body: JUDGE.respond(body["messages"]), prefix_cache=True) as server:
        command = [sys.executable, "-m", "faceteval", "judge", str(source), "--method", "dna", "--swap"]
        command += ["--model", "openai:bench", "--base-url", server.base_url, "--no-cache", "--quiet"]
        command += ["--concurrency", str(concurrency), "--out", str(out)]
        command += ["--prefix-cache"] if prefix_cache else []
        env = os.environ | {"PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
        subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
        requests = list(server.requests)
    record = json.loads(out.with_suffix(".run.json").read_text(encoding="utf-8"))
    return record, requests


def prompt_of(request: RecordedRequest) -> str:
    """The prompt as the server's emulation reads it: the system prompt and messages in order."""
    body = request.body
    return str(body.get("system") or "") + "".join(
        str(m.get("content", "")) for m in body.get("messages") or []
    )


def score_prefix_share(records: list[dict[str, Any]]) -> float:
    """Over the judgments' ``dna.score`` calls, grouped by instance and order: shared characters / all."""
    shared = total = 0
    for judgment in records:
        groups: dict[str, list[str]] = {}
        for entry in judgment.get("trace") or []:
            if entry.get("stage") == "dna.score":
                key = json.dumps(entry.get("order"))
                text = "".join(f"<{m.get('role', '')}>{m.get('content', '')}" for m in entry["messages"])
                groups.setdefault(key, []).append(text)
        for prompts in groups.values():
            if len(prompts) > 1:
                total += sum(map(len, prompts))
                shared += len(prompts) * common_prefix(prompts)
    return round(shared / total, 4) if total else 0.0


def openai_cached(requests: list[RecordedRequest]) -> tuple[int, int]:
    """(input tokens, cached tokens) of the requests in the order received, under OpenAI's rule (each
    prompt's longest prefix shared with an earlier one: with a neighbour in sorted order)."""
    seen: list[str] = []
    tokens = cached = 0
    for request in requests:
        prompt = prompt_of(request)
        at = bisect.bisect_left(seen, prompt)
        shared = max((common_prefix((prompt, s)) for s in seen[max(at - 1, 0) : at + 1]), default=0) // 4
        seen.insert(at, prompt)
        length = max(1, len(prompt) // 4)
        tokens += length
        if length >= OPENAI_MIN and shared >= OPENAI_MIN:
            cached += shared // OPENAI_STEP * OPENAI_STEP
    return tokens, cached


def score_prompt_tokens(records: list[dict[str, Any]]) -> int:
    """The median length of the ``dna.score`` prompts, in tokens (characters / 4)."""
    lengths = sorted(
        sum(len(str(m.get("content", ""))) for m in entry["messages"]) // 4
        for judgment in records
        for entry in judgment.get("trace") or []
        if entry.get("stage") == "dna.score"
    )
    return lengths[len(lengths) // 2] if lengths else 0


def costs(spend: dict[str, Any], openai_rule: int) -> dict[str, dict[str, float]]:
    table = PriceTable.default()
    out: dict[str, dict[str, float]] = {}
    for spec in PRICED:
        price = table.lookup(spec)
        assert price is not None, spec
        tokens, output = spend["input_tokens"], spend["output_tokens"]
        out[spec] = {
            "none_cached": round(price.cost(tokens, output), 4),
            "emulated": round(price.cost(tokens, output, spend.get("cached_input_tokens", 0)), 4),
            "openai_rule": round(price.cost(tokens, output, openai_rule), 4),
        }
    return out


def measure(name: str, items: list[Instance], folder: Path, concurrency: int) -> dict[str, Any]:
    source = folder / f"{name}.jsonl"
    lines = (json.dumps(i.model_dump(mode="json", exclude_none=True)) for i in items)
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    result: dict[str, Any] = {"instances": len(items)}
    for label, prefix_cache in (("papers_order", False), ("prefix_cache", True)):
        out = folder / f"{name}-{label}.jsonl"
        record, requests = judged(source, out, prefix_cache=prefix_cache, concurrency=concurrency)
        judgments = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        spend = record["spend"]
        tokens, rule = openai_cached(requests)
        result[label] = {
            "calls": len(requests),
            "prefix_share": record["summary"].get("prefix_share"),
            "score_prefix_share": score_prefix_share(judgments),
            "input_tokens": spend["input_tokens"],
            "cached_input_tokens": spend.get("cached_input_tokens", 0),
            "cached_share": round(spend.get("cached_input_tokens", 0) / spend["input_tokens"], 4),
            "openai_cached_share": round(rule / tokens, 4),
            "score_prompt_tokens_median": score_prompt_tokens(judgments),
            "cost_usd": costs(spend, rule),
        }
        print(name, label, json.dumps(result[label]), file=sys.stderr)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir", type=Path, default=os.environ.get(DATA_DIR_ENV), help=f"default: ${DATA_DIR_ENV}"
    )
    parser.add_argument("--limit", type=int, default=400, help="MT-Bench pairs at most")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    if args.data_dir is None:
        parser.error(f"name the benchmarks' directory with --data-dir or {DATA_DIR_ENV} (make bench does)")
    results: dict[str, Any] = {"method": "dna --swap", "limit": args.limit}
    with tempfile.TemporaryDirectory() as folder:
        for name, parts in BENCHMARKS.items():
            items = instances(parts, Path(args.data_dir), None if name == "llmbar" else args.limit)
            results[name] = measure(name, items, Path(folder), args.concurrency)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
