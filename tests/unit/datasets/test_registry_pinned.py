"""Every built-in benchmark, exactly as declared and as read from the staged data: pinned.

``registry_pinned.json`` holds, for each registered benchmark in registry order, its declaration's
fields (title, labels, licence, criteria, fetch list with checksums, notes...), the number of
instances it reads and a hash of them (ids, texts, labels, scores, metadata), and each recorded judge
present with its fields, its number of judgments, a hash of them and the numbers it reports; and for
each CoEval task the annotators' review actions. Any change to what a benchmark declares or reads
fails here, whatever module declares it.

After a deliberate change to a benchmark, rewrite the file and review its diff:
    FACETEVAL_DATA_DIR=../shared/data python -c \
        "from tests.unit.datasets.test_registry_pinned import write; write()"
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from faceteval.datasets import Benchmark, RecordedSource, benchmarks, get_benchmark
from faceteval.datasets._coeval_recorded import coeval_actions
from faceteval.errors import FacetevalError

PINNED = Path(__file__).with_name("registry_pinned.json")
_CALLABLES = ("load", "recorded")
"""Benchmark fields that are code (what they return is pinned instead)."""


def data_dir() -> Path:
    """The staged data; a missing directory fails the test (it is never skipped)."""
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    root = Path(value)
    assert root.is_dir(), f"FACETEVAL_DATA_DIR={value} is not a directory"
    return root


def _digest(items: Iterable[BaseModel | dict[str, Any]]) -> tuple[int, str]:
    """How many items, and the SHA-256 of their JSON, one line each, in order."""
    sha = hashlib.sha256()
    count = 0
    for item in items:
        text = item.model_dump_json() if isinstance(item, BaseModel) else json.dumps(item, sort_keys=True)
        sha.update(text.encode() + b"\n")
        count += 1
    return count, sha.hexdigest()


def _declaration(benchmark: Benchmark) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for spec in dataclasses.fields(benchmark):
        if spec.name in _CALLABLES:
            continue
        value = getattr(benchmark, spec.name)
        if spec.name == "criteria":
            value = [c.model_dump(mode="json") for c in value]
        elif spec.name == "fetch":
            value = [dataclasses.asdict(f) for f in value]
        elif isinstance(value, tuple):
            value = list(value)
        fields[spec.name] = value
    return fields


def _recorded(source: RecordedSource, root: Path) -> dict[str, Any]:
    count, sha = _digest(source.load(root))
    return {
        "name": source.name,
        "judge": source.judge,
        "description": source.description,
        "judgments": count,
        "sha256": sha,
        "reported": None if source.reported is None else source.reported(root),
    }


def _state(benchmark: Benchmark, root: Path) -> dict[str, Any]:
    instances = benchmark.instances(root)
    count, sha = _digest(instances)
    labels = Counter(str(i.label) for i in instances)
    return {
        "declaration": _declaration(benchmark),
        "instances": count,
        "sha256": sha,
        "labels": dict(sorted(labels.items())),
        "aspect_means": {
            aspect: round(sum(i.scores[aspect] for i in instances if i.scores and aspect in i.scores), 6)
            for aspect in benchmark.aspects
        },
        "recorded": [_recorded(source, root) for source in benchmark.recorded_sources(root)],
    }


def _actions(name: str, root: Path) -> dict[str, Any]:
    records = coeval_actions(root, name)
    count, sha = _digest({**dataclasses.asdict(r), "change": r.change} for r in records)
    return {"records": count, "sha256": sha}


def observe(root: Path) -> dict[str, Any]:
    """The whole observable state of the registry over the data directory ``root``."""
    registered = benchmarks()
    coeval = [b.name for b in registered if b.name.startswith("coeval-")]
    return {
        "order": [b.name for b in registered],
        "benchmarks": {b.name: _state(b, root) for b in registered},
        "coeval_actions": {name: _actions(name, root) for name in coeval},
    }


def write() -> None:
    """Rewrite ``registry_pinned.json`` from the current code and data (then review its diff)."""
    PINNED.write_text(json.dumps(observe(data_dir()), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def pinned() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PINNED.read_text(encoding="utf-8"))
    return data


def test_the_registry_order_is_pinned(pinned: dict[str, Any]) -> None:
    assert [b.name for b in benchmarks()] == pinned["order"]
    assert all(get_benchmark(name).name == name for name in pinned["order"])


@pytest.mark.parametrize("name", [b.name for b in benchmarks()])
def test_each_benchmark_is_pinned(name: str, pinned: dict[str, Any]) -> None:
    observed = json.loads(json.dumps(_state(get_benchmark(name), data_dir()), ensure_ascii=False))
    expected = pinned["benchmarks"][name]
    assert observed["declaration"] == expected["declaration"]
    assert (observed["instances"], observed["labels"]) == (expected["instances"], expected["labels"])
    assert observed["aspect_means"] == expected["aspect_means"]
    assert observed["sha256"] == expected["sha256"]
    assert [s["name"] for s in observed["recorded"]] == [s["name"] for s in expected["recorded"]]
    assert observed["recorded"] == expected["recorded"]


def test_coeval_actions_are_pinned(pinned: dict[str, Any]) -> None:
    for name, expected in pinned["coeval_actions"].items():
        assert _actions(name, data_dir()) == expected


def test_unknown_names_still_explain_themselves() -> None:
    with pytest.raises(FacetevalError, match=r"unknown benchmark 'nope'; `faceteval datasets list`"):
        get_benchmark("nope")
    with pytest.raises(FacetevalError, match=r"faireval has no recorded judge 'x'; available: none"):
        get_benchmark("faireval").recorded_source("x", data_dir())


def test_a_misspelt_name_gets_the_closest_ones() -> None:
    with pytest.raises(
        FacetevalError, match=r"unknown benchmark 'LLMBar-adversrial' \(did you mean 'llmbar-adv"
    ):
        get_benchmark("LLMBar-adversrial")
    with pytest.raises(
        FacetevalError, match=r"no recorded judge 'gpt4-pari' \(did you mean 'gpt4-pair'\?\); available: rec"
    ):
        get_benchmark("mtbench-human").recorded_source("gpt4-pari", data_dir())
