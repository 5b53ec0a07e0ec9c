"""What a Python caller meets: an instance the method cannot judge, dry runs, aborted runs, event loops,
and settings refused where they are given rather than deep in a run."""

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from faceteval import CoT, Criterion, Direct, DnA, Instance, JudgeOptions, judge, judge_async, judge_each
from faceteval._runner import RunAborted
from faceteval._runner._judge import PLANNED
from faceteval.errors import ConfigError, ProviderServerError
from faceteval.llm import LLM, GenerateConfig, ModelSpec, RetryPolicy, ScriptedProvider
from faceteval.methods.coeval import CoEval
from faceteval.methods.fennec import Fennec
from tests.support.fennec_judge import FennecJudge
from tests.support.rule_judge import RuleJudge


def scripted() -> LLM:
    return LLM(
        ScriptedProvider(RuleJudge(quality={"a": 7, "b": 4}).for_provider()), ModelSpec("scripted", "j")
    )


def pair(i: int) -> Instance:
    return Instance(id=str(i), query=f"Question {i}?", candidates=("a", "b"))


def test_an_instance_the_method_cannot_judge_is_an_error_and_the_others_are_judged() -> None:
    many = Instance(id="many", query="Q?", candidates=tuple("ab" * 14))  # 28: more than fennec can name
    fennec = Fennec(criteria=[Criterion(name="accuracy", guideline="1 wrong ... 5 right")])
    llm = LLM(
        ScriptedProvider(FennecJudge(quality={"a": 4, "b": 2}).for_provider()), ModelSpec("scripted", "j")
    )
    first, too_many, last = judge([pair(1), many, pair(2)], fennec, llm)
    assert too_many.status == "error" and "InstanceError: fennec names at most 26 responses" in (
        too_many.error or ""
    )
    assert too_many.usage.calls == 0
    assert first.status == "ok" and last.status == "ok"


def test_a_dry_run_gives_plans_not_judgments_and_is_not_stopped_as_failing() -> None:
    llm = LLM(None, ModelSpec("openai", "gpt-4o-mini"), dry_run=True)
    judgments = judge([pair(i) for i in range(15)], DnA(), llm, options=JudgeOptions(trace=False))
    assert len(judgments) == 15  # fifteen planned instances in a row do not stop the run
    assert {(j.status, j.error, j.verdict, j.scores) for j in judgments} == {("error", PLANNED, None, None)}
    assert all(j.usage.calls > 0 for j in judgments)  # the calls it would make


def test_an_aborted_run_keeps_the_judgments_it_finished() -> None:
    down = LLM(
        ScriptedProvider(lambda request: ProviderServerError("down", status=503)),
        ModelSpec("scripted", "j"),
        retry=RetryPolicy(max_retries=0),
    )
    with pytest.raises(RunAborted) as stopped:
        judge([pair(i) for i in range(40)], Direct(), down, options=JudgeOptions(abort_after=4, window=1))
    assert [j.id for j in stopped.value.judgments] == ["0", "1", "2", "3"]
    assert "fix the cause and run it again" in str(stopped.value) and "command" not in str(stopped.value)


def test_the_blocking_call_inside_an_event_loop_says_what_to_await() -> None:
    async def cell() -> Any:
        return judge([pair(1)], Direct(), scripted())

    with pytest.raises(ConfigError, match=r"use `await judge_async\(\.\.\.\)` there"):
        asyncio.run(cell())


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: DnA(scale=(10, 1)), "low < high"),
        (lambda: DnA(scale=(1, 5, 9)), "two numbers"),
        (lambda: Direct(scale=(1, float("nan"))), "low < high"),
        (lambda: CoT(criteria="accuracy"), r"not one: write \['accuracy'\]"),
        (lambda: DnA(aspects=2.5), "aspects must be a whole number"),
        (lambda: DnA(aspects=True), "aspects must be a whole number"),
        (lambda: Fennec(criteria_count=0), "criteria_count must be a whole number"),
        (lambda: DnA(criteria=[]), "criteria is empty"),
        (lambda: DnA(criteria=[Criterion(name="a", weight=0)]), "every weight is 0"),
        (lambda: DnA(criteria=[{"name": "a", "weight": 2}, "b"]), r"1 of 2 criteria has a weight \(a\)"),
        (lambda: CoEval(criteria=[{"name": " "}]), r"criteria\[0\]\.name: .*must not be blank"),
        (lambda: LLM(ScriptedProvider(lambda r: "x"), ModelSpec("s", "m"), concurrency=2.5), "concurrency"),
        (
            lambda: LLM(ScriptedProvider(lambda r: "x"), ModelSpec("s", "m"), config={"temperature": 0.7}),
            "config must be a GenerateConfig",
        ),
        (
            lambda: LLM(ScriptedProvider(lambda r: "x"), ModelSpec("s", "m"), retry=3),
            "retry must be a RetryPolicy",
        ),
        (
            lambda: LLM(ScriptedProvider(lambda r: "x"), ModelSpec("s", "m"), timeout="30"),
            "timeout must be a pos",
        ),
        (lambda: LLM(ScriptedProvider(lambda r: "x"), ModelSpec("s", "m"), timeout=float("nan")), "timeout"),
        (lambda: RetryPolicy(max_retries=1.5), "max_retries must be a whole number"),
        (lambda: RetryPolicy(initial_delay=-1), "initial_delay must be a number of seconds"),
        (lambda: JudgeOptions(window=-1), "window must be a whole number of at least 1"),
        (lambda: JudgeOptions(abort_after=-1), "abort_after must be a whole number of at least 0"),
        (lambda: JudgeOptions(order="random"), "order must be one of input, finish, got 'random'"),
    ],
)
def test_settings_are_refused_where_they_are_given(make: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make()


def test_weights_and_labels_that_could_only_be_mistakes_are_refused() -> None:
    with pytest.raises(ValidationError, match="finite number"):
        Criterion(name="a", weight=float("inf"))
    with pytest.raises(ValidationError, match="the ends must be finite"):
        Criterion(name="a", scale=(float("nan"), 1))
    with pytest.raises(ValidationError, match="not true or false"):
        Instance(id="x", query="Q", candidates=("a", "b"), label=True)
    assert GenerateConfig(temperature=0.7).temperature == 0.7  # the way to pass a config


def test_instances_the_method_cannot_judge_do_not_stop_a_run_as_failures_do() -> None:
    many = [Instance(id=f"m{i}", query="Q?", candidates=tuple("ab" * 14)) for i in range(12)]
    fennec = Fennec(criteria=[Criterion(name="accuracy", guideline="1 wrong ... 5 right")])
    llm = LLM(
        ScriptedProvider(FennecJudge(quality={"a": 4, "b": 2}).for_provider()), ModelSpec("scripted", "j")
    )
    judgments = judge([*many, pair(1)], fennec, llm, options=JudgeOptions(abort_after=3))
    assert [j.status for j in judgments] == ["error"] * 12 + ["ok"]


def test_single_eval_shows_each_response_alone_so_any_number_is_judged() -> None:
    many = Instance(id="many", query="Q?", candidates=tuple(f"r{i}" for i in range(27)))
    fennec = Fennec(single=True, criteria=[Criterion(name="accuracy", guideline="1 wrong ... 5 right")])
    (planned,) = judge([many], fennec, LLM(None, ModelSpec("openai", "gpt-4o-mini"), dry_run=True))
    assert planned.error == PLANNED  # planned, not refused as too many to name


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (lambda: (pair(1), Direct(), scripted(), JudgeOptions()), r"not one: pass \[instance\]"),
        (lambda: ("pairs.jsonl", Direct(), scripted(), JudgeOptions()), r"read_instances\('pairs.jsonl'\)"),
        (lambda: (None, Direct(), scripted(), JudgeOptions()), "iterable of Instance objects, got NoneType"),
        (lambda: ([pair(1)], Direct, scripted(), JudgeOptions()), r"not the class: pass Direct\(\)"),
        (lambda: ([pair(1)], "dna", scripted(), JudgeOptions()), r"create_method\(name\)"),
        (lambda: ([pair(1)], Direct(), "openai:gpt-4o", JudgeOptions()), "llm must be an LLM"),
        (lambda: ([pair(1)], Direct(), scripted(), {"swap": True}), r"options must be JudgeOptions\(...\)"),
        (
            lambda: (
                [pair(1), {"id": "2", "query": "Q?", "candidates": ["a", "b"]}],
                Direct(),
                scripted(),
                JudgeOptions(),
            ),
            r"item 2 is a dict: read files with read_instances\(path\), or build Instance\(\*\*record\)",
        ),
    ],
)
def test_arguments_of_the_wrong_kind_are_a_type_error_that_says_what_to_pass(
    arguments: Any, message: str
) -> None:
    instances, method, llm, options = arguments()
    with pytest.raises(TypeError, match=message):
        judge(instances, method, llm, options=options)
    with pytest.raises(TypeError, match=message):
        asyncio.run(judge_async(instances, method, llm, options=options))
    with pytest.raises(TypeError, match=message):
        asyncio.run(judge_each(instances, method, llm, options=options))
