"""The direct and chain-of-thought baselines with a scripted provider."""

from faceteval import CoT, Direct, Instance, JudgeOptions, judge
from faceteval.core import Criterion
from faceteval.llm import LLM, ModelSpec, ScriptedProvider

PAIR = Instance(id="1", query="Name a prime.", candidates=("9", "7"), reference="7 is prime; 9 = 3 x 3.")


def run(method: Direct | CoT, reply: str, instance: Instance = PAIR) -> tuple[object, ScriptedProvider]:
    provider = ScriptedProvider.sequence([reply])
    (judgment,) = judge([instance], method, LLM(provider, ModelSpec("scripted", "j")))
    return judgment, provider


def test_direct_reads_the_score_line_first_and_keeps_the_explanation() -> None:
    judgment, provider = run(Direct(), "3 9\nResponse 2 is correct; 9 is not prime.")
    assert judgment.verdict == 2 and judgment.scores == [3.0, 9.0]  # type: ignore[attr-defined]
    prompt = provider.requests[0].messages[-1].content
    assert '"helpfulness", "relevance", "accuracy" and "level of detail"' in prompt
    assert "[The Start of Reference Answer]\n> 7 is prime" in prompt
    assert prompt.index("[The Start of Response 1]\n> 9") < prompt.index("[The Start of Response 2]\n> 7")


def test_direct_names_the_instances_own_criteria() -> None:
    instance = PAIR.model_copy(
        update={"criteria": (Criterion(name="correctness"), Criterion(name="brevity"))}
    )
    _, provider = run(Direct(), "3 9", instance)
    assert (
        'Please rate the "correctness" and "brevity" of their responses'
        in provider.requests[0].messages[-1].content
    )


def test_cot_explains_first_and_scores_last() -> None:
    reply = "Response 1 says 9, which is 3 x 3, so it is wrong. Response 2 is right.\n2 10"
    judgment, provider = run(CoT(), reply)
    assert judgment.scores == [2.0, 10.0]  # type: ignore[attr-defined]
    assert "explain your evaluation step by step" in provider.requests[0].messages[-1].content
    trace = judgment.trace[0]  # type: ignore[attr-defined]
    assert trace.stage == "cot" and trace.parsed == {"values": [2.0, 10.0]}


def test_the_overall_explanation_is_kept_in_the_judgment_and_each_order() -> None:
    reply = "Response 1 says 9, which is 3 x 3, so it is wrong. Response 2 is right.\n2 10"
    judgment, _ = run(CoT(), reply)
    assert judgment.explanation == "Response 1 says 9, which is 3 x 3, so it is wrong. Response 2 is right."  # type: ignore[attr-defined]
    provider = ScriptedProvider.sequence(["first order.\n2 10", "swapped order.\n10 2"])
    options = JudgeOptions(swap=True, trace=False)
    (swapped,) = judge([PAIR], CoT(), LLM(provider, ModelSpec("scripted", "j")), options=options)
    assert swapped.explanation == "first order."  # the original order's, with no trace kept
    assert [o.explanation for o in swapped.orders] == ["first order.", "swapped order."]
