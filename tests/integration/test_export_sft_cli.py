"""`faceteval export sft` end to end: Fennec judgments made over HTTP, then the SFT sets and their table."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.fennec_judge import FennecJudge
from tests.support.files import read_jsonl, sqlite_database, table_rows, write_jsonl
from tests.support.llm_server import LLMServer

SETS = ("criteria", "score", "judge", "correction")


@pytest.fixture
def rule() -> FennecJudge:
    # The first response shown gains 2: only Accuracy keeps its preference when "good" meets "poor".
    return FennecJudge(quality={"good": {"Accuracy": 5}, "great": 5, "poor": 2}, first_bias=2)


@pytest.fixture
def server(rule: FennecJudge) -> Iterator[LLMServer]:
    with LLMServer(rule.for_server()) as running:
        yield running


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def judge(tmp_path: Path, server: LLMServer, *flags: str) -> Path:
    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
            {"id": "b", "query": "Name a prime.", "candidates": ["great", "poor"]},
            {"id": "c", "query": "Name a prime.", "candidates": ["poor", "great"]},
        ],
    )
    out = tmp_path / "j.jsonl"
    result = invoke(
        "judge",
        pairs,
        "--method",
        "fennec",
        "--criteria-count",
        "3",
        *flags,
        "--out",
        out,
        "-q",
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
        "--cache",
        tmp_path / "cache.sqlite",
    )
    assert result.exit_code == 0, result.output
    return out


def corrections(tmp_path: Path) -> Path:
    judged = {
        "criterion": "Accuracy",
        "description": "Evaluates if the response is correct.",
        "guideline": "1. ...\n5. ...",
        "score": 2,
        "explanation": "It says nothing about clouds.",
    }
    line = {
        "id": "a",
        "candidate": 2,
        "query": "Explain rain.",
        "original": "poor",
        "score": 6.0,
        "threshold": 9.0,
        "status": "corrected",
        "correction": "Rain falls when droplets in clouds grow heavy.",
        "judgments": [judged],
        "error": None,
        "raw": "[Modified Response]: Rain falls when droplets in clouds grow heavy.",
        "usage": {},
        "trace": [],
        "rejudge": None,
    }
    kept = line | {"id": "b", "original": "great", "status": "kept", "correction": None}
    return write_jsonl(tmp_path / "corrected.jsonl", [line, kept])


def test_export_sft_after_judging_with_swap(tmp_path: Path, server: LLMServer) -> None:
    judgments = judge(tmp_path, server, "--swap")
    out = tmp_path / "sft"
    result = invoke("export", "sft", judgments, corrections(tmp_path), "--out", out)
    assert result.exit_code == 0, result.output
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    samples = {name: stats["sets"][name]["samples"] for name in SETS}
    # a: Accuracy in both orders; b and c: the same two prompts per criterion and order, written once
    assert samples == {"criteria": 2, "score": 6, "judge": 2 + 6, "correction": 1}
    assert stats["sets"]["judge"]["inconsistent"] == 4 and stats["sets"]["judge"]["augmented"] == 0
    assert stats["sets"]["judge"]["duplicates"] == 6
    assert stats["inputs"] | {"not_corrected": None} == {
        "judgments": 3,
        "failed": 0,
        "predefined_criteria": 0,
        "single_eval": 0,
        "corrections": 2,
        "corrected": 1,
        "not_corrected": None,
    }
    for name in SETS:
        records = read_jsonl(out / f"{name}.jsonl")
        assert len(records) == samples[name]
        assert all([m["role"] for m in r["messages"]] == ["system", "user", "assistant"] for r in records)
    rows = table_rows(result.output)
    assert rows["Evaluation Criteria"] == ["2", "1", "0"]
    assert rows["Scoring Guidelines"] == ["6", "3", "0"]
    assert rows["Judgement"] == ["8", "0", "4", "6", "0"]
    assert rows["Correction"] == ["1", "0", "1"]
    assert rows["total"] == ["17", "0", "4", "10", "1"]
    assert "stats.json" in result.output


def test_export_sft_augments_one_order_unless_told_not_to(tmp_path: Path, server: LLMServer) -> None:
    judgments = judge(tmp_path, server)
    result = invoke("export", "sft", judgments, "--out", tmp_path / "sft")
    assert result.exit_code == 0, result.output
    judge_stats = json.loads((tmp_path / "sft" / "stats.json").read_text(encoding="utf-8"))["sets"]["judge"]
    # three criteria for each of the three pairs, and each one's swapped sample; c shows b's pair
    # swapped, but the biased judge scored it differently from b's swapped sample
    assert (judge_stats["samples"], judge_stats["augmented"], judge_stats["inconsistent"]) == (18, 9, 0)
    assert (tmp_path / "sft" / "correction.jsonl").read_text(encoding="utf-8") == ""
    assert table_rows(result.output)["Judgement"][:3] == ["18", "9", "0"]

    result = invoke("export", "sft", judgments, "--out", tmp_path / "plain", "--no-augment")
    assert result.exit_code == 0, result.output
    records = read_jsonl(tmp_path / "plain" / "judge.jsonl")
    assert len(records) == 9
    replies = [r["messages"][-1]["content"] for r in records]
    assert all(r.startswith("Response A Score: ") and "\nComparison: " in r for r in replies)


def test_export_sft_with_input_given_and_errors(tmp_path: Path, server: LLMServer) -> None:
    judgments = judge(tmp_path, server)
    moved = tmp_path / "elsewhere.jsonl"
    (tmp_path / "pairs.jsonl").rename(moved)
    result = invoke("export", "sft", judgments, "--out", tmp_path / "sft")
    assert result.exit_code == 1
    assert "name it with --input" in result.output
    result = invoke("export", "sft", judgments, "--out", tmp_path / "sft", "--input", moved)
    assert result.exit_code == 0, result.output

    record_path = tmp_path / "j.run.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["method"]["name"] = "dna"
    record_path.write_text(json.dumps(record), encoding="utf-8")
    result = invoke("export", "sft", judgments, "--out", tmp_path / "other", "--input", moved)
    assert result.exit_code == 1
    assert "not fennec" in result.output


METHODS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "methods.md"


def test_the_docs_fine_tuning_recipe_reads_the_exported_sets_with_trl(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trl.data_utils import is_conversational

    judgments = judge(tmp_path, server, "--swap")
    assert invoke("export", "sft", judgments, corrections(tmp_path), "--out", tmp_path / "sft").exit_code == 0
    blocks = re.findall(r"```python\n(.*?)```", METHODS_PAGE.read_text(encoding="utf-8"), re.S)
    (recipe,) = [block for block in blocks if "SFTTrainer" in block]
    *setup, train_call = recipe.strip().splitlines()
    assert train_call.startswith("SFTTrainer(") and train_call.endswith(".train()")
    code = "\n".join(setup).replace("bf16=True", "bf16=False")  # no GPU here
    namespace: dict[str, Any] = {}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the libraries' own deprecation notices
        exec(compile(code, "docs/methods.md", "exec"), namespace)
    train, config = namespace["train"], namespace["config"]
    stats = json.loads((tmp_path / "sft" / "stats.json").read_text(encoding="utf-8"))
    assert len(train) == stats["total"] and train.column_names == ["messages"]
    assert all(is_conversational(row) for row in train)
    assert (config.num_train_epochs, config.learning_rate, config.max_length, config.packing) == (
        3,
        1e-5,
        2048,
        True,
    )
    assert config.per_device_train_batch_size * config.gradient_accumulation_steps * 8 == 512


def test_an_input_edited_since_it_was_judged_is_refused_by_every_command_that_reads_it_again(
    tmp_path: Path, server: LLMServer
) -> None:
    judgments = judge(tmp_path, server)
    assert all(len(j["input_hash"]) == 16 for j in read_jsonl(judgments))
    pairs = tmp_path / "pairs.jsonl"
    kept = invoke("export", "sft", judgments, "--out", tmp_path / "before")
    assert kept.exit_code == 0, kept.output

    edited = pairs.read_text(encoding="utf-8").replace('"great", "poor"', '"great", "poor too"')
    pairs.write_text(edited, encoding="utf-8")
    expected = "instance 'b' was edited since it was judged"
    exported = invoke("export", "sft", judgments, "--out", tmp_path / "sft")
    assert exported.exit_code == 1 and expected in exported.output
    assert not (tmp_path / "sft").exists()
    corrected = invoke(
        "correct",
        judgments,
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
        "--out",
        tmp_path / "c.jsonl",
    )
    assert corrected.exit_code == 1 and expected in corrected.output
    imported = invoke("review", "import", tmp_path / "review.sqlite", judgments)
    assert imported.exit_code == 1 and expected in imported.output


def test_a_file_not_ours_in_out_is_refused_unless_forced(tmp_path: Path, server: LLMServer) -> None:
    judgments, out = judge(tmp_path, server), tmp_path / "sft"
    out.mkdir()
    database = sqlite_database(out / "judge.jsonl")
    before = database.read_bytes()
    result = invoke("export", "sft", judgments, "--out", out)
    assert result.exit_code == 1, result.output
    message = " ".join(result.output.split())
    assert f"--out {out} would overwrite {database}, an SQLite database" in message
    assert "not training chats JSONL" in message and "pass --force" in message
    assert database.read_bytes() == before and [p.name for p in out.iterdir()] == ["judge.jsonl"]
    forced = invoke("export", "sft", judgments, "--out", out, "--force")
    assert forced.exit_code == 0, forced.output
    assert read_jsonl(out / "judge.jsonl") and (out / "stats.json").is_file()
