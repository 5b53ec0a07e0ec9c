"""Structured output end to end: `faceteval judge --structured` against the local server, through the
official openai and anthropic SDKs, with the server replying JSON under the schema each request sends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer, RecordedRequest, Reply, refusing_json_schema
from tests.support.rule_judge import RuleJudge

PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1},
    {"id": "b", "query": "Explain rain.", "candidates": ["poor", "good"], "label": 2},
    {"id": "c", "query": "Name a prime.", "candidates": ["good", "fair"]},
]


def pairs_file(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


@pytest.fixture
def rule() -> RuleJudge:
    return RuleJudge(quality={"good": 9, "fair": 6, "poor": 3})


def schema_sent(request: RecordedRequest) -> dict[str, Any]:
    response_format = request.response_format
    assert response_format["type"] == "json_schema" and response_format["json_schema"]["strict"] is True
    return dict(response_format["json_schema"])


def test_dna_runs_structured_end_to_end_with_the_verdicts_of_free_text(
    tmp_path: Path, rule: RuleJudge
) -> None:
    cache = tmp_path / "c.sqlite"
    with LLMServer(rule.for_server()) as server:
        base = [
            pairs_file(tmp_path),
            "--method",
            "dna",
            "--model",
            "openai:judge",
            "--base-url",
            server.base_url,
        ]
        structured = invoke(*base, "--structured", "--cache", cache, "--out", tmp_path / "s.jsonl")
        assert structured.exit_code == 0, structured.output
        sent = list(server.requests)
        again = invoke(*base, "--structured", "--cache", cache, "--out", tmp_path / "again.jsonl")
        after_again = len(server.requests)
        free = invoke(*base, "--cache", cache, "--out", tmp_path / "f.jsonl")
        assert again.exit_code == free.exit_code == 0, free.output

    # every stage asked for its schema: aspects (criteria), weights, per-facet scores
    names = {schema_sent(r)["name"] for r in sent}
    assert names == {"criteria", "weights", "scores"}
    scores = next(schema_sent(r)["schema"] for r in sent if schema_sent(r)["name"] == "scores")
    assert list(scores["properties"]) == ["scores", "explanation"]  # the score line first, as in Fig. 2
    assert scores["properties"]["scores"]["minItems"] == scores["properties"]["scores"]["maxItems"] == 2
    # an integer scale is sent as integers: llama.cpp's grammar enforces bounds only on those
    assert scores["properties"]["scores"]["items"] == {
        "type": "integer", "minimum": 1, "maximum": 10, "enum": list(range(1, 11))
    }  # fmt: skip
    assert scores["properties"]["explanation"]["maxLength"] == 1000
    assert scores["additionalProperties"] is False
    # the reply read as the free-text reply is: the same verdicts, scores and facets
    shaped, plain = read_jsonl(tmp_path / "s.jsonl"), read_jsonl(tmp_path / "f.jsonl")
    assert [(j["id"], j["status"], j["verdict"]) for j in shaped] == [
        ("a", "ok", 1),
        ("b", "ok", 2),
        ("c", "ok", 1),
    ]
    assert [(j["verdict"], j["scores"]) for j in shaped] == [(j["verdict"], j["scores"]) for j in plain]
    assert [[f["scores"] for f in j["facets"]] for j in shaped] == [
        [f["scores"] for f in j["facets"]] for j in plain
    ]
    # the trace keeps the JSON replies; the record says the run was structured
    assert all(json.loads(e["raw"]) for j in shaped for e in j["trace"])
    record = json.loads((tmp_path / "s.run.json").read_text())
    assert record["llm"]["config"]["structured"] is True
    assert "structured" not in json.loads((tmp_path / "f.run.json").read_text())["llm"]["config"]
    assert set(record["prompts"]) >= {"dna/aspects", "dna/weights", "dna/score", "common/structured"}
    assert "common/structured" not in json.loads((tmp_path / "f.run.json").read_text())["prompts"]
    # a structured re-run is answered by the cache; a free-text run asks anew (its keys differ)
    assert after_again == len(sent) == 13
    assert json.loads((tmp_path / "again.run.json").read_text())["spend"]["calls"] == 0
    assert json.loads((tmp_path / "f.run.json").read_text())["spend"]["calls"] == 13


@pytest.mark.parametrize(
    ("method", "order"), [("direct", ["scores", "explanation"]), ("cot", ["explanation", "scores"])]
)
def test_a_baseline_runs_structured_end_to_end(
    tmp_path: Path, rule: RuleJudge, method: str, order: list[str]
) -> None:
    out = tmp_path / "o.jsonl"
    with LLMServer(rule.for_server()) as server:
        result = invoke(
            pairs_file(tmp_path), "--method", method, "--model", "openai:judge",
            "--base-url", server.base_url, "--structured", "--no-cache", "--out", out,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        (schema,) = {json.dumps(schema_sent(r)) for r in server.requests}
    assert list(json.loads(schema)["schema"]["properties"]) == order  # chain of thought: reasoning first
    judgments = read_jsonl(out)
    assert [(j["status"], j["verdict"]) for j in judgments] == [("ok", 1), ("ok", 2), ("ok", 1)]
    assert judgments[0]["scores"] == [9.0, 3.0] and judgments[0]["explanation"]


def test_an_invalid_json_reply_is_reasked_then_a_parse_error_counted_in_the_record(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    replies = ['{"scores": [8, 6], "explanation": "fine"}', "8 6\nThe first is better.", '{"scores": [8]}']

    def responder(body: dict[str, Any]) -> str:
        text = body["messages"][-1]["content"]
        if "Name a prime." in text:
            return replies[0]
        return replies[1] if not any(m["role"] == "assistant" for m in body["messages"]) else replies[2]

    with LLMServer(responder) as server:
        result = invoke(
            pairs_file(tmp_path), "--method", "direct", "--model", "openai:judge",
            "--base-url", server.base_url, "--structured", "--no-cache", "--out", out,
        )  # fmt: skip
        assert all(r.response_format is not None for r in server.requests)
        assert len(server.requests) == 5  # one re-ask for each of the two unreadable instances
    assert result.exit_code == 6, result.output  # some judgments failed (exit 6), the rest written
    judgments = {j["id"]: j for j in read_jsonl(out)}
    assert judgments["c"]["status"] == "ok" and judgments["c"]["verdict"] == 1
    failed = judgments["a"]
    assert failed["status"] == "parse_error" and failed["verdict"] is None
    assert "List should have at least 2 items" in failed["error"]
    assert [e["raw"] for e in failed["trace"]] == [replies[1], replies[2]]
    assert "not valid JSON" in failed["trace"][0]["problem"]
    assert "Reply with a JSON object only" in failed["trace"][1]["messages"][-1]["content"]
    record = json.loads((tmp_path / "o.run.json").read_text())
    assert record["summary"]["judgments"] == {"ok": 1, "parse_error": 2}
    assert "2 parse errors" in result.output


def test_anthropic_runs_structured_through_a_forced_tool(tmp_path: Path, rule: RuleJudge) -> None:
    out = tmp_path / "o.jsonl"
    with LLMServer(rule.for_server()) as server:
        result = invoke(
            pairs_file(tmp_path), "--method", "dna", "--model", "anthropic:claude-test",
            "--base-url", server.root_url, "--structured", "--no-cache", "--out", out,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        tools = {r.forced_tool["name"] for r in server.requests if r.forced_tool is not None}
        assert len(tools) == 3 and len(server.requests) == 13
        assert all(r.body["tool_choice"]["type"] == "tool" for r in server.requests)
    assert tools == {"criteria", "weights", "scores"}
    assert [(j["status"], j["verdict"]) for j in read_jsonl(out)] == [("ok", 1), ("ok", 2), ("ok", 1)]


@pytest.mark.parametrize("dialect", ["json_object", "guided", "format"])
def test_structured_takes_the_dialect_the_server_speaks(
    tmp_path: Path, rule: RuleJudge, dialect: str
) -> None:
    out = tmp_path / "o.jsonl"
    with LLMServer(rule.for_server()) as server:
        result = invoke(
            pairs_file(tmp_path), "--method", "direct", "--model", "openai:judge",
            "--base-url", server.base_url, "--out", out, "--no-cache", "--structured", dialect,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert {r.schema_dialect[0] for r in server.requests} == {dialect}  # type: ignore[index]
    assert [(j["status"], j["verdict"]) for j in read_jsonl(out)] == [("ok", 1), ("ok", 2), ("ok", 1)]
    record = json.loads((tmp_path / "o.run.json").read_text())
    assert record["llm"]["config"]["schema_dialect"] == dialect
    assert record["llm"]["structured_fallback"] is None


def test_structured_falls_back_once_to_json_object_on_a_server_that_refuses_json_schema(
    tmp_path: Path, rule: RuleJudge, caplog: pytest.LogCaptureFixture
) -> None:
    """llama-cpp-python's server answers json_schema with HTTP 500 and pydantic's literal_error."""
    out = tmp_path / "o.jsonl"
    with LLMServer(refusing_json_schema(rule.for_server())) as server:
        result = invoke(
            pairs_file(tmp_path), "--method", "direct", "--model", "openai:judge", "--concurrency", "1",
            "--base-url", server.base_url, "--out", out, "--no-cache", "--structured",
        )  # fmt: skip
        dialects = [r.schema_dialect[0] for r in server.requests]  # type: ignore[index]
    assert result.exit_code == 0, result.output
    assert dialects == ["json_schema", "json_object", "json_object", "json_object"]
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "refuses structured output as response_format json_schema" in warning
    assert "--structured json_object" in warning
    assert [(j["status"], j["verdict"]) for j in read_jsonl(out)] == [("ok", 1), ("ok", 2), ("ok", 1)]
    llm = json.loads((tmp_path / "o.run.json").read_text())["llm"]
    assert "schema_dialect" not in llm["config"]  # the cache keys stay the requests' own
    assert llm["structured_fallback"] == "json_object"  # the record says how they were asked


def test_a_named_json_schema_refused_fails_its_instances_with_the_dialect_to_try(
    tmp_path: Path, rule: RuleJudge
) -> None:
    out = tmp_path / "o.jsonl"
    with LLMServer(refusing_json_schema(rule.for_server())) as server:
        result = invoke(
            pairs_file(tmp_path), "--method", "direct", "--model", "openai:judge",
            "--base-url", server.base_url, "--out", out, "--no-cache", "--structured", "json_schema",
        )  # fmt: skip
        assert {r.schema_dialect[0] for r in server.requests} == {"json_schema"}  # type: ignore[index]
    judgments = read_jsonl(out)
    assert {j["status"] for j in judgments} == {"error"}
    assert all("try --structured json_object" in j["error"] for j in judgments)
    assert "try --structured json_object" in result.output


def test_faceteval_toml_sets_structured_as_true_or_as_a_dialect(
    tmp_path: Path, rule: RuleJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for value, expected in (("true", "json_schema"), ('"guided"', "guided"), ("false", None)):
        (tmp_path / "faceteval.toml").write_text(f"[judge]\nstructured = {value}\n", encoding="utf-8")
        with LLMServer(rule.for_server()) as server:
            result = invoke(
                pairs_file(tmp_path), "--method", "direct", "--model", "openai:judge",
                "--base-url", server.base_url, "--out", tmp_path / "o.jsonl", "--no-cache", "--force",
            )  # fmt: skip
            assert result.exit_code == 0, result.output
            assert {r.schema_dialect and r.schema_dialect[0] for r in server.requests} == {expected}


def test_a_reply_cut_off_at_max_tokens_is_a_parse_error_that_says_so(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    with LLMServer(
        lambda _body: Reply('{"scores": [8, 6], "explanation": "The fir', finish_reason="length")
    ) as server:
        result = invoke(
            pairs_file(tmp_path), "--method", "direct", "--model", "openai:judge", "--max-tokens", "16",
            "--base-url", server.base_url, "--out", out, "--no-cache", "--structured",
        )  # fmt: skip
    judgments = read_jsonl(out)
    assert {j["status"] for j in judgments} == {"parse_error"}, result.output
    assert all("cut off at max_tokens 16 (finish reason length)" in j["error"] for j in judgments)
    assert all("raise --max-tokens" in j["error"] for j in judgments)


def test_structured_alone_before_the_input_file_is_auto_and_the_file_is_read(
    tmp_path: Path, rule: RuleJudge
) -> None:
    from faceteval._cli._app import OPTIONAL_VALUES
    from faceteval.llm import SCHEMA_DIALECTS

    assert OPTIONAL_VALUES["--structured"] == {"auto", *SCHEMA_DIALECTS}
    pairs = pairs_file(tmp_path)
    given = (["--structured", pairs], [pairs, "--structured"], ["--structured", "guided", pairs])
    with LLMServer(rule.for_server()) as server:
        dialects = ("json_schema", "json_schema", "guided")
        for k, (args, dialect) in enumerate(zip(given, dialects, strict=True)):
            before = len(server.requests)
            result = invoke(
                *args, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url,
                "--out", tmp_path / f"o{k}.jsonl", "--no-cache",
            )  # fmt: skip
            assert result.exit_code == 0, (args, result.output)
            sent = server.requests[before:]
            assert sent and {r.schema_dialect[0] for r in sent} == {dialect}  # type: ignore[index]
    wrong = CliRunner().invoke(cli, ["judge", str(pairs), "--structured=grammar", "--model", "openai:m"])
    assert wrong.exit_code == 2 and "'grammar' is not one of" in wrong.output


def test_a_panel_records_which_of_its_judges_fell_back_to_json_object(
    tmp_path: Path, rule: RuleJudge
) -> None:
    out = tmp_path / "o.jsonl"
    with (
        LLMServer(rule.for_server()) as taking,
        LLMServer(refusing_json_schema(rule.for_server())) as refusing,
    ):
        result = invoke(
            pairs_file(tmp_path), "--method", "direct", "--model", f"openai:a@{taking.base_url}",
            "--model", f"openai:b@{refusing.base_url}", "--concurrency", "1", "--out", out, "--no-cache",
            "--structured",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert {r.schema_dialect[0] for r in taking.requests} == {"json_schema"}  # type: ignore[index]
        assert refusing.requests[-1].schema_dialect[0] == "json_object"  # type: ignore[index]
    assert [(j["status"], j["verdict"]) for j in read_jsonl(out)] == [("ok", 1), ("ok", 2), ("ok", 1)]
    llm = json.loads((tmp_path / "o.run.json").read_text())["llm"]
    assert llm["structured_fallback"] == "json_object (openai:b)"  # a: json_schema, as asked
