"""``--confidence verdict-logprobs``: the verdict's probability from the score tokens' log-probabilities.

The local server scripts a judge whose score digits carry chosen top alternatives, sent through the
openai SDK as OpenAI sends them; every expected probability below is worked out by hand from them.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner, Result

from faceteval import LLM, CoT, Direct, DnA, Instance, JudgeOptions, RunStats, judge, judge_each
from faceteval._cli._app import cli
from faceteval.core import VERDICT_LOGPROBS
from faceteval.errors import ConfigError
from faceteval.parsing import NO_LOGPROBS
from faceteval.store import JudgeRecord, read_record
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer, Reply, Token, tokens_of

PAIR = Instance(id="p", query="Explain rain.", candidates=["Clouds fill.", "Drops fall."])


def scripted(text: str, *tops: Mapping[str, float]) -> Reply:
    return Reply(text, tokens=tokens_of(text, list(tops)))


def shown_first(body: Mapping[str, Any]) -> str:
    """Which of PAIR's candidates the prompt shows first."""
    prompt = "\n".join(str(m["content"]) for m in body["messages"])
    return "Clouds" if prompt.index("Clouds fill.") < prompt.index("Drops fall.") else "Drops"


def llm_for(server: LLMServer) -> LLM:
    return LLM.from_spec("openai:judge", base_url=server.base_url)


LOGPROBS = JudgeOptions(score_mode="logprobs", confidence=VERDICT_LOGPROBS)
SWAPPED = JudgeOptions(score_mode="logprobs", confidence=VERDICT_LOGPROBS, swap=True)

# A: {7: .3, 8: .6, 9: .1} (7.8); B: {7: .5, 8: .5} (7.5): P(A > B) = .6 x .5 + .1 = .4,
# P(A = B) = .3 x .5 + .6 x .5 = .45, so P(verdict 1) = .4 + .45 / 2 = .625.
A_TOP = {"8": 0.6, "7": 0.3, "9": 0.1}
B_TOP = {"7": 0.5, "8": 0.5}


def test_one_order_gives_the_winners_chance_of_the_higher_score() -> None:
    with LLMServer(lambda body: scripted("8 7\nA is fuller.", A_TOP, B_TOP)) as server:
        (judgment,) = judge([PAIR], Direct(), llm_for(server), options=LOGPROBS)
    assert judgment.scores == pytest.approx([7.8, 7.5])
    assert judgment.verdict == 1
    assert judgment.confidence == pytest.approx(0.625)
    assert judgment.confidence_estimator == VERDICT_LOGPROBS
    assert judgment.confidence_missing is None


def test_a_loser_shown_first_gets_the_complement() -> None:
    # the same distributions, the other way round: B wins with P = 1 - .625 + 0 (no mass moves)
    with LLMServer(lambda body: scripted("7 8\nB is fuller.", B_TOP, A_TOP)) as server:
        (judgment,) = judge([PAIR], Direct(), llm_for(server), options=LOGPROBS)
    assert judgment.verdict == 2
    assert judgment.confidence == pytest.approx(0.625)


def test_swapped_orders_average_each_orders_probability() -> None:
    def responder(body: Mapping[str, Any]) -> Reply:
        if shown_first(body) == "Clouds":
            return scripted("8 7\nA is fuller.", A_TOP, B_TOP)  # P(A wins) = .625
        # B shown first: B {7: 1}, A {8: .5, 9: .5}: A is always above, P(A wins) = 1
        return scripted("7 9\nA is fuller.", {"7": 1.0}, {"9": 0.5, "8": 0.5})

    with LLMServer(responder) as server:
        (judgment,) = judge([PAIR], Direct(), llm_for(server), options=SWAPPED)
    assert [o.verdict for o in judgment.orders] == [1, 1]
    assert judgment.verdict == 1
    assert judgment.confidence == pytest.approx((0.625 + 1.0) / 2)


def test_orders_that_disagree_into_a_tie_get_the_chance_of_equal_scores() -> None:
    # whatever the order, the first shown gets A_TOP: each order's scores tie with P .45
    with LLMServer(lambda body: scripted("8 7\nThe first.", A_TOP, B_TOP)) as server:
        (judgment,) = judge([PAIR], Direct(), llm_for(server), options=SWAPPED)
    assert judgment.verdict == 0
    assert judgment.consistent is False
    assert judgment.confidence == pytest.approx(0.45)


def test_three_candidates_share_a_top_they_tie_on() -> None:
    # A {8: .5, 9: .5}, B {8: 1}, C {7: .5, 8: .5}: A at 9 wins outright (.5); A at 8 (.5) ties B, and
    # C too half the time: .5 x (.5 x 1/2 + .5 x 1/3) = 5/24; P(A) = 1/2 + 5/24 = 17/24
    three = Instance(id="t", query="Explain rain.", candidates=["Clouds fill.", "Drops fall.", "Wet."])
    reply = scripted("9 8 8\nA is fullest.", {"9": 0.5, "8": 0.5}, {"8": 1.0}, {"8": 0.5, "7": 0.5})
    with LLMServer(lambda body: reply) as server:
        (judgment,) = judge([three], Direct(), llm_for(server), options=LOGPROBS)
    assert judgment.scores == pytest.approx([8.5, 8.0, 7.5])
    assert judgment.confidence == pytest.approx(17 / 24)


def test_without_logprobs_there_is_no_confidence_and_the_reason_is_counted() -> None:
    pairs = [PAIR, PAIR.model_copy(update={"id": "q"})]
    stats = RunStats()
    judgments: list[Any] = []
    with LLMServer(lambda body: Reply("8 7\nA.", logprobs=False)) as server:
        llm = llm_for(server)

        async def judged() -> None:
            try:
                await judge_each(pairs, Direct(), llm, options=LOGPROBS, sink=judgments.append, stats=stats)
            finally:
                await llm.aclose()

        anyio.run(judged)
    for judgment in judgments:
        assert (judgment.status, judgment.verdict) == ("ok", 1)
        assert judgment.confidence is None
        assert judgment.confidence_estimator is None
        assert NO_LOGPROBS in judgment.confidence_missing
    assert sum(stats.confidence_missing.values()) == 2
    assert all(NO_LOGPROBS in reason for reason in stats.confidence_missing)
    assert "confidence" not in json.loads(judgments[0].model_dump_json())


FACETED = Instance(id="c", query=PAIR.query, candidates=PAIR.candidates, criteria=["Accuracy", "Clarity"])


def by_facet(accuracy: Reply, clarity: Reply, weights: str = "60% 40%") -> Any:
    def responder(body: Mapping[str, Any]) -> Reply:
        prompt = prompt_of(body)
        if "importance weightage" in prompt:
            return Reply(weights)
        return accuracy if "> Accuracy" in prompt else clarity

    return responder


def prompt_of(body: Mapping[str, Any]) -> str:
    return "\n".join(str(m["content"]) for m in body["messages"])


def test_a_mean_of_facets_each_from_one_reply_sums_their_distributions() -> None:
    # Accuracy: A {8: 1}, B {7: .5, 9: .5}; Clarity: A {8: 1}, B {7: 1}. The mean: A is 8, B is
    # (7 + 7) / 2 = 7 or (9 + 7) / 2 = 8, each .5: P(A > B) = .5, P(A = B) = .5, so P(verdict 1) = .75
    accuracy = scripted("8 9\nA.", {"8": 1.0}, {"9": 0.5, "7": 0.5})
    clarity = scripted("8 7\nA.", {"8": 1.0}, {"7": 1.0})
    with LLMServer(by_facet(accuracy, clarity)) as server:
        (judgment,) = judge([FACETED], DnA(aggregate="mean"), llm_for(server), options=LOGPROBS)
    assert judgment.scores == pytest.approx([8.0, 7.5])
    assert judgment.confidence == pytest.approx(0.75)
    assert judgment.confidence_estimator == VERDICT_LOGPROBS


def test_weighted_facets_match_every_joint_outcome() -> None:
    accuracy = scripted("8 7\nA.", A_TOP, B_TOP)
    clarity = scripted("7 8\nB.", {"7": 0.7, "6": 0.3}, {"8": 0.6, "9": 0.4})
    with LLMServer(by_facet(accuracy, clarity)) as server:
        (judgment,) = judge([FACETED], DnA(), llm_for(server), options=LOGPROBS)
    a1, b1 = {7: 0.3, 8: 0.6, 9: 0.1}, {7: 0.5, 8: 0.5}
    a2, b2 = {6: 0.3, 7: 0.7}, {8: 0.6, 9: 0.4}
    wins = ties = 0.0
    for (x1, p1), (x2, p2), (y1, q1), (y2, q2) in itertools.product(
        a1.items(), a2.items(), b1.items(), b2.items()
    ):
        a, b, p = round(0.6 * x1 + 0.4 * x2, 9), round(0.6 * y1 + 0.4 * y2, 9), p1 * p2 * q1 * q2
        wins, ties = wins + p * (a > b), ties + p * (a == b)
    verdict = judgment.verdict
    assert verdict == 2  # A 7.8 x .6 + 6.7 x .4 = 7.36; B 7.5 x .6 + 8.4 x .4 = 7.86
    assert judgment.confidence == pytest.approx(1 - wins - ties / 2)


def test_a_facet_whose_reply_came_without_logprobs_leaves_no_confidence_and_says_so() -> None:
    accuracy = scripted("8 7\nA.", A_TOP, B_TOP)
    with LLMServer(by_facet(accuracy, Reply("8 7\nA.", logprobs=False))) as server:
        (judgment,) = judge([FACETED], DnA(), llm_for(server), options=LOGPROBS)
    assert judgment.status == "ok"
    assert judgment.confidence is None
    assert NO_LOGPROBS in (judgment.confidence_missing or "")


def test_the_estimator_needs_the_logprobs_score_mode() -> None:
    with pytest.raises(ConfigError, match="add --score-mode logprobs"):
        JudgeOptions(confidence=VERDICT_LOGPROBS)
    with pytest.raises(ConfigError, match="confidence must be one of signals, verdict-logprobs"):
        JudgeOptions(confidence="guess")


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def test_the_command_writes_the_probability_and_records_the_estimator(tmp_path: Path) -> None:
    source = tmp_path / "pairs.jsonl"
    source.write_text(json.dumps(PAIR.model_dump(exclude_defaults=True)) + "\n", encoding="utf-8")
    out = tmp_path / "j.jsonl"
    with LLMServer(lambda body: scripted("8 7\nA is fuller.", A_TOP, B_TOP)) as server:
        flags = ["--model", "openai:judge", "--base-url", server.base_url, "--out", out, "--no-cache"]
        result = invoke(
            source, "--method", "direct", "--score-mode", "logprobs", "--confidence", VERDICT_LOGPROBS, *flags
        )
        refused = invoke(source, "--method", "direct", "--confidence", VERDICT_LOGPROBS, *flags)
    assert result.exit_code == 0, result.output
    (judgment,) = read_jsonl(out)
    assert judgment["confidence"] == pytest.approx(0.625)
    assert judgment["confidence_estimator"] == VERDICT_LOGPROBS
    record = read_record(tmp_path / "j.run.json", JudgeRecord)
    assert record.options["confidence"] == VERDICT_LOGPROBS
    assert record.summary.confidence_missing is None
    assert refused.exit_code == 2
    assert "add --score-mode logprobs" in refused.stderr


def test_the_run_record_counts_the_judgments_left_without_a_probability(tmp_path: Path) -> None:
    source = tmp_path / "pairs.jsonl"
    pairs = [PAIR, Instance(id="q", query="Explain snow.", candidates=["Cold.", "Ice."])]
    source.write_text(
        "".join(p.model_dump_json(exclude_defaults=True) + "\n" for p in pairs), encoding="utf-8"
    )
    out = tmp_path / "j.jsonl"
    with LLMServer(lambda body: Reply("8 7\nA.", logprobs=False)) as server:
        flags = ["--model", "openai:judge", "--base-url", server.base_url, "--out", out, "--no-cache"]
        result = invoke(
            source, "--score-mode", "logprobs", "--confidence", VERDICT_LOGPROBS, "--method", "direct", *flags
        )
    assert result.exit_code == 0, result.output
    assert all("confidence" not in judgment for judgment in read_jsonl(out))
    record = read_record(tmp_path / "j.run.json", JudgeRecord)
    (reason,) = record.summary.confidence_missing or {}
    assert NO_LOGPROBS in reason
    assert record.summary.confidence_missing == {reason: 2}


def chose(letter: str, top: Mapping[str, float], *, cot: bool = False) -> Reply:
    """A reply choosing ``Output (letter)``, the letter its own token with ``top`` alternatives."""
    lead = "Output (a) misses the point.\nTherefore, Output (" if cot else "Output ("
    tail = ") is better." if cot else ")"
    return Reply(lead + letter + tail, tokens=(Token(lead), Token(letter, top), Token(tail)))


LLMBAR = [("direct", Direct(template="llmbar"), False), ("cot", CoT(template="llmbar"), True)]


@pytest.mark.parametrize(("name", "method", "cot"), LLMBAR, ids=[n for n, _, _ in LLMBAR])
def test_a_verdict_written_as_a_token_has_that_tokens_probability(name: str, method: Any, cot: bool) -> None:
    # "b" at .6 and "a" at .3 among the alternatives ("c" is no choice): P(b) = .6 / .9
    with LLMServer(lambda body: chose("b", {"b": 0.6, "a": 0.3, "c": 0.1}, cot=cot)) as server:
        (judgment,) = judge([PAIR], method, llm_for(server), options=LOGPROBS)
        assert all(r.body.get("logprobs") is True for r in server.requests)
    assert judgment.verdict == 2
    assert judgment.confidence == pytest.approx(2 / 3)
    assert judgment.confidence_estimator == VERDICT_LOGPROBS
    (entry,) = judgment.trace
    assert entry.choice is not None and entry.choice.written == 2


def test_a_token_verdict_in_swapped_orders_averages_each_orders_probability() -> None:
    def responder(body: Mapping[str, Any]) -> Reply:
        if shown_first(body) == "Clouds":
            return chose("b", {"b": 0.6, "a": 0.3})  # Drops is (b): 2/3
        return chose("a", {"a": 0.9, "b": 0.1})  # Drops is (a): .9

    with LLMServer(responder) as server:
        (judgment,) = judge([PAIR], Direct(template="llmbar"), llm_for(server), options=SWAPPED)
    assert judgment.verdict == 2
    assert judgment.confidence == pytest.approx((2 / 3 + 0.9) / 2)


def test_a_token_verdict_merged_with_its_bracket_and_one_without_alternatives() -> None:
    merged = Reply(
        "Output (b)",
        tokens=(Token("Output"), Token(" (b", {" (b": 0.5, " (a": 0.25, " (": 0.25}), Token(")")),
    )
    with LLMServer(lambda body: merged) as server:
        (judgment,) = judge([PAIR], Direct(template="llmbar"), llm_for(server), options=LOGPROBS)
    assert judgment.confidence == pytest.approx(2 / 3)
    with LLMServer(lambda body: Reply("Output (b)", logprobs=False)) as server:
        (bare,) = judge([PAIR], Direct(template="llmbar"), llm_for(server), options=LOGPROBS)
    assert (bare.verdict, bare.confidence) == (2, None)
    assert NO_LOGPROBS in (bare.confidence_missing or "")
