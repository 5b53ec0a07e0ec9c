"""Every family's scoring stages under ``score_mode="logprobs"``: expected scores, and the mode recorded.

The scripted judge writes its usual replies; with log-probabilities asked for, every digit comes with
the alternative one lower at a quarter of the mass (P d = .75, d - 1 = .25), so each score ``s`` from 2
up becomes ``s - 0.25``, and any other number (an item's "2.", a label) must be left alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import pytest

from faceteval import Direct, Instance, JudgeOptions, Judgment, judge
from faceteval.core import Criterion
from faceteval.errors import ConfigError
from faceteval.llm import (
    LLM,
    Completion,
    CompletionRequest,
    GenerateConfig,
    ModelSpec,
    ScriptedProvider,
    TokenLogprob,
)
from faceteval.methods.coeval import CoEval, CoEvalDirect
from faceteval.methods.fennec import Fennec
from faceteval.methods.hdeval import HierarchyAware
from tests.support.fennec_judge import FennecJudge

Script = Callable[[CompletionRequest], str]
LOGPROBS = JudgeOptions(score_mode="logprobs", top_logprobs=5)


def digit_tokens(text: str) -> tuple[TokenLogprob, ...]:
    tokens = []
    for piece in re.findall(r"\d|\D+", text):
        if piece.isdigit() and int(piece) >= 2:
            top = ((piece, math.log(0.75)), (str(int(piece) - 1), math.log(0.25)))
            tokens.append(TokenLogprob(piece, math.log(0.75), top))
        else:
            tokens.append(TokenLogprob(piece, 0.0, ((piece, 0.0),)))
    return tuple(tokens)


def with_logprobs(script: Script) -> Script:
    def answer(request: CompletionRequest) -> str | Completion:  # type: ignore[return]
        text = script(request)
        if not request.config.logprobs:
            return text
        assert request.config.top_logprobs == 5
        return Completion(text=text, logprobs=digit_tokens(text))

    return answer  # type: ignore[return-value]


def run(instance: Instance, method: object, script: Script, options: JudgeOptions = LOGPROBS) -> Judgment:
    llm = LLM(ScriptedProvider(with_logprobs(script)), ModelSpec("scripted", "judge"))  # type: ignore[arg-type]
    (judgment,) = judge([instance], method, llm, options=options)  # type: ignore[arg-type]
    assert judgment.status == "ok", judgment.error
    return judgment


def coeval_script(request: CompletionRequest) -> str:
    if request.messages[-1].content.startswith("Based on the provided input"):
        return "1. Weighing both criteria.\n\n2. Score: 4"
    return '1. Conclusion: It does.\n\n2. Score: 3\n\n3. Evidence:\n- "Drops join up." Plain words.'


CLARITY = Criterion(name="Clarity", description="The answer uses simple words.")


def test_coeval_criterion_and_overall_scores() -> None:
    instance = Instance(
        id="q", query="Why does it rain?", candidates=("Drops join up.",), criteria=(CLARITY,)
    )
    parsed = run(instance, CoEval(), coeval_script, JudgeOptions())
    judgment = run(instance, CoEval(), coeval_script)
    assert (parsed.facets[0].scores, parsed.scores, parsed.score_modes) == ([3.0], [4.0], None)
    assert judgment.facets[0].scores == [2.75]
    assert judgment.facets[0].score_modes == ["logprobs"]
    assert (judgment.scores, judgment.score_modes) == ([3.75], ["logprobs"])


def test_coeval_direct() -> None:
    instance = Instance(id="q", query="Why does it rain?", candidates=("Drops join up.", "Rain."))
    judgment = run(instance, CoEvalDirect(), lambda request: "4\nClear enough.")
    assert (judgment.scores, judgment.score_modes) == ([3.75, 3.75], ["logprobs", "logprobs"])


@pytest.mark.parametrize("single", [False, True])
def test_fennec_pairwise_and_single(single: bool) -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})
    instance = Instance(id="1", query="Summarise The Great Gatsby.", candidates=("a", "b"))
    parsed = run(instance, Fennec(criteria_count=2, single=single), rule.for_provider(), JudgeOptions())
    judgment = run(instance, Fennec(criteria_count=2, single=single), rule.for_provider())
    for before, after in zip(parsed.facets, judgment.facets, strict=True):
        assert after.scores == [s - 0.25 for s in before.scores if s is not None]  # type: ignore[operator]
        assert after.score_modes == ["logprobs", "logprobs"]
    assert judgment.score_modes is None  # the overall scores are the facets' sum


def test_hdeval_scores_each_node() -> None:
    nodes = [{"id": "fluency", "name": "fluency", "description": "Sentences read naturally."}]
    method = HierarchyAware(task="summaries of news articles", criteria=nodes)
    instance = Instance(id="1", query="Summarise the article.", candidates=("A short summary.",))
    judgment = run(instance, method, lambda request: "5\nThe response was read for fluency.")
    assert judgment.facets[0].scores == [4.75]
    assert judgment.facets[0].score_modes == ["logprobs"]


@pytest.mark.parametrize(
    "options",
    [{"score_mode": "expected"}, {"top_logprobs": 0}, {"top_logprobs": 21}, {"top_logprobs": True}],
)
def test_bad_score_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match=r"score_mode|top_logprobs"):
        JudgeOptions(**options)  # type: ignore[arg-type]


def test_a_dry_run_plans_the_calls_with_the_fallback() -> None:
    instance = Instance(
        id="q", query="Why does it rain?", candidates=("Drops join up.",), criteria=(CLARITY,)
    )
    llm = LLM(None, ModelSpec("scripted", "judge"), dry_run=True)
    (judgment,) = judge([instance], CoEval(), llm, options=LOGPROBS)
    assert judgment.status == "error" and llm.spent.planned == 2
    assert {s.mode for e in judgment.trace for s in e.scoring or ()} == {"parse"}


def test_expected_scores_are_refused_with_structured_replies_before_any_call() -> None:
    instance = Instance(id="q", query="Why does it rain?", candidates=("Drops join up.", "It just does."))
    provider = ScriptedProvider.sequence([])
    llm = LLM(provider, ModelSpec("scripted", "judge"), config=GenerateConfig(structured=True))
    with pytest.raises(ConfigError, match=r"--score-mode logprobs .* --structured"):
        judge([instance], CoEval(), llm, options=LOGPROBS)
    assert llm.spent.calls == 0


def test_a_verdict_s_confidence_takes_the_certainty_of_its_expected_scores() -> None:
    instance = Instance(id="q", query="Why does it rain?", candidates=("Drops join up.", "It just does."))
    judgment = run(instance, Direct(), lambda request: "8 3\nThe first explains.")
    assert judgment.scores == [7.75, 2.75] and judgment.verdict == 1
    # each score: 0.75 on its digit, 0.25 on the one below: a spread of sqrt(0.1875) over a half-width
    # of 4.5 on Direct's 1-10 scale; the margin is 5 / 9
    certainty = 1 - math.sqrt(0.75 * 0.25) / 4.5
    assert judgment.confidence == pytest.approx((5 / 9 + certainty) / 2)
    parsed = run(instance, Direct(), lambda request: "8 3\nThe first explains.", JudgeOptions())
    assert parsed.confidence == pytest.approx(5 / 9)  # no log-probabilities: the margin alone
