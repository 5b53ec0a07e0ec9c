"""DnA-Eval with a scripted provider: facets, weights, aggregation, ties, three candidates, reuse."""

import pytest

from faceteval import CoT, Direct, DnA, Instance, JudgeOptions, Judgment, Method, create_method, judge
from faceteval.core import Criterion
from faceteval.errors import ConfigError, ProviderServerError
from faceteval.llm import LLM, CompletionRequest, ModelSpec, RetryPolicy, ScriptedProvider
from tests.support.rule_judge import RuleJudge

ASPECTS = ("Is it correct?", "Is it concise?", "Is it polite?")


def run(
    instances: list[Instance], method: DnA, rule: RuleJudge, **options: object
) -> tuple[list[Judgment], ScriptedProvider]:
    provider = ScriptedProvider(rule.for_provider())
    llm = LLM(provider, ModelSpec("scripted", "judge"))
    return judge(instances, method, llm, options=JudgeOptions(**options)), provider  # type: ignore[arg-type]


def pair(i: int, a: str, b: str, query: str = "Explain rain.", **extra: object) -> Instance:
    return Instance(id=str(i), query=query, candidates=(a, b), **extra)  # type: ignore[arg-type]


def test_facets_weights_and_weighted_aggregate() -> None:
    rule = RuleJudge(
        aspects=ASPECTS,
        weights=(60, 30, 10),
        quality={
            "good": {ASPECTS[0]: 9, ASPECTS[1]: 4, ASPECTS[2]: 5},
            "bad": {ASPECTS[0]: 3, ASPECTS[1]: 10, ASPECTS[2]: 9},
        },
    )
    (judgment,), _ = run([pair(1, "good", "bad")], DnA(), rule)
    assert judgment.status == "ok"
    assert [f.name for f in judgment.facets] == list(ASPECTS)
    assert [f.weight for f in judgment.facets] == pytest.approx([0.6, 0.3, 0.1])
    assert [f.scores for f in judgment.facets] == [[9, 3], [4, 10], [5, 9]]
    assert judgment.scores == pytest.approx([0.6 * 9 + 0.3 * 4 + 0.1 * 5, 0.6 * 3 + 0.3 * 10 + 0.1 * 9])
    assert judgment.verdict == 1
    assert judgment.ranks == [1, 2]
    # the mean would have preferred the other candidate: the weights decided
    assert sum([9, 4, 5]) < sum([3, 10, 9])
    assert sorted(rule.calls) == ["dna.aspects", "dna.score", "dna.score", "dna.score", "dna.weights"]
    stages = [entry.stage for entry in judgment.trace]
    assert stages[0] == "dna.aspects" and stages.count("dna.score") == 3
    assert judgment.usage.calls == 5


def test_mean_aggregate_needs_no_weights() -> None:
    rule = RuleJudge(aspects=ASPECTS, quality={"a": {ASPECTS[0]: 9, ASPECTS[1]: 4, ASPECTS[2]: 5}, "b": 6})
    (judgment,), _ = run([pair(1, "a", "b")], DnA(aggregate="mean"), rule)
    assert "dna.weights" not in rule.calls
    assert judgment.scores == pytest.approx([6.0, 6.0])
    assert judgment.verdict == 0  # a tie
    assert [f.weight for f in judgment.facets] == pytest.approx([1 / 3] * 3)


def test_prompted_aggregate_asks_the_llm_for_overall_scores() -> None:
    rule = RuleJudge(aspects=ASPECTS, quality={"a": 8, "b": 4})
    (judgment,), _ = run([pair(1, "a", "b")], DnA(aggregate="prompted"), rule)
    assert rule.calls.count("dna.aggregate") == 1 and "dna.weights" not in rule.calls
    aggregate = next(e for e in judgment.trace if e.stage == "dna.aggregate")
    assert '"Is it correct?": Response 1: 8' in aggregate.messages[-1]["content"]
    assert judgment.scores == [8.0, 4.0]
    assert all(f.weight is None for f in judgment.facets)


def test_three_candidates_are_ranked() -> None:
    rule = RuleJudge(aspects=ASPECTS[:2], quality={"x": 4, "y": 9, "z": 7})
    instance = Instance(id="1", query="Q", candidates=("x", "y", "z"))
    (judgment,), _ = run([instance], DnA(aspects=2), rule)
    assert judgment.verdict == 2
    assert judgment.ranks == [3, 1, 2]
    assert all(len(f.scores) == 3 for f in judgment.facets)
    score_prompt = next(e for e in judgment.trace if e.stage == "dna.score").messages[-1]["content"]
    assert "[The Start of Response 3]\n> z\n[The End of Response 3]" in score_prompt


def test_facets_and_weights_are_generated_once_per_query() -> None:
    rule = RuleJudge(aspects=ASPECTS, quality={"a": 7, "b": 5})
    instances = [pair(i, "a", "b", query="Same question") for i in range(4)] + [
        pair(9, "a", "b", query="Other")
    ]
    judgments, _ = run(instances, DnA(), rule)
    assert rule.calls.count("dna.aspects") == 2
    assert rule.calls.count("dna.weights") == 2
    assert rule.calls.count("dna.score") == 15
    owners = [j for j in judgments if not any(e.reused for e in j.trace)]
    assert len(owners) == 2
    reused = [j for j in judgments if any(e.reused for e in j.trace)]
    assert all(j.usage.calls == 3 for j in reused)  # reused facets and weights are not counted again
    assert sum(j.usage.calls for j in judgments) == len(rule.calls)
    assert all(j.facets[0].name == ASPECTS[0] for j in judgments)


def test_predefined_criteria_are_used_as_facets() -> None:
    rule = RuleJudge(quality={"a": 7, "b": 5})
    criteria = (Criterion(name="helpfulness"), Criterion(name="accuracy", description="facts are right"))
    (judgment,), _ = run([pair(1, "a", "b", criteria=criteria)], DnA(), rule)
    assert "dna.aspects" not in rule.calls
    assert [(f.name, f.description) for f in judgment.facets] == [
        ("helpfulness", None),
        ("accuracy", "facts are right"),
    ]
    score_prompts = [e.messages[-1]["content"] for e in judgment.trace if e.stage == "dna.score"]
    assert any("on one aspect only:\n> accuracy: facts are right\n" in p for p in score_prompts)


def test_method_criteria_override_the_instances_and_fixed_weights_skip_the_call() -> None:
    rule = RuleJudge(quality={"a": 7, "b": 5})
    override = (Criterion(name="depth", weight=3), Criterion(name="clarity", weight=1))
    instance = pair(1, "a", "b", criteria=(Criterion(name="helpfulness"),))
    (judgment,), _ = run([instance], DnA(criteria=override), rule)
    assert [f.name for f in judgment.facets] == ["depth", "clarity"]
    assert [f.weight for f in judgment.facets] == [0.75, 0.25]
    assert rule.calls == ["dna.score", "dna.score"]


def test_unreadable_reply_is_reasked_once_then_parse_error_with_raw_kept() -> None:
    rule = RuleJudge(aspects=ASPECTS, quality={"a": 7, "b": 5})

    def script(request):  # type: ignore[no-untyped-def]
        if "on one aspect only:\n> Is it polite?" in request.messages[1].content:
            return "I'm sorry, but I can't rate politeness."
        return rule.respond([m.to_dict() for m in request.messages])

    provider = ScriptedProvider(script)
    (judgment,) = judge([pair(1, "a", "b")], DnA(), LLM(provider, ModelSpec("scripted", "j")))
    assert judgment.status == "parse_error"
    assert judgment.verdict is None and judgment.scores is None
    assert "dna.score" in (judgment.error or "") and "re-ask" in (judgment.error or "")
    failed = [e for e in judgment.trace if e.problem]
    assert len(failed) == 2
    assert all(e.raw == "I'm sorry, but I can't rate politeness." for e in failed)
    reask = failed[1].messages
    assert reask[-2] == {"role": "assistant", "content": "I'm sorry, but I can't rate politeness."}
    assert "could not be used" in reask[-1]["content"]


def test_reask_that_succeeds_keeps_both_exchanges() -> None:
    replies = iter(["Response 1 is clearly better.", "8 3\nbecause"])
    rule = RuleJudge(aspects=ASPECTS[:1], quality={"a": 7, "b": 5})

    def script(request):  # type: ignore[no-untyped-def]
        if "on one aspect only" in request.messages[1].content:
            return next(replies)
        return rule.respond([m.to_dict() for m in request.messages])

    (judgment,) = judge(
        [pair(1, "a", "b")], DnA(aspects=1), LLM(ScriptedProvider(script), ModelSpec("scripted", "j"))
    )
    assert judgment.status == "ok"
    assert judgment.facets[0].scores == [8, 3]
    scores = [e for e in judgment.trace if e.stage == "dna.score"]
    assert [e.problem is None for e in scores] == [False, True]


@pytest.mark.parametrize(
    "method",
    [
        DnA(aspects=5, aggregate="mean"),
        DnA(
            criteria=(
                Criterion(name="accuracy", description="facts", weight=2),
                Criterion(name="depth", weight=1),
            )
        ),
        Direct(criteria=(Criterion(name="helpfulness"),)),
        CoT(scale=(1, 5)),
    ],
)
def test_a_method_is_rebuilt_from_its_description(method: Method) -> None:
    described = method.describe()
    rebuilt = create_method(described["name"], **described["params"])
    assert rebuilt == method
    assert rebuilt.describe() == described


def test_a_provider_failure_in_shared_work_fails_its_instance_only() -> None:
    # The weights call for the query fails past its retries once (the server was down). The
    # instance that asked gets the error; the next instance with the same query asks again.
    rule = RuleJudge(aspects=ASPECTS, quality={"a": 7, "b": 5})
    answer = rule.for_provider()
    failures = [ProviderServerError("503 from the server", status=503)]

    def flaky(request: CompletionRequest) -> str | ProviderServerError:
        reply = answer(request)
        return failures.pop() if rule.calls[-1] == "dna.weights" and failures else reply

    llm = LLM(ScriptedProvider(flaky), ModelSpec("scripted", "judge"), retry=RetryPolicy(max_retries=0))
    instances = [pair(i, "a", "b", query="Same question") for i in range(3)]
    judgments = judge(instances, DnA(), llm, options=JudgeOptions(window=1))
    assert [j.status for j in judgments] == ["error", "ok", "ok"]
    assert "503 from the server" in (judgments[0].error or "")
    assert rule.calls.count("dna.weights") == 2  # the failed one, then one shared by the other two
    assert rule.calls.count("dna.aspects") == 1  # what succeeded is still shared


def test_an_unreadable_reply_in_shared_work_is_shared_not_asked_again() -> None:
    rule = RuleJudge(aspects=ASPECTS, quality={"a": 7, "b": 5})
    answer = rule.for_provider()

    def no_weights(request: CompletionRequest) -> str:
        reply = answer(request)
        return "I would weigh them all the same." if rule.calls[-1] == "dna.weights" else reply

    llm = LLM(ScriptedProvider(no_weights), ModelSpec("scripted", "judge"))
    instances = [pair(i, "a", "b", query="Same question") for i in range(3)]
    judgments = judge(instances, DnA(), llm, options=JudgeOptions(window=1))
    assert [j.status for j in judgments] == ["parse_error"] * 3
    assert rule.calls.count("dna.weights") == 2  # the reply and its one re-ask, shared by all three


def test_criteria_of_one_name_are_refused_where_they_are_given() -> None:
    with pytest.raises(ConfigError, match="criterion 2 repeats the name 'accuracy'"):
        DnA(criteria=["Accuracy", "accuracy"])
