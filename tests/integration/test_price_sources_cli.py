"""`faceteval judge` says where each model's price came from: in a dry run, and in the run record."""

from __future__ import annotations

import json
from pathlib import Path

import genai_prices
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.llm import PriceTable
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

PAIRS = [{"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1}]


def judge(tmp_path: Path, *args: str | Path) -> Result:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    argv = ["judge", str(pairs), "--method", "direct", "--no-cache", *map(str, args)]
    return CliRunner().invoke(cli, argv, catch_exceptions=False)


def said(result: Result) -> str:
    return " ".join(result.output.split())


def test_a_dry_run_names_each_prices_source(tmp_path: Path) -> None:
    known = judge(tmp_path, "--model", "openai:gpt-4o-mini", "--dry-run")
    quote = PriceTable.default().quote("openai:gpt-4o-mini")
    assert f"Price of openai:gpt-4o-mini: {quote.describe()}." in said(known)
    assert quote.describe().endswith(f"from genai-prices {genai_prices.__version__}")
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai:gpt-4o-mini: {input: 1, output: 2}\n", encoding="utf-8")
    given = judge(tmp_path, "--model", "openai:gpt-4o-mini", "--dry-run", "--prices", prices)
    assert f"$1 in, $2 out per million tokens, from --prices {prices}." in said(given)
    unknown = judge(tmp_path, "--model", "openai:my-model", "--dry-run")
    assert "No price is known for openai:my-model: add one with --prices FILE" in said(unknown)
    local = judge(tmp_path, "--model", "ollama:qwen2.5:7b", "--dry-run")
    assert "$0 in, $0 out per million tokens, from built-in (models served locally)." in said(local)


def test_the_run_record_names_the_prices_source(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai:judge: {input: 1, output: 2}\n", encoding="utf-8")
    rule = RuleJudge(quality={"good": 9, "poor": 3})
    with LLMServer(rule.for_server()) as server:
        args = ["--model", "openai:judge", "--base-url", server.base_url]
        assert judge(tmp_path, *args, "--out", tmp_path / "a.jsonl", "--prices", prices).exit_code == 0
        assert judge(tmp_path, *args, "--out", tmp_path / "b.jsonl").exit_code == 0
    priced = json.loads((tmp_path / "a.run.json").read_text())["llm"]["prices"]
    unpriced = json.loads((tmp_path / "b.run.json").read_text())
    assert priced == [
        {
            "model": "openai:judge",
            "source": f"--prices {prices}",
            "input": 1.0,
            "output": 2.0,
            "cached_input": None,
        }
    ]
    assert unpriced["llm"]["prices"] == [
        {"model": "openai:judge", "source": "unknown", "input": None, "output": None, "cached_input": None}
    ]
    assert unpriced["spend"]["cost_usd"] is None
