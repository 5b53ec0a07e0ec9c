"""``--score-mode logprobs`` end to end: real logprob payloads from the local server, through the openai SDK.

The server scripts a judge that writes "8 8" for every DnA aspect: parsed, every pair is a tie (DnA's
Equation 4); with log-probabilities, the judge's uncertainty at each "8" decides. At the first "8" it
hesitates toward 7 (P 8 = .5, 7 = .4, 9 = .1: expected 7.7), at the second toward 9 (P 8 = .5, 9 = .4,
7 = .1: expected 8.3), so Response 2 wins.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval import LLM, Direct, DnA, Instance, JudgeOptions, judge
from faceteval._cli._app import cli
from faceteval.errors import ConfigError
from faceteval.parsing import NO_LOGPROBS
from faceteval.store import JudgeRecord, SQLiteCache, read_record
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer, Reply, tokens_of

FIRST = {"8": 0.5, "7": 0.4, "9": 0.1}
SECOND = {"8": 0.5, "9": 0.4, "7": 0.1}
CRITERIA = [{"name": "Accuracy"}, {"name": "Clarity"}]
PAIR = Instance(id="p", query="Explain rain.", candidates=["Clouds fill.", "Drops fall."], criteria=CRITERIA)


def responder(body: Mapping[str, Any]) -> Reply:
    prompt = "\n".join(str(m["content"]) for m in body["messages"])
    if "importance weightage" in prompt:
        return Reply("60% 40%")
    text = "8 8\nBoth explain rain; neither is clearly better."
    return Reply(text, tokens=tokens_of(text, [FIRST, SECOND]))


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with LLMServer(responder) as running:
        yield running


def llm_for(server: LLMServer, cache: SQLiteCache | None = None) -> LLM:
    return LLM.from_spec("openai:judge", base_url=server.base_url, cache=cache)


def test_parsed_scores_tie_and_expected_scores_decide(server: LLMServer) -> None:
    (parsed,) = judge([PAIR], DnA(), llm_for(server))
    (weighted,) = judge([PAIR], DnA(), llm_for(server), options=JudgeOptions(score_mode="logprobs"))
    assert (parsed.verdict, parsed.scores) == (0, [8.0, 8.0])
    assert all(f.score_modes is None for f in parsed.facets)
    assert weighted.verdict == 2
    assert weighted.scores == pytest.approx([7.7, 8.3])  # weights .6/.4 of equal facet scores
    for facet in weighted.facets:
        assert facet.scores == pytest.approx([7.7, 8.3])
        assert facet.score_modes == ["logprobs", "logprobs"]
    scoring = [entry.scoring for entry in weighted.trace if entry.stage == "dna.score"]
    assert len(scoring) == 2
    for sources in scoring:
        assert sources is not None
        assert [s.written for s in sources] == [8, 8]
        assert dict(sources[0].distribution or []) == pytest.approx({7: 0.4, 8: 0.5, 9: 0.1})


def test_only_scoring_calls_ask_for_logprobs(server: LLMServer) -> None:
    judge([PAIR], DnA(), llm_for(server), options=JudgeOptions(score_mode="logprobs", top_logprobs=5))
    asked = {
        "weights" if "importance weightage" in json.dumps(r.body) else "score": (
            r.body.get("logprobs"),
            r.body.get("top_logprobs"),
        )
        for r in server.requests
    }
    assert asked == {"score": (True, 5), "weights": (None, None)}


def test_a_server_without_logprobs_falls_back_to_the_written_scores(server: LLMServer) -> None:
    server.responder = lambda body: Reply("8 8\nBoth fine.", logprobs=False)  # type: ignore[method-assign]
    (judgment,) = judge(
        [PAIR], DnA(aggregate="mean"), llm_for(server), options=JudgeOptions(score_mode="logprobs")
    )
    assert server.requests[0].body["logprobs"] is True
    assert judgment.verdict == 0
    assert [f.score_modes for f in judgment.facets] == [["parse", "parse"]] * 2
    reasons = {s.reason for e in judgment.trace for s in e.scoring or ()}
    assert reasons == {NO_LOGPROBS}


def test_the_cache_keeps_logprob_replies_apart_and_whole(server: LLMServer, tmp_path: Path) -> None:
    options = JudgeOptions(score_mode="logprobs")
    with SQLiteCache(tmp_path / "cache.sqlite") as cache:
        (first,) = judge([PAIR], DnA(aggregate="mean"), llm_for(server, cache), options=options)
        asked = len(server.requests)
        (again,) = judge([PAIR], DnA(aggregate="mean"), llm_for(server, cache), options=options)
        assert len(server.requests) == asked  # every reply from the cache, logprobs included
        assert again.verdict == first.verdict == 2
        assert again.scores == first.scores
        assert again.usage.cached_calls == again.usage.calls == 2
        (parsed,) = judge([PAIR], DnA(aggregate="mean"), llm_for(server, cache))
        assert len(server.requests) == asked + 2  # another request: not answered by the logprob replies
        assert parsed.verdict == 0


def test_direct_records_the_mode_of_its_overall_scores_in_each_order(server: LLMServer) -> None:
    options = JudgeOptions(score_mode="logprobs", swap=True)
    (judgment,) = judge([PAIR], Direct(), llm_for(server), options=options)
    assert judgment.score_modes == ["logprobs", "logprobs"]
    # shown first, each candidate gets 7.7; shown second, 8.3: the orders agree on a tie
    assert judgment.scores == pytest.approx([8.0, 8.0])
    assert [o.scores for o in judgment.orders] == [pytest.approx([7.7, 8.3]), pytest.approx([8.3, 7.7])]
    assert [o.score_modes for o in judgment.orders] == [["logprobs", "logprobs"]] * 2


def test_anthropic_is_refused_before_any_call(llm_server: LLMServer) -> None:
    llm = LLM.from_spec("anthropic:claude-test", base_url=llm_server.root_url, api_key="test")
    with pytest.raises(ConfigError, match="not available with anthropic:claude-test"):
        judge([PAIR], DnA(), llm, options=JudgeOptions(score_mode="logprobs"))
    assert llm_server.requests == []


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def write_input(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps(PAIR.model_dump(exclude_defaults=True)) + "\n", encoding="utf-8")
    return path


def test_the_command_counts_the_modes_and_records_the_option(server: LLMServer, tmp_path: Path) -> None:
    out = tmp_path / "j.jsonl"
    flags = ["--model", "openai:judge", "--base-url", server.base_url, "--out", out, "--no-cache"]
    result = invoke(write_input(tmp_path), "--method", "dna", "--score-mode", "logprobs", *flags)
    assert result.exit_code == 0, result.output
    assert "4 expected from log-probabilities" in result.stderr
    (judgment,) = read_jsonl(out)
    assert judgment["verdict"] == 2
    record = read_record(tmp_path / "j.run.json", JudgeRecord)
    assert record.options["score_mode"] == "logprobs"
    assert record.options["top_logprobs"] == 20
    assert record.summary.score_modes == {"logprobs": 4}


def test_the_command_refuses_anthropic_in_one_line(llm_server: LLMServer, tmp_path: Path) -> None:
    flags = ["--model", "anthropic:claude-test", "--base-url", llm_server.root_url, "--api-key", "k"]
    result = invoke(write_input(tmp_path), "--score-mode", "logprobs", *flags, "--out", tmp_path / "j.jsonl")
    assert result.exit_code != 0
    assert "the anthropic API returns no token log-probabilities" in result.stderr
    assert "Traceback" not in result.stderr
    assert llm_server.requests == []
    assert not list(tmp_path.glob("j.*"))  # neither an output nor a run record


def test_top_logprobs_without_the_logprobs_mode_is_a_usage_error(server: LLMServer, tmp_path: Path) -> None:
    result = invoke(
        write_input(tmp_path), "--top-logprobs", "5", "--model", "openai:judge", "--base-url", server.base_url
    )
    assert result.exit_code == 2
    assert "--top-logprobs is used with --score-mode logprobs" in result.stderr


def test_meta_eval_records_and_reports_the_modes(server: LLMServer, tmp_path: Path) -> None:
    labelled = tmp_path / "labelled.jsonl"
    line = PAIR.model_dump(exclude_defaults=True) | {"label": 2}
    labelled.write_text(json.dumps(line) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    flags = ["--model", "openai:judge", "--base-url", server.base_url, "--no-cache", "--resamples", "0"]
    result = CliRunner().invoke(
        cli,
        [
            "meta-eval",
            str(labelled),
            "--method",
            "dna",
            "--score-mode",
            "logprobs",
            "--out",
            str(out),
            *flags,
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output + result.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["options"]["score_mode"] == "logprobs"
    assert summary["summary"]["score_modes"] == {"logprobs": 4}
    assert summary["summary"]["agreement"]["value"] == 1.0  # parsed, the tie would disagree with the label
    assert "4 scores expected from log-probabilities" in (out / "report.md").read_text(encoding="utf-8")
