"""A count of one is said in the singular: "1 instance", "1 parse error", "1 retry", "1 output"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.llm_server import LLMServer, Status


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], terminal_width=200)


def one_pair(tmp_path: Path) -> Path:
    return write(tmp_path / "pair.jsonl", [{"id": "a", "query": "Explain rain.", "candidates": ["x", "y"]}])


def said(result: Result) -> str:
    return " ".join(result.output.split())


def test_a_dry_run_of_one_instance(tmp_path: Path) -> None:
    result = invoke("judge", one_pair(tmp_path), "--model", "openai:gpt-4o-mini", "--dry-run", "--no-cache")

    assert result.exit_code == 0, result.output
    assert "1 instance; 0 invalid input lines." in said(result)


def test_a_run_with_one_parse_error_and_one_retry(tmp_path: Path) -> None:
    with LLMServer(lambda body: "I cannot compare these responses.") as server:
        server.enqueue(Status(503))
        result = invoke(
            "judge", one_pair(tmp_path), "--method", "direct", "--model", "openai:judge",
            "--base-url", server.base_url, "--no-cache", "--out", tmp_path / "o.jsonl",
        )  # fmt: skip

    assert result.exit_code == 1, result.output
    summary = said(result)
    assert "1 of 1: 0 ok, 1 parse error, 0 errors" in summary
    assert "1 retry" in summary and "retries" not in summary


def test_a_file_of_one_bad_row(tmp_path: Path) -> None:
    labels = write(tmp_path / "labels.jsonl", [{"id": "a", "query": "q", "candidates": ["x"], "label": 2}])

    result = invoke("meta-eval", labels, "--judgments", labels, "--out", tmp_path / "run")

    assert result.exit_code == 1
    assert "1 bad row:" in said(result)
    assert "label 2 is out of range: there is 1 candidate" in said(result)
