"""Judgments measured slim: their traces are not held (memory flat in their size), and the numbers are
those of the whole judgments."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

from faceteval.core import Instance
from faceteval.datasets import read_judgments
from faceteval.metaeval import Settings, measure
from faceteval.metaeval.internal import JUDGMENTS, SlimInstances, labelled_target, read_slim

N = 2_000
TRACE_KB = 64
SYSTEMS = ("gpt-4", "claude", "llama")


def write_judgments(path: Path) -> list[Instance]:
    """``N`` labelled pairs with systems, and their judgments, each with a ``TRACE_KB`` kB trace."""
    rng = random.Random(0)
    instances, lines = [], []
    for k in range(N):
        systems = tuple(rng.sample(SYSTEMS, 2))
        candidates = ["a" * rng.randint(1, 9), "b" * rng.randint(1, 9)]
        label = rng.choice([0, 1, 2])
        instances.append(Instance(id=f"i{k}", query="q", candidates=candidates, label=label, systems=systems))
        verdict = rng.choice([0, 1, 2])
        entry = {"stage": "score", "messages": [{"role": "user", "content": "p" * (TRACE_KB * 1024)}],
                 "raw": f"[[{verdict}]]", "model": "openai:GPT-4", "input_tokens": 900, "output_tokens": 5,
                 "cost_usd": 0.01, "cached": k % 3 == 0}  # fmt: skip
        judgment = {"id": f"i{k}", "method": "direct", "status": "ok", "verdict": verdict,
                    "scores": [rng.random(), rng.random()], "explanation": "e" * 500,
                    "usage": {"calls": 1, "cost_usd": 0.01}, "trace": [entry]}  # fmt: skip
        lines.append(json.dumps(judgment))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return instances


def test_slim_judgments_hold_no_trace(tmp_path: Path) -> None:
    path = tmp_path / "judgments.jsonl"
    instances = write_judgments(path)
    target = labelled_target(instances, name="pairs")
    settings = Settings(resamples=0)
    warm = read_slim(path)  # once untraced: what a first run imports and caches is not the judgments'
    measure(tmp_path / "warm", target, instances, warm, judge="j", settings=settings)
    del warm

    tracemalloc.start()
    try:
        read = read_slim(path)
        slim = measure(tmp_path / "slim", target, instances, read, judge="j", settings=settings)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    held = N * TRACE_KB * 1024
    assert peak < held / 8, f"peak {peak / 2**20:.1f} MB for {held / 2**20:.0f} MB of traces"

    whole = measure(tmp_path / "whole", target, instances, list(read_judgments(path)), judge="j",
                    settings=settings)  # fmt: skip
    assert slim.summary == whole.summary
    assert slim.summary.model_dump()["bias"]["self_preference"]["judge"]["n"] > 0
    assert (tmp_path / "slim" / JUDGMENTS).read_bytes() == (tmp_path / "whole" / JUDGMENTS).read_bytes()


def test_judgments_and_instances_kept_packed_take_a_few_hundred_bytes_each(tmp_path: Path) -> None:
    """What grows with a run's size: each judgment (three facets, two orders) and instance as kept."""
    facets = [{"name": name, "weight": 0.25, "scores": [7.0, 4.5], "explanation": "e" * 200}
              for name in ("helpfulness", "accuracy", "harmlessness")]  # fmt: skip
    orders = [
        {"order": order, "verdict": 1, "scores": [7.5, 4.0], "facets": facets} for order in ([1, 2], [2, 1])
    ]
    path = tmp_path / "judgments.jsonl"
    lines = [
        json.dumps({"id": f"i{k}", "method": "dna", "status": "ok", "verdict": 1, "scores": [7.5, 4.0],
                    "facets": facets, "orders": orders, "consistent": True,
                    "usage": {"calls": 8, "input_tokens": 9000 + k, "output_tokens": 400, "cost_usd": 0.01}})
        for k in range(N)
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    instances = [
        Instance(id=f"i{k}", query="q" * 500, candidates=["a" * 900, "b" * 700], label=1, category="chat",
                 metadata={"turn": 1}, systems=("gpt-4", "claude"))
        for k in range(N)
    ]  # fmt: skip
    read_slim(path), SlimInstances.of(instances)  # once untraced: first-run imports and caches
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = read_slim(path), SlimInstances.of(instances)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(kept[0]) == len(kept[1]) == N
    assert held / N < 1_000, f"{held / N:.0f} bytes a judgment and its instance"
