"""A judge run's result from known judgments: rates, intervals, failures, positions, pointwise means."""

from __future__ import annotations

import pytest
from scipy import stats

from faceteval import Direct, JudgeOptions, judge
from faceteval.core import Instance, Judgment, OrderResult
from faceteval.core.internal import INVALID_INPUT, PLANNED, UNJUDGEABLE
from faceteval.errors import ConfigError
from faceteval.llm import LLM, ModelSpec, ScriptedProvider
from faceteval.results import JudgeResult, Proportion, ResultBuilder, ResultOptions, Standing, compute_result
from tests.support.rule_judge import RuleJudge


def wilson(hits: int, n: int) -> tuple[float, float]:
    ci = stats.binomtest(hits, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def pair(id_: str, systems: tuple[str, str] | None = ("A", "B")) -> Instance:
    return Instance(id=id_, query="q", candidates=("x", "y"), systems=systems)


def ok(id_: str, verdict: int, scores: list[float] | None = None, **extra: object) -> Judgment:
    if scores is None:
        scores = {1: [8.0, 3.0], 2: [3.0, 8.0], 0: [5.0, 5.0]}[verdict]
    return Judgment(id=id_, method="m", status="ok", verdict=verdict, scores=scores, **extra)  # type: ignore[arg-type]


def failed(id_: str, status: str = "error", error: str = "ProviderError: 500") -> Judgment:
    return Judgment(id=id_, method="m", status=status, error=error)  # type: ignore[arg-type]


def system(result: JudgeResult, name: str) -> Standing:
    assert result.pairwise is not None
    return next(s for s in result.pairwise.systems if s.name == name)


def test_known_counts_give_known_rates_and_wilson_intervals() -> None:
    verdicts = [2] * 70 + [1] * 20 + [0] * 10
    instances = [pair(str(i)) for i in range(100)]
    result = compute_result([ok(str(i), v) for i, v in enumerate(verdicts)], instances)

    b = system(result, "B")
    assert (b.wins, b.ties, b.losses, b.failed) == (70, 10, 20, 0)
    assert b.win_rate.value == pytest.approx(0.75)
    assert (b.win_rate.hits, b.win_rate.n) == (75, 100)
    assert b.win_rate.ci == pytest.approx(wilson(75, 100))
    assert b.win_rate_without_ties.value == pytest.approx(70 / 90)
    assert b.win_rate_without_ties.n == 90
    assert b.win_rate_without_ties.ci == pytest.approx(wilson(70, 90))
    a = system(result, "A")
    assert (a.wins, a.ties, a.losses) == (20, 10, 70)
    assert a.win_rate.value == pytest.approx(0.25)
    assert result.pairwise is not None and result.pairwise.systems_named
    assert [s.name for s in result.pairwise.systems] == ["B", "A"]  # best first
    assert b.score is not None and b.score.value == pytest.approx((70 * 8 + 20 * 3 + 10 * 5) / 100)
    assert (result.ok_rate.value, result.ok_rate.n) == (1.0, 100)
    assert result.ok_rate.ci == pytest.approx(wilson(100, 100))


def test_ties_count_half_and_a_run_of_ties_has_no_rate_without_ties() -> None:
    result = compute_result([ok(str(i), 0) for i in range(6)], [pair(str(i)) for i in range(6)])

    a = system(result, "A")
    assert (a.wins, a.ties, a.losses) == (0, 6, 0)
    assert a.win_rate.value == 0.5
    low, high = a.win_rate.ci or (0, 0)
    assert low < 0.5 < high  # not a point: six ties are not proof of a coin's fairness
    assert a.win_rate_without_ties == Proportion(value=None, hits=0, n=0, ci=None)


def test_failures_are_counted_by_kind_and_kept_out_of_win_rates_but_not_of_the_ok_rate() -> None:
    instances = [pair(str(i)) for i in range(15)]
    judgments = [ok(str(i), 2) for i in range(10)]
    judgments += [failed("10", "parse_error", "no score line"), failed("11", "parse_error", "unreadable")]
    judgments += [failed("12"), failed("13", error=f"{UNJUDGEABLE}no criteria"), failed("14", error=PLANNED)]
    judgments += [failed("line-16", error=f"{INVALID_INPUT}pairs.jsonl:16: not valid JSON")]
    result = compute_result(judgments, instances)

    assert result.judgments == 16
    assert result.statuses == {"error": 4, "ok": 10, "parse_error": 2}
    assert result.failures == {
        "error": 1,
        "invalid_input": 1,
        "parse_error": 2,
        "planned": 1,
        "unjudgeable": 1,
    }
    assert (result.ok_rate.hits, result.ok_rate.n) == (10, 16)
    b = system(result, "B")
    assert (b.wins, b.failed) == (10, 5)  # the invalid line names no system
    assert (b.win_rate.value, b.win_rate.n) == (1.0, 10)
    assert result.pairwise is not None and result.pairwise.judgments == 15


def test_positions_show_position_bias_apart_from_systems() -> None:
    # B wins every time, but sits first in half the pairs: positions split evenly
    instances = [pair(str(i), ("A", "B") if i % 2 else ("B", "A")) for i in range(8)]
    judgments = [ok(str(i), 2 if i % 2 else 1) for i in range(8)]
    result = compute_result(judgments, instances)

    assert result.pairwise is not None
    assert [(p.name, p.wins, p.losses) for p in result.pairwise.positions] == [("1", 4, 4), ("2", 4, 4)]
    assert system(result, "B").win_rate.value == 1.0
    assert all(p.score is None for p in result.pairwise.positions)


def test_without_names_the_systems_are_the_positions_and_systems_can_be_given_for_all() -> None:
    judgments = [ok("1", 2), ok("2", 2), ok("3", 1)]
    plain = compute_result(judgments)
    assert plain.pairwise is not None and not plain.pairwise.systems_named
    assert [(s.name, s.wins) for s in plain.pairwise.systems] == [("2", 2), ("1", 1)]

    named = compute_result(judgments, [pair(str(i), None) for i in (1, 2, 3)], systems=["old", "new"])
    assert named.pairwise is not None and named.pairwise.systems_named
    assert [(s.name, s.wins) for s in named.pairwise.systems] == [("new", 2), ("old", 1)]
    with pytest.raises(ConfigError, match="names 3 systems, but instance '1' has 2 candidates"):
        compute_result(judgments, [pair("1", None)], systems=["a", "b", "c"])


def test_listwise_judgments_count_every_pair_of_candidates_and_three_systems_get_a_matrix() -> None:
    trio = Instance(id="1", query="q", candidates=("x", "y", "z"), systems=("A", "B", "C"))
    judged = Judgment(id="1", method="m", status="ok", verdict=2, scores=[5.0, 9.0, 5.0], ranks=[2, 1, 2])
    result = compute_result([judged], [trio], options=_few_resamples())

    assert [(s.name, s.wins, s.ties, s.losses) for s in result.pairwise.systems] == [  # type: ignore[union-attr]
        ("B", 2, 0, 0),
        ("A", 0, 1, 1),
        ("C", 0, 1, 1),
    ]
    matrix = {(m.system, m.opponent): (m.wins, m.ties, m.losses) for m in result.pairwise.matrix}  # type: ignore[union-attr]
    assert matrix == {
        ("A", "B"): (0, 0, 1),
        ("A", "C"): (0, 1, 0),
        ("B", "A"): (1, 0, 0),
        ("B", "C"): (1, 0, 0),
        ("C", "A"): (0, 1, 0),
        ("C", "B"): (0, 0, 1),
    }


def test_swap_consistency_counts_the_judgments_judged_in_both_orders() -> None:
    judgments = [ok(str(i), 2, consistent=True) for i in range(9)] + [ok("9", 0, consistent=False)]
    result = compute_result(judgments, [pair(str(i)) for i in range(10)])

    consistency = result.pairwise.consistency  # type: ignore[union-attr]
    assert consistency is not None
    assert (consistency.agreed, consistency.disagreed, consistency.rate.n) == (9, 1, 10)
    assert consistency.rate.ci == pytest.approx(wilson(9, 10))
    assert compute_result([ok("1", 1)]).pairwise.consistency is None  # type: ignore[union-attr]


def test_pointwise_means_have_t_intervals_per_system() -> None:
    scores = {"A": [3.0, 4.0, 5.0, 4.0], "B": [2.0, 2.0, 3.0]}
    instances, judgments = [], []
    for name, values in scores.items():
        for k, value in enumerate(values):
            id_ = f"{name}{k}"
            instances.append(Instance(id=id_, query="q", candidates=("out",), systems=(name,)))
            judgments.append(Judgment(id=id_, method="m", status="ok", scores=[value]))
    judgments.append(failed("B9"))
    instances.append(Instance(id="B9", query="q", candidates=("out",), systems=("B",)))
    result = compute_result(judgments, instances)

    assert result.pairwise is None and result.pointwise is not None
    by_name = {s.name: s for s in result.pointwise.systems}
    assert [s.name for s in result.pointwise.systems] == ["A", "B"]
    a = by_name["A"].score
    expected = stats.t.interval(0.95, 3, loc=4.0, scale=stats.sem(scores["A"]))
    assert (a.value, a.n) == (4.0, 4)
    assert a.ci == pytest.approx(expected)
    assert (by_name["B"].score.n, by_name["B"].failed) == (3, 1)


def test_the_builder_matches_judgments_to_noted_instances_by_id_and_forgets_them() -> None:
    builder = ResultBuilder()
    items = list(builder.noting([pair("a", ("P", "Q")), pair("b", ("Q", "P"))]))
    assert len(items) == 2
    builder.add(ok("b", 2))
    builder.add(ok("a", 1))
    result = builder.result()
    assert [(s.name, s.wins) for s in result.pairwise.systems] == [("P", 2), ("Q", 0)]  # type: ignore[union-attr]
    assert not builder._pending


def test_a_result_round_trips_through_json() -> None:
    result = compute_result([ok("1", 2), failed("2")], [pair("1"), pair("2")])
    assert JudgeResult.model_validate_json(result.model_dump_json()) == result


def _few_resamples() -> ResultOptions:
    return ResultOptions(n_resamples=20)


def test_under_swap_a_pair_the_orders_judged_differently_is_a_tie() -> None:
    trio = Instance(id="1", query="q", candidates=("x", "y", "z"), systems=("A", "B", "C"))
    orders = [
        OrderResult(order=[1, 2, 3], verdict=1, scores=[9.0, 5.0, 1.0]),
        OrderResult(order=[2, 3, 1], verdict=2, scores=[5.0, 9.0, 1.0]),
        OrderResult(order=[3, 1, 2], verdict=1, scores=[9.0, 5.0, 1.0]),
    ]
    judged = Judgment(
        id="1",
        method="m",
        status="ok",
        verdict=0,
        scores=[23 / 3, 19 / 3, 1.0],
        consistent=False,
        orders=orders,
    )
    result = compute_result([judged], [trio], options=_few_resamples())

    assert result.pairwise is not None
    matrix = {(m.system, m.opponent): (m.wins, m.ties, m.losses) for m in result.pairwise.matrix}
    assert matrix[("A", "B")] == (0, 1, 0)  # the orders disagreed: a tie, as the verdict is
    assert matrix[("A", "C")] == (1, 0, 0)
    assert matrix[("B", "C")] == (1, 0, 0)


def test_python_users_get_the_result_of_a_judge_run_from_its_judgments_and_instances() -> None:
    rule = RuleJudge(quality={f"b{i}": 8 if i < 3 else 2 for i in range(4)} | {f"a{i}": 5 for i in range(4)})
    llm = LLM(ScriptedProvider(rule.for_provider()), ModelSpec("scripted", "j"))
    pairs = [
        Instance(id=str(i), query="q", candidates=(f"a{i}", f"b{i}"), systems=("A", "B")) for i in range(4)
    ]
    judgments = judge(pairs, Direct(), llm, options=JudgeOptions(swap=True))
    result = compute_result(judgments, pairs)

    b = system(result, "B")
    assert (b.wins, b.ties, b.losses, b.win_rate.value) == (3, 0, 1, 0.75)
    assert result.pairwise is not None and result.pairwise.consistency is not None
    assert result.pairwise.consistency.agreed == 4
