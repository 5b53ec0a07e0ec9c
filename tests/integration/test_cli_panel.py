"""A judge panel over HTTP: each model judges with every stage of the method, the verdicts are voted."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval import LLM, DnA, Instance, Panel, judge
from faceteval._cli._app import cli
from faceteval.errors import ConfigError
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

QUALITY_A = {"good": 9, "poor": 3}
QUALITY_B = {"good": 4, "poor": 8}  # prefers the other candidate
QUALITY_C = {"good": 7, "poor": 5}
C_ASPECTS = ("Is it accurate?", "Is it clear?", "Is it brief?")


def responder(judges: dict[str, RuleJudge]) -> Any:
    """Replies per model: the request's ``model`` picks the rule judge that answers."""
    return lambda body: judges[body["model"]].respond(body["messages"])


@pytest.fixture
def servers() -> Iterator[tuple[LLMServer, LLMServer]]:
    first = {"judge-a": RuleJudge(quality=QUALITY_A), "judge-b": RuleJudge(quality=QUALITY_B)}
    first["same"] = RuleJudge(quality=QUALITY_A)
    second = {
        "judge-c": RuleJudge(quality=QUALITY_C, aspects=C_ASPECTS),
        "same": RuleJudge(quality=QUALITY_B),
    }
    with LLMServer(responder(first)) as one, LLMServer(responder(second)) as two:
        yield one, two


def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    rows = [
        {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
        {"id": "b", "query": "Explain rain.", "candidates": ["poor", "good"]},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def test_three_judges_each_run_every_stage_and_the_majority_decides(
    tmp_path: Path, servers: tuple[LLMServer, LLMServer]
) -> None:
    one, two = servers
    out, cache = tmp_path / "j.jsonl", tmp_path / "c.sqlite"
    judges = [
        "--model",
        "openai:judge-a",
        "--model",
        "openai:judge-b",
        "--model",
        f"openai:judge-c@{two.base_url}",
    ]
    args = [
        pairs(tmp_path),
        "--method",
        "dna",
        *judges,
        "--base-url",
        one.base_url,
        "--panel-vote",
        "majority",
    ]
    result = invoke(*args, "--out", out, "--cache", cache)
    assert result.exit_code == 0, result.output

    judgments = read_jsonl(out)
    assert [(j["id"], j["status"], j["verdict"], j["panel_vote"]) for j in judgments] == [
        ("a", "ok", 1, "majority"),
        ("b", "ok", 2, "majority"),
    ]
    first = judgments[0]
    assert [(m["judge"], m["verdict"]) for m in first["panel"]] == [
        ("openai:judge-a", 1),
        ("openai:judge-b", 2),
        ("openai:judge-c", 1),
    ]
    # each judge's own facets: judge-c proposed its own aspects
    assert [f["name"] for f in first["panel"][2]["facets"]] == list(C_ASPECTS)
    assert first["panel"][0]["facets"][0]["name"] != C_ASPECTS[0]
    assert first["facets"] == []  # the judges scored different facets: none combined
    # every stage ran per judge, each at its own endpoint, and the usage is their sum
    asked = Counter(r.body["model"] for r in one.requests) + Counter(r.body["model"] for r in two.requests)
    assert set(Counter(r.body["model"] for r in one.requests)) == {"judge-a", "judge-b"}
    assert set(Counter(r.body["model"] for r in two.requests)) == {"judge-c"}
    stages = {entry["stage"] for entry in first["trace"]}
    assert {"dna.aspects", "dna.weights", "dna.score"} <= stages
    assert sum(j["usage"]["calls"] for j in judgments) == sum(asked.values())
    for judgment in judgments:
        assert judgment["usage"]["calls"] == sum(m["usage"]["calls"] for m in judgment["panel"])
    record = json.loads(out.with_name("j.run.json").read_text())
    assert record["llm"]["model"] == "panel (majority): openai:judge-a, openai:judge-b, openai:judge-c"
    endpoints = [one.base_url, one.base_url, two.base_url]
    assert record["llm"]["identity"] == " | ".join(f"openai@{url}" for url in endpoints)

    # the same run again is answered from the cache: each judge's replies under its own model
    before = len(one.requests) + len(two.requests)
    again = invoke(*args, "--out", out, "--cache", cache)
    assert again.exit_code == 0, again.output
    assert len(one.requests) + len(two.requests) == before
    assert [(j["verdict"], [m["verdict"] for m in j["panel"]]) for j in read_jsonl(out)] == [
        (1, [1, 2, 1]),
        (2, [2, 1, 2]),
    ]


def test_one_model_at_two_endpoints_is_two_judges(
    tmp_path: Path, servers: tuple[LLMServer, LLMServer]
) -> None:
    """The same model name served at two endpoints: two judges, cached apart (a split is a tie)."""
    one, two = servers
    out, cache = tmp_path / "j.jsonl", tmp_path / "c.sqlite"
    panel = f"openai:same@{one.base_url},openai:same@{two.base_url}"
    result = invoke(pairs(tmp_path), "--method", "direct", "--panel", panel, "--out", out, "--cache", cache)
    assert result.exit_code == 0, result.output
    judgments = read_jsonl(out)
    assert [[m["verdict"] for m in j["panel"]] for j in judgments] == [[1, 2], [2, 1]]
    assert [j["verdict"] for j in judgments] == [0, 0]  # one vote each: no majority, a tie
    assert [m["judge"].startswith("openai:same@") for m in judgments[0]["panel"]] == [True, True]
    assert len(one.requests) == len(two.requests) == 2


def test_panel_flags_that_do_not_make_a_panel(tmp_path: Path, servers: tuple[LLMServer, LLMServer]) -> None:
    one, _ = servers
    both = invoke(pairs(tmp_path), "--model", "openai:judge-a", "--panel", "openai:judge-a,openai:judge-b")
    assert both.exit_code == 2
    assert "--model (repeated) or with --panel, not both" in both.output
    twice = invoke(pairs(tmp_path), "--panel", "openai:judge-a,openai:judge-a", "--base-url", one.base_url)
    assert twice.exit_code == 2
    assert "names each judge once" in twice.output


def test_a_panel_from_python_with_the_median(servers: tuple[LLMServer, LLMServer]) -> None:
    one, two = servers
    judges = [
        LLM.from_spec("openai:judge-a", base_url=one.base_url, api_key="test"),
        LLM.from_spec("openai:judge-b", base_url=one.base_url, api_key="test"),
        LLM.from_spec("openai:judge-c", base_url=two.base_url, api_key="test"),
    ]
    instance = Instance(id="a", query="Explain rain.", candidates=["good", "poor"])
    [judgment] = judge([instance], DnA(), Panel(judges, vote="median"))
    assert judgment.panel_vote == "median"
    members = [m.scores for m in judgment.panel]
    assert judgment.scores == [sorted(s[k] for s in members if s)[1] for k in range(2)]  # type: ignore[index]
    assert judgment.verdict == 1
    with pytest.raises(ConfigError, match="two or more"):
        Panel(judges[:1])


def test_meta_eval_measures_a_live_panel_and_each_judge(
    tmp_path: Path, servers: tuple[LLMServer, LLMServer]
) -> None:
    one, two = servers
    labels = tmp_path / "labels.jsonl"
    rows = [
        {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1},
        {"id": "b", "query": "Explain rain.", "candidates": ["poor", "good"], "label": 2},
    ]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "run"
    panel = f"openai:judge-a,openai:judge-b,openai:judge-c@{two.base_url}"
    args = ["meta-eval", str(labels), "--method", "direct", "--panel", panel, "--base-url", one.base_url]
    result = CliRunner().invoke(
        cli,
        [*args, "--out", str(out), "--cache", str(tmp_path / "c.sqlite"), "--resamples", "0"],
        catch_exceptions=False,
        terminal_width=200,
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())["summary"]
    assert summary["judge"].startswith("direct (panel (majority): openai:judge-a")
    assert summary["agreement"]["hits"] == 2
    assert [(m["judge"], m["agreement"]["hits"]) for m in summary["panel"]["judges"]] == [
        ("openai:judge-a", 2),
        ("openai:judge-b", 0),
        ("openai:judge-c", 2),
    ]
    assert summary["panel"]["unanimous"] == {"value": 0.0, "hits": 0, "n": 2}
    assert "panel members (combined by majority)" in result.output
