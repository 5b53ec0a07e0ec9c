"""The runner: orders and swap, input order, invalid lines, failures, usage accounting."""

import pytest

from faceteval import Direct, DnA, Instance, JudgeOptions, judge
from faceteval._runner import RunAborted, judge_each, presentation_orders
from faceteval.errors import AuthenticationError, InputError, ProviderServerError
from faceteval.llm import LLM, ModelSpec, RetryPolicy, ScriptedProvider
from tests.support.rule_judge import RuleJudge

NO_RETRY = RetryPolicy(max_retries=0)


def llm_for(rule: RuleJudge) -> LLM:
    return LLM(ScriptedProvider(rule.for_provider()), ModelSpec("scripted", "judge"))


def test_swap_records_both_orders_and_agrees_for_a_fair_judge() -> None:
    rule = RuleJudge(quality={"strong": 8, "weak": 4})
    (judgment,) = judge(
        [Instance(id="1", query="Q", candidates=("weak", "strong"))],
        Direct(),
        llm_for(rule),
        options=JudgeOptions(swap=True),
    )
    assert [o.order for o in judgment.orders] == [[1, 2], [2, 1]]
    assert [o.scores for o in judgment.orders] == [[4, 8], [4, 8]]  # mapped back to the original order
    assert judgment.consistent is True
    assert judgment.verdict == 2
    orders_seen = [e.order for e in judgment.trace]
    assert orders_seen == [[1, 2], [2, 1]]


def test_swap_turns_a_position_biased_disagreement_into_a_tie() -> None:
    rule = RuleJudge(quality={"a": 6, "b": 5}, first_bias=3)  # always prefers whatever is shown first
    (judgment,) = judge(
        [Instance(id="1", query="Q", candidates=("a", "b"))],
        DnA(aspects=2),
        llm_for(rule),
        options=JudgeOptions(swap=True),
    )
    assert [o.verdict for o in judgment.orders] == [1, 2]
    assert judgment.consistent is False
    assert judgment.verdict == 0
    assert judgment.status == "ok"
    assert judgment.scores == pytest.approx([7.5, 6.5])  # mean over the orders
    # aspects and weights depend on the query only: made once, shared by both orders
    assert rule.calls.count("dna.aspects") == 1 and rule.calls.count("dna.weights") == 1
    assert rule.calls.count("dna.score") == 4


def test_rotation_for_three_candidates() -> None:
    assert presentation_orders(3, swap=True) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert presentation_orders(1, swap=True) == [(0,)]
    rule = RuleJudge(quality={"x": 3, "y": 9, "z": 6})
    (judgment,) = judge(
        [Instance(id="1", query="Q", candidates=("x", "y", "z"))],
        Direct(),
        llm_for(rule),
        options=JudgeOptions(swap=True),
    )
    assert len(judgment.orders) == 3
    assert judgment.consistent and judgment.verdict == 2


def test_output_keeps_input_order_and_invalid_lines_are_written_as_errors() -> None:
    rule = RuleJudge(quality={"a": 7, "b": 5})
    items: list[Instance | InputError] = [
        Instance(id=str(i), query=f"Q{i}", candidates=("a", "b")) for i in range(40)
    ]
    items.insert(5, InputError("p.jsonl", 6, "candidates", "Input should be a valid list", record_id="bad"))
    seen: list[str] = []
    import anyio

    stats = anyio.run(
        lambda: judge_each(
            items, Direct(), llm_for(rule), options=JudgeOptions(window=4), sink=lambda j: seen.append(j.id)
        )
    )
    assert seen == [item.record_id if isinstance(item, InputError) else item.id for item in items]  # type: ignore[misc]
    assert stats.invalid == 1 and stats.statuses == {"ok": 40, "error": 1}


def test_provider_failure_is_an_error_judgment_not_a_crash() -> None:
    calls = 0

    def script(request):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return ProviderServerError("upstream down", status=502) if calls == 1 else "7 5\nok"

    llm = LLM(ScriptedProvider(script), ModelSpec("scripted", "j"), retry=NO_RETRY)
    first, second = judge(
        [
            Instance(id="1", query="Q", candidates=("a", "b")),
            Instance(id="2", query="Q", candidates=("a", "b")),
        ],
        Direct(),
        llm,
        options=JudgeOptions(window=1),
    )
    assert first.status == "error" and "ProviderServerError: upstream down" in (first.error or "")
    assert first.verdict is None and first.scores is None
    assert second.status == "ok"


def test_many_provider_failures_in_a_row_stop_the_run() -> None:
    llm = LLM(
        ScriptedProvider(lambda r: ProviderServerError("down", status=500)),
        ModelSpec("scripted", "j"),
        retry=NO_RETRY,
    )
    instances = [Instance(id=str(i), query="Q", candidates=("a", "b")) for i in range(50)]
    written: list[str] = []
    import anyio

    with pytest.raises(RunAborted, match="3 instances in a row failed"):
        anyio.run(
            lambda: judge_each(
                instances,
                Direct(),
                llm,
                options=JudgeOptions(abort_after=3, window=1),
                sink=lambda j: written.append(j.id),
            )
        )
    assert written == ["0", "1", "2"]


def test_refused_credentials_stop_the_run_at_once() -> None:
    llm = LLM(ScriptedProvider(lambda r: AuthenticationError("invalid key")), ModelSpec("scripted", "j"))
    with pytest.raises(AuthenticationError):
        judge([Instance(id=str(i), query="Q", candidates=("a", "b")) for i in range(5)], Direct(), llm)


def test_single_candidate_has_a_score_but_no_verdict() -> None:
    rule = RuleJudge(quality={"only": 7})
    (judgment,) = judge([Instance(id="1", query="Q", candidates=("only",))], Direct(), llm_for(rule))
    assert judgment.scores == [7.0] and judgment.verdict is None and judgment.status == "ok"


def test_trace_can_be_left_out_without_losing_usage() -> None:
    rule = RuleJudge(quality={"a": 7, "b": 5})
    (judgment,) = judge(
        [Instance(id="1", query="Q", candidates=("a", "b"))],
        DnA(),
        llm_for(rule),
        options=JudgeOptions(trace=False),
    )
    assert judgment.trace == [] and judgment.usage.calls == 5


def test_a_judgment_carries_its_confidence_from_the_method_scale_and_the_orders() -> None:
    rule = RuleJudge(quality={"strong": 8, "weak": 4})
    (swapped,) = judge(
        [Instance(id="1", query="Q", candidates=("weak", "strong"))],
        Direct(),
        llm_for(rule),
        options=JudgeOptions(swap=True),
    )
    # margin (8 - 4) / (10 - 1) on Direct's 1-10 scale, and both orders agreeing
    assert swapped.confidence == pytest.approx((4 / 9 + 1.0) / 2)
    biased = RuleJudge(quality={"a": 6, "b": 5}, first_bias=3)
    (split,) = judge(
        [Instance(id="1", query="Q", candidates=("a", "b"))],
        Direct(),
        llm_for(biased),
        options=JudgeOptions(swap=True),
    )
    assert split.verdict == 0 and split.confidence == 0.0  # a tie, and the orders disagreed
