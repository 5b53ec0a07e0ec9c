"""`assert_prefers` and `assert_score`: what passes, and what each failure says (scripted judges)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from faceteval import LLM, DnA, Judgment
from faceteval.errors import BadRequestError, ConfigError
from faceteval.llm import CompletionRequest, ModelSpec, ScriptedProvider
from faceteval.testing import (
    JudgmentAssertionError,
    assert_prefers,
    assert_prefers_async,
    assert_score,
    assert_score_async,
)
from faceteval.testing._settings import NO_MODEL, Settings, open_llm
from tests.support import example_judge
from tests.support.rule_judge import RuleJudge, stage_of

CLEAR = "Canberra is the capital of Australia."
VAGUE = "It is a city in Australia, I think."
QUERY = "What is the capital of Australia?"


def rule_llm(judge: RuleJudge) -> LLM:
    return LLM(ScriptedProvider(judge.for_provider()), ModelSpec("scripted", "rules"))


def judged_by(quality: dict[str, float], *, first_bias: float = 0.0) -> LLM:
    return rule_llm(RuleJudge(quality=quality, first_bias=first_bias))


def test_a_preferred_candidate_passes_and_its_judgment_is_returned() -> None:
    judgment = assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=judged_by({CLEAR: 9, VAGUE: 4}))

    assert isinstance(judgment, Judgment)
    assert (judgment.method, judgment.verdict, judgment.scores, judgment.consistent) == (
        "dna",
        1,
        [9, 4],
        True,
    )
    assert len(judgment.orders) == 2  # swapped by default


def test_a_preferred_baseline_fails_with_the_verdict_margin_orders_and_facets() -> None:
    with pytest.raises(JudgmentAssertionError) as caught:
        assert_prefers(VAGUE, over=CLEAR, query=QUERY, llm=judged_by({CLEAR: 9, VAGUE: 4}))

    message = str(caught.value)
    assert isinstance(caught.value, AssertionError) and caught.value.judgment.verdict == 2
    assert message.splitlines()[:5] == [
        "faceteval (dna in both orders): the baseline is preferred over the candidate (margin -5)",
        f"  query: {QUERY!r}",
        f"  candidate: {VAGUE!r}",
        f"  baseline: {CLEAR!r}",
        "  verdict: baseline preferred; scores: candidate 4, baseline 9",
    ]
    assert "    candidate then baseline: baseline preferred (candidate 4, baseline 9)" in message
    assert "    baseline then candidate: baseline preferred (candidate 4, baseline 9)" in message
    assert "    Does the output follow the instruction? (weight 0.5): 4 vs 9" in message
    assert "      'Scored by rule on Is the output concise?.'" in message


def test_a_margin_below_min_margin_fails_and_one_at_it_passes() -> None:
    llm = judged_by({CLEAR: 7, VAGUE: 6})

    with pytest.raises(
        JudgmentAssertionError, match=r"preferred by a margin of 1, less than min_margin=1\.5"
    ):
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm, min_margin=1.5)
    assert assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm, min_margin=1).verdict == 1


def test_a_tie_fails_with_its_own_message() -> None:
    with pytest.raises(JudgmentAssertionError) as caught:
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=judged_by({CLEAR: 6, VAGUE: 6}))

    headline = str(caught.value).splitlines()[0]
    assert (
        headline
        == "faceteval (dna in both orders): the judge found a tie (margin 0): the candidate is not preferred"
    )


def test_a_verdict_that_changes_with_the_order_fails_as_a_swap_disagreement() -> None:
    llm = judged_by({CLEAR: 6, VAGUE: 6}, first_bias=2)  # the judge prefers whichever it reads first

    with pytest.raises(JudgmentAssertionError) as caught:
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm)

    message = str(caught.value)
    assert "verdict changed with the order the outputs were shown in (a swap disagreement" in message
    assert "    candidate then baseline: candidate preferred (candidate 8, baseline 6)" in message
    assert "    baseline then candidate: baseline preferred (candidate 6, baseline 8)" in message
    # in one order only, the same biased judge lets it pass: what swap=True is for
    assert assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm, swap=False).verdict == 1


def test_a_reply_that_cannot_be_read_fails_with_the_reply_never_passes() -> None:
    rules = RuleJudge(quality={CLEAR: 9, VAGUE: 4})

    def script(request: CompletionRequest) -> str:
        messages = [m.to_dict() for m in request.messages]
        prompt = "\n".join(m["content"] for m in messages)
        if stage_of(prompt) == "dna.score":
            return "Both are fine, really."
        return rules.respond(messages)

    llm = LLM(ScriptedProvider(script), ModelSpec("scripted", "rules"))
    with pytest.raises(JudgmentAssertionError) as caught:
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm)

    message = str(caught.value)
    assert caught.value.judgment.status == "parse_error"
    assert message.startswith(
        "faceteval (dna in both orders): dna could not read the judge's reply, so the pair"
    )
    assert "(a parse failure fails the assertion)" in message
    assert re.search(
        r"^  unreadable reply at dna.score \(\d+ times\): the reply contains no scores$", message, re.M
    )
    assert "    the reply: 'Both are fine, really.'" in message


def test_a_failed_call_fails_with_the_error() -> None:
    def script(request: CompletionRequest) -> BadRequestError:
        return BadRequestError("the model 'judge' does not exist")

    llm = LLM(ScriptedProvider(script), ModelSpec("scripted", "judge"))
    with pytest.raises(JudgmentAssertionError) as caught:
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm)

    lines = str(caught.value).splitlines()
    assert lines[0].startswith("faceteval (dna in both orders): dna could not judge the pair: ")
    assert (
        "  failed call at dna.aspects (2 times): BadRequestError: the model 'judge' does not exist" in lines
    )


def test_method_options_build_the_method_and_a_method_object_is_used_as_it_is() -> None:
    llm = judged_by({CLEAR: 9, VAGUE: 4})

    two = assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm, aspects=2)
    direct = assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm, method="direct")
    given = assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm, method=DnA(aspects=1))

    assert [len(two.facets), direct.method, len(given.facets)] == [2, "direct", 1]
    with pytest.raises(ConfigError, match=r"method options \(aspects\) go with a method name"):
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm, method=DnA(), aspects=2)


@pytest.mark.parametrize("margin", [-1, math.nan, "1"])
def test_min_margin_must_be_a_number_of_at_least_zero(margin: object) -> None:
    with pytest.raises(ConfigError, match="min_margin must be a finite number of at least 0"):
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=judged_by({}), min_margin=margin)  # type: ignore[arg-type]


def test_a_score_at_the_threshold_passes_and_one_below_fails_with_the_facets() -> None:
    llm = judged_by({CLEAR: 8, VAGUE: 3})

    assert assert_score(CLEAR, query=QUERY, llm=llm, at_least=8).scores == [8]
    with pytest.raises(JudgmentAssertionError) as caught:
        assert_score(VAGUE, query=QUERY, llm=llm, at_least=5)

    lines = str(caught.value).splitlines()
    assert lines[0] == "faceteval (dna): the output scored 3, below at_least=5"
    assert f"  output: {VAGUE!r}" in lines and "  verdict: no verdict; scores: output 3" in lines
    assert "    Is the output correct? (weight 0.3): 3" in lines


@pytest.mark.anyio
async def test_the_async_forms_judge_in_the_running_loop() -> None:
    llm = judged_by({CLEAR: 9, VAGUE: 4})

    assert (await assert_prefers_async(CLEAR, over=VAGUE, query=QUERY, llm=llm)).verdict == 1
    assert (await assert_score_async(CLEAR, query=QUERY, llm=llm, at_least=9)).scores == [9]
    with pytest.raises(JudgmentAssertionError, match="the baseline is preferred"):
        await assert_prefers_async(VAGUE, over=CLEAR, query=QUERY, llm=llm)
    with pytest.raises(ConfigError, match=r"await assert_prefers_async\(...\) there"):
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm)
    await llm.aclose()


def test_settings_come_from_the_flag_then_the_environment_then_the_ini(tmp_path: Path) -> None:
    env = {"FACETEVAL_MODEL": "openai:env", "FACETEVAL_CACHE": "env.sqlite"}
    ini = {"model": "openai:ini", "base_url": "http://ini/v1", "cache": "ini.sqlite"}

    flagged = Settings.resolve({"model": "openai:flag"}, env, ini, tmp_path)
    from_ini = Settings.resolve({}, {}, ini, tmp_path)

    assert flagged == Settings("openai:flag", "http://ini/v1", Path("env.sqlite"))
    assert from_ini == Settings("openai:ini", "http://ini/v1", tmp_path / "ini.sqlite")
    assert Settings.resolve({"model": None}, {}, {"model": ""}, None) == Settings()


def test_the_endpoint_id_comes_from_the_flag_then_the_environment_then_the_ini_and_names_the_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ini = {"model": "openai:m", "endpoint_id": "ini-lab"}
    assert Settings.resolve({}, {}, ini, tmp_path).endpoint_id == "ini-lab"
    assert Settings.resolve({}, {"FACETEVAL_ENDPOINT_ID": "env-lab"}, ini, tmp_path).endpoint_id == "env-lab"
    flagged = Settings.resolve({"endpoint_id": "lab"}, {"FACETEVAL_ENDPOINT_ID": "env-lab"}, ini, tmp_path)
    assert flagged.endpoint_id == "lab"
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    llm, cache = open_llm(Settings("openai:m", "http://127.0.0.1:9/v1", endpoint_id="lab"))
    assert cache is None and llm.identity == "openai@id:lab"


def test_no_model_is_an_error_that_says_how_to_name_one() -> None:
    with pytest.raises(ConfigError) as caught:
        open_llm(Settings())

    assert str(caught.value) == NO_MODEL
    assert "--faceteval-model" in NO_MODEL and "FACETEVAL_MODEL" in NO_MODEL and "faceteval_model" in NO_MODEL


def test_an_option_the_method_does_not_take_and_outputs_that_are_not_text_are_config_errors() -> None:
    llm = judged_by({})

    with pytest.raises(ConfigError, match=r"method 'dna': .*unexpected keyword argument 'aspect'"):
        assert_prefers(CLEAR, over=VAGUE, query=QUERY, llm=llm, aspect=3)
    with pytest.raises(ConfigError, match=r"must be text.*: candidates\.1: Input should be a valid string"):
        assert_prefers(CLEAR, over=None, query=QUERY, llm=llm)  # type: ignore[arg-type]


def test_criteria_given_are_the_facets_judged() -> None:
    def script(request: CompletionRequest) -> str:
        return example_judge.respond({"messages": [m.to_dict() for m in request.messages]})

    llm = LLM(ScriptedProvider(script), ModelSpec("scripted", "examples"))
    criteria = ["Accuracy", {"name": "Brevity", "description": "Says it in few words."}]

    judgment = assert_score(CLEAR, query=QUERY, llm=llm, at_least=1, method="coeval", criteria=criteria)

    assert [facet.name for facet in judgment.facets] == ["Accuracy", "Brevity"]
