"""``--endpoint-id``: a local server restarted on another port keeps its cached replies when the
runs name its identity, and a run that finds no hit in a cache holding its model's replies under
another identity says so at its end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from faceteval.errors import ConfigError
from faceteval.llm import LLM
from faceteval.llm.internal import endpoint_identity
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
    {"id": "b", "query": "Name a prime.", "candidates": ["poor", "good"]},
]


def server() -> LLMServer:
    return LLMServer(RuleJudge(quality={"good": 9, "poor": 3}).for_server())


def judge(pairs: Path, at: LLMServer, out: Path, cache: Path, *extra: str) -> Result:
    args = ["judge", pairs, "--method", "direct", "--model", "openai:judge", "--base-url", at.base_url]
    args += ["--out", out, "--cache", cache, *extra]
    return CliRunner().invoke(cli, [*map(str, args)], catch_exceptions=False)


def record_of(out: Path) -> dict[str, Any]:
    return json.loads(out.with_suffix(".run.json").read_text(encoding="utf-8"))


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    return path


def test_a_named_endpoint_keeps_its_cache_on_another_port(tmp_path: Path, pairs: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with server() as first:
        assert judge(pairs, first, tmp_path / "1.jsonl", cache, "--endpoint-id", "lab").exit_code == 0
        assert first.request_count == 2
    with server() as moved:
        assert moved.port != first.port
        result = judge(pairs, moved, tmp_path / "2.jsonl", cache, "--endpoint-id", "lab")
        assert result.exit_code == 0, result.output
        assert moved.request_count == 0
    record = record_of(tmp_path / "2.jsonl")
    assert (record["spend"]["cached"], record["llm"]["identity"]) == (2, "openai@id:lab")
    assert "--endpoint-id" not in result.stderr
    same = [json.loads(line)["verdict"] for line in (tmp_path / "1.jsonl").read_text().splitlines()]
    assert same == [json.loads(line)["verdict"] for line in (tmp_path / "2.jsonl").read_text().splitlines()]


def test_faceteval_toml_names_the_endpoint_of_a_commands_runs(
    tmp_path: Path, pairs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "faceteval.toml").write_text('[judge]\nendpoint-id = "lab"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "c.sqlite"
    with server() as first:
        assert judge(pairs, first, tmp_path / "1.jsonl", cache).exit_code == 0
    with server() as moved:
        assert judge(pairs, moved, tmp_path / "2.jsonl", cache).exit_code == 0
        assert moved.request_count == 0
        assert judge(pairs, moved, tmp_path / "3.jsonl", cache, "--endpoint-id", "other").exit_code == 0
        assert moved.request_count == 2  # the flag wins over the file
    assert record_of(tmp_path / "2.jsonl")["llm"]["identity"] == "openai@id:lab"


def test_a_run_with_no_hits_names_the_other_identity_of_its_model(tmp_path: Path, pairs: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with server() as first:
        assert judge(pairs, first, tmp_path / "1.jsonl", cache).exit_code == 0
        assert "--endpoint-id" not in judge(pairs, first, tmp_path / "again.jsonl", cache).stderr
    with server() as moved:
        result = judge(pairs, moved, tmp_path / "2.jsonl", cache)
        assert (result.exit_code, moved.request_count) == (0, 2)
    lines = [line for line in result.stderr.splitlines() if "--endpoint-id" in line]
    assert len(lines) == 1
    assert f"openai@{first.base_url}" in lines[0] and f"openai@{moved.base_url}" in lines[0]
    assert "--endpoint-id NAME" in lines[0]


def test_the_hint_names_the_id_an_earlier_run_gave(tmp_path: Path, pairs: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with server() as first:
        assert judge(pairs, first, tmp_path / "1.jsonl", cache, "--endpoint-id", "lab").exit_code == 0
        result = judge(pairs, first, tmp_path / "2.jsonl", cache)
    assert "--endpoint-id lab " in result.stderr.replace("\n", " ")


def test_another_model_in_the_cache_is_not_mentioned(tmp_path: Path, pairs: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with server() as first:
        assert judge(pairs, first, tmp_path / "1.jsonl", cache).exit_code == 0
        args = ["judge", pairs, "--method", "direct", "--model", "openai:other", "--base-url", first.base_url]
        result = CliRunner().invoke(
            cli, [*map(str, [*args, "--out", tmp_path / "2.jsonl", "--cache", cache])], catch_exceptions=False
        )
    assert result.exit_code == 0 and "--endpoint-id" not in result.stderr


def test_from_spec_names_the_identity() -> None:
    llm = LLM.from_spec("openai:qwen", base_url="http://127.0.0.1:9/v1", api_key="x", endpoint_id="lab")
    assert llm.identity == "openai@id:lab" == llm.describe()["identity"]
    assert LLM.from_spec("openai:qwen", base_url="http://127.0.0.1:9/v1", api_key="x").identity.endswith(
        ":9/v1"
    )
    with pytest.raises(ConfigError, match="endpoint id"):
        endpoint_identity("vllm", " ")
