"""Fennec with a scripted provider: criteria, guidelines into the judgment, aggregation, ties, single-eval."""

import pytest

from faceteval import Instance, JudgeOptions, Judgment, create_method, judge
from faceteval.core import Criterion
from faceteval.errors import ConfigError
from faceteval.llm import LLM, ModelSpec, ScriptedProvider
from faceteval.methods.fennec import Fennec, response_labels
from faceteval.prompts import fence, fence_inline
from tests.support.fennec_judge import DEFAULT_CRITERIA, FennecJudge, guideline_for, stage_of

NAMES = [name for name, _ in DEFAULT_CRITERIA]


def run(instances: list[Instance], method: Fennec, rule: FennecJudge, **options: object) -> list[Judgment]:
    llm = LLM(ScriptedProvider(rule.for_provider()), ModelSpec("scripted", "judge"))
    return judge(instances, method, llm, options=JudgeOptions(**options))  # type: ignore[arg-type]


def pair(i: int, a: str, b: str, query: str = "Summarise The Great Gatsby.", **extra: object) -> Instance:
    return Instance(id=str(i), query=query, candidates=(a, b), **extra)  # type: ignore[arg-type]


def prompts_of(rule: FennecJudge, stage: str) -> list[str]:
    return [p[-1]["content"] for p in rule.prompts if stage_of(p) == stage]


def test_criteria_then_a_guideline_each_then_one_pairwise_judgment_per_criterion() -> None:
    rule = FennecJudge(quality={"plot": 4, "author": {"Accuracy": 1, "Coherence": 5}})
    (judgment,) = run([pair(1, "plot", "author")], Fennec(), rule)
    assert judgment.status == "ok"
    assert sorted(rule.calls) == ["fennec.criteria"] + ["fennec.guideline"] * 5 + ["fennec.pairwise"] * 5
    assert [f.name for f in judgment.facets] == NAMES
    assert [f.description for f in judgment.facets] == [d for _, d in DEFAULT_CRITERIA]
    assert [f.scores for f in judgment.facets] == [[4, 1], [4, 3], [4, 5], [4, 3], [4, 3]]
    assert judgment.scores == [20.0, 15.0]  # summed across criteria (the paper's aggregate)
    assert judgment.verdict == 1
    first = judgment.facets[0]
    assert first.explanations == ["Response A on Accuracy: plot.", "Response B on Accuracy: author."]
    assert first.explanation == "compared on Accuracy."
    assert first.weight is None
    # the five criteria were asked for in words, as in Table 9
    assert "establish five [Evaluation Criteria]" in prompts_of(rule, "fennec.criteria")[0]


def test_each_guideline_reaches_its_own_criterions_judgment_prompt() -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})
    (judgment,) = run([pair(1, "a", "b")], Fennec(), rule)
    judged = prompts_of(rule, "fennec.pairwise")
    for name, description in DEFAULT_CRITERIA:
        guideline = guideline_for(f"{name}: {description}")
        facet = next(f for f in judgment.facets if f.name == name)
        assert facet.guideline == guideline
        (prompt,) = [p for p in judged if f"[Evaluation Criteria]:\n> {name}: {description}\n" in p]
        assert f"[Scoring Guideline]:\n{fence(guideline)}\n" in prompt
        others = [g for n, _ in DEFAULT_CRITERIA if n != name for g in [f"{n} is met in full"]]
        assert not any(other in prompt for other in others)


def test_system_messages_follow_table_7() -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})
    run([pair(1, "a", "b")], Fennec(criteria_count=1), rule)
    systems = {stage_of(p): p[0]["content"] for p in rule.prompts}
    assert systems["fennec.criteria"].endswith("by creating Evaluation Criteria for the provided dialogue.")
    assert (
        "developing Evaluation Criteria into comprehensive Scoring Guidelines" in systems["fennec.guideline"]
    )
    assert (
        "(Tips: This entails evaluating responses through the comparison of two distinct replies.)"
        in (systems["fennec.pairwise"])
    )
    assert all(p[0]["role"] == "system" for p in rule.prompts)


@pytest.mark.parametrize(
    ("aggregate", "expected"),
    [("sum", [11.0, 9.0]), ("mean", [11 / 3, 3.0])],
)
def test_sum_and_mean_aggregates(aggregate: str, expected: list[float]) -> None:
    rule = FennecJudge(quality={"a": {"Accuracy": 5, "Comprehensiveness": 2, "Coherence": 4}, "b": 3})
    (judgment,) = run([pair(1, "a", "b")], Fennec(criteria_count=3, aggregate=aggregate), rule)  # type: ignore[arg-type]
    assert judgment.scores == pytest.approx(expected)
    assert judgment.verdict == 1
    # the mean weighs each criterion alike, and says so as DnA's mean does; the paper's sum has no weights
    weights = [f.weight for f in judgment.facets]
    assert weights == ([None] * 3 if aggregate == "sum" else pytest.approx([1 / 3] * 3))


def test_weighted_aggregate_asks_for_weights_once_per_query_and_can_change_the_verdict() -> None:
    # a wins on the first criterion only; the mean would be a tie, the weights decide
    quality = {"a": {"Accuracy": 5, "Comprehensiveness": 1, "Coherence": 2}, "b": {"Accuracy": 2}}
    rule = FennecJudge(quality=quality, weights=(70, 20, 10))
    instances = [pair(1, "a", "b"), pair(2, "b", "a")]
    first, second = run(instances, Fennec(criteria_count=3, aggregate="weighted"), rule)
    assert rule.calls.count("fennec.weights") == 1
    assert [f.weight for f in first.facets] == pytest.approx([0.7, 0.2, 0.1])
    assert first.scores == pytest.approx([0.7 * 5 + 0.2 * 1 + 0.1 * 2, 0.7 * 2 + 0.2 * 3 + 0.1 * 3])
    assert (first.verdict, second.verdict) == (1, 2)
    mean_rule = FennecJudge(quality=quality)
    (tied,) = run([pair(1, "a", "b")], Fennec(criteria_count=3, aggregate="mean"), mean_rule)
    assert tied.verdict == 0


def test_fixed_criterion_weights_skip_the_weighting_call() -> None:
    criteria = (Criterion(name="Accuracy", weight=3), Criterion(name="Coherence", weight=1))
    rule = FennecJudge(quality={"a": {"Accuracy": 2, "Coherence": 5}, "b": {"Accuracy": 4, "Coherence": 1}})
    (judgment,) = run([pair(1, "a", "b")], Fennec(criteria=criteria, aggregate="weighted"), rule)
    assert "fennec.weights" not in rule.calls and "fennec.criteria" not in rule.calls
    assert [f.weight for f in judgment.facets] == [0.75, 0.25]
    assert judgment.verdict == 2


def test_equal_totals_are_a_tie() -> None:
    rule = FennecJudge(quality={"a": {"Accuracy": 5, "Coherence": 1}, "b": {"Accuracy": 1, "Coherence": 5}})
    (judgment,) = run([pair(1, "a", "b")], Fennec(criteria_count=3), rule)
    assert judgment.scores == [9.0, 9.0]
    assert judgment.verdict == 0
    assert judgment.ranks == [1, 1]


def test_criteria_and_guidelines_are_generated_once_per_query() -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})
    instances = [pair(i, "a", "b", query="Same") for i in range(3)] + [pair(9, "a", "b", query="Other")]
    judgments = run(instances, Fennec(criteria_count=2), rule)
    assert rule.calls.count("fennec.criteria") == 2
    assert rule.calls.count("fennec.guideline") == 4
    assert rule.calls.count("fennec.pairwise") == 8
    assert sum(j.usage.calls for j in judgments) == len(rule.calls)


def test_swap_judges_both_orders_and_maps_explanations_back() -> None:
    rule = FennecJudge(quality={"a": 2, "b": 4}, first_bias=3)  # the first shown always wins
    (judgment,) = run([pair(1, "a", "b")], Fennec(criteria_count=2), rule, swap=True)
    assert judgment.consistent is False and judgment.verdict == 0
    assert [o.order for o in judgment.orders] == [[1, 2], [2, 1]]
    assert [o.verdict for o in judgment.orders] == [1, 2]
    swapped = judgment.orders[1].facets[0]
    # scores and explanations are in original candidate order; the text says what the judge saw
    assert swapped.scores == [2, 5]
    assert swapped.explanations == ["Response B on Accuracy: a.", "Response A on Accuracy: b."]
    assert rule.calls.count("fennec.criteria") == 1 and rule.calls.count("fennec.guideline") == 2


def test_single_eval_judges_each_response_alone() -> None:
    rule = FennecJudge(quality={"a": 5, "b": {"Accuracy": 1}})
    (judgment,) = run([pair(1, "a", "b")], Fennec(criteria_count=2, single=True), rule, swap=True)
    assert "fennec.pairwise" not in rule.calls
    singles = prompts_of(rule, "fennec.single")
    assert len(singles) == 4  # 2 criteria x 2 responses; the swapped order reuses them
    assert all("[The Start of Response]\n" in p and "Response A" not in p for p in singles)
    assert "Assign a score as an integer between 1 and 5." in singles[0]
    assert judgment.scores == [10.0, 4.0]
    assert judgment.consistent is True
    assert judgment.facets[0].explanation is None
    assert judgment.facets[0].explanations == ["Response on Accuracy: a.", "Response on Accuracy: b."]


def test_one_response_is_judged_with_single_eval() -> None:
    rule = FennecJudge(quality={"only": 4})
    outputs = [Instance(id="s", query="Q", candidates=("only",))]
    (judgment,) = run(outputs, Fennec(criteria_count=2), rule)
    assert judgment.scores == [8.0] and judgment.verdict is None
    assert rule.calls.count("fennec.single") == 2


def test_three_responses_are_named_a_b_c() -> None:
    rule = FennecJudge(quality={"x": 2, "y": 5, "z": 4})
    instance = Instance(id="3", query="Q", candidates=("x", "y", "z"))
    (judgment,) = run([instance], Fennec(criteria_count=1), rule)
    (prompt,) = prompts_of(rule, "fennec.pairwise")
    assert "(A, B, C) from 3 AI assistants" in prompt and "[The Start of Response C]\n> z\n" in prompt
    assert judgment.ranks == [3, 1, 2]
    assert response_labels(3) == ["Response A", "Response B", "Response C"]


def test_predefined_criteria_with_a_guideline_use_it() -> None:
    criteria = (
        Criterion(name="Safety", description="no harm", guideline="1 bad 2 poor 3 ok 4 good 5 great"),
    )
    rule = FennecJudge(quality={"a": 4, "b": 2})
    (judgment,) = run([pair(1, "a", "b", criteria=criteria)], Fennec(), rule)
    assert rule.calls == ["fennec.pairwise"]
    assert (
        "[Scoring Guideline]:\n> 1 bad 2 poor 3 ok 4 good 5 great\n" in prompts_of(rule, "fennec.pairwise")[0]
    )
    assert judgment.facets[0].guideline == "1 bad 2 poor 3 ok 4 good 5 great"


def test_an_unreadable_judgment_is_reasked_once_then_a_parse_error_with_the_raw_reply() -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})

    def script(request):  # type: ignore[no-untyped-def]
        messages = [m.to_dict() for m in request.messages]
        if stage_of(messages) == "fennec.pairwise":
            rule.calls.append("fennec.pairwise")
            return "Response A is better overall, I would say."
        return rule.respond(messages)

    llm = LLM(ScriptedProvider(script), ModelSpec("scripted", "judge"))
    (judgment,) = judge([pair(1, "a", "b")], Fennec(criteria_count=1), llm)
    assert judgment.status == "parse_error" and judgment.scores is None
    assert "no score for Response A" in (judgment.error or "")
    failed = [e for e in judgment.trace if e.stage == "fennec.pairwise"]
    assert len(failed) == 2 and all(e.raw == "Response A is better overall, I would say." for e in failed)
    assert "re-ask" not in failed[0].messages[-1]["content"]
    assert failed[1].messages[-2]["role"] == "assistant"


OUT_OF_TEN = (
    "**Response A Score:** 4/10\n**Explanation:** Response A summarises the plot but misdates the novel.\n"
    "**Response B Score:** 2/10\n**Explanation:** Response B confuses Gatsby with Nick.\n"
    "**Comparison:** Response A is more accurate."
)
RANGE = (
    "Response A Score: 2-5\nExplanation: It depends on how strictly accuracy is read.\n"
    "Response B Score: 2 to 3\nExplanation: It misses the ending.\nComparison: A is ahead."
)


def scripted_judgment(rule: FennecJudge, stage: str, replies: list[str], method: Fennec) -> Judgment:
    """A judgment of one pair in which the first replies of ``stage`` are ``replies``, the rest the rule's."""
    unread = iter(replies)

    def script(request):  # type: ignore[no-untyped-def]
        messages = [m.to_dict() for m in request.messages]
        if stage_of(messages) == stage and (reply := next(unread, None)) is not None:
            rule.calls.append(stage)
            return reply
        if messages[-2]["role"] == "assistant":  # a re-ask: the rule answers the question first asked
            messages = messages[:-2]
        return rule.respond(messages)

    llm = LLM(ScriptedProvider(script), ModelSpec("scripted", "judge"))
    (judgment,) = judge([pair(1, "a", "b")], method, llm)
    return judgment


def test_scores_out_of_ten_are_reasked_once_then_a_parse_error_never_a_score() -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})
    judgment = scripted_judgment(rule, "fennec.pairwise", [OUT_OF_TEN, OUT_OF_TEN], Fennec(criteria_count=1))
    assert judgment.status == "parse_error" and judgment.scores is None and judgment.verdict is None
    problem = 'the score of Response A ("4/10") is given out of 10; it must be on a 1-5 scale'
    assert problem in (judgment.error or "")
    asked = [e for e in judgment.trace if e.stage == "fennec.pairwise"]
    assert len(asked) == 2 and all(e.raw == OUT_OF_TEN for e in asked)
    assert [e.problem for e in asked] == [problem, problem]
    reask = asked[1].messages[-1]["content"]
    assert fence_inline(problem) in reask and "Response A Score: <1-5>" in reask
    assert rule.calls.count("fennec.pairwise") == 2


def test_a_range_is_reasked_and_a_good_second_reply_is_used() -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})
    judgment = scripted_judgment(rule, "fennec.pairwise", [RANGE], Fennec(criteria_count=1))
    assert judgment.status == "ok"
    assert judgment.facets[0].scores == [4, 2] and judgment.verdict == 1
    asked = [e for e in judgment.trace if e.stage == "fennec.pairwise"]
    problem = 'the score of Response A ("2-5") gives a range, not one score'
    assert [e.problem for e in asked] == [problem, None]
    assert asked[1].messages[-2] == {"role": "assistant", "content": RANGE}


def test_single_eval_scores_out_of_ten_are_reasked_too() -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})
    out_of_ten = "Response Score: 8 out of 10\nExplanation: Clear and accurate."
    judgment = scripted_judgment(rule, "fennec.single", [out_of_ten], Fennec(criteria_count=1, single=True))
    assert judgment.status == "ok" and judgment.scores == [4.0, 2.0]
    problems = [e.problem for e in judgment.trace if e.stage == "fennec.single" and e.problem]
    assert problems == ['the score of Response ("8 out of 10") is given out of 10; it must be on a 1-5 scale']


def test_a_guideline_that_skips_scores_is_a_problem_to_reask() -> None:
    rule = FennecJudge(quality={"a": 4, "b": 2})
    replies = iter(["5. Perfect.\n1. Useless.", None])

    def script(request):  # type: ignore[no-untyped-def]
        messages = [m.to_dict() for m in request.messages]
        if stage_of(messages) == "fennec.guideline" and (reply := next(replies, None)):
            return reply
        return rule.respond(messages)

    llm = LLM(ScriptedProvider(script), ModelSpec("scripted", "judge"))
    (judgment,) = judge([pair(1, "a", "b")], Fennec(criteria_count=1), llm)
    assert judgment.status == "ok"
    problems = [e.problem for e in judgment.trace if e.stage == "fennec.guideline" and e.problem]
    assert problems == ["the guideline does not describe score 2, 3, 4"]


def test_configuration_is_checked_and_the_method_rebuilds_from_its_description() -> None:
    with pytest.raises(ConfigError):
        Fennec(criteria_count=0)
    with pytest.raises(ConfigError):
        Fennec(aggregate="prompted")  # type: ignore[arg-type]
    method = Fennec(criteria_count=3, aggregate="mean", single=True)
    described = method.describe()
    assert create_method(described["name"], **described["params"]) == method
    assert "fennec/pairwise" in method.templates() and "fennec/single" in method.templates()
