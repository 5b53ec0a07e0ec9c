"""Bias diagnostics on hand-made judgments: position per order, length and its bins, self-preference."""

from __future__ import annotations

from typing import Any

import pytest

from faceteval.core import Instance, Judgment, OrderResult, TraceEntry
from faceteval.metaeval import Settings, Target, join, summarize


def bias_of(instances: list[Instance], judgments: list[Judgment], **options: Any) -> dict[str, Any]:
    target = Target(name="toy", kind="pairwise", instances=tuple(instances))
    summary = summarize(target, join(instances, judgments), judge="toy", settings=Settings(0), **options)
    return dict(summary["bias"])


def counts(rate: dict[str, Any]) -> tuple[int, int, int]:
    return rate["hits"], rate["n"], rate["excluded"]


def swapped(ident: str, first: int, second: int) -> Judgment:
    return Judgment(
        id=ident,
        method="toy",
        status="ok",
        verdict=first if first == second else 0,
        consistent=first == second,
        orders=[OrderResult(order=[1, 2], verdict=first), OrderResult(order=[2, 1], verdict=second)],
    )


def test_position_counts_the_candidate_shown_first_in_each_order_next_to_the_humans() -> None:
    instances = [
        Instance(id=str(k), query="q", candidates=("a", "b"), label=label)
        for k, label in enumerate((1, 1, 2, 2))
    ]
    # a judge that always picks whatever is shown first, but one tie in the swapped order
    judgments = [swapped("0", 1, 2), swapped("1", 1, 2), swapped("2", 1, 2), swapped("3", 1, 0)]
    position = bias_of(instances, judgments)["position"]
    assert counts(position["1,2"]["judge"]) == (4, 4, 0)
    assert counts(position["1,2"]["human"]) == (2, 4, 0)  # label 1 is the candidate shown first
    assert counts(position["2,1"]["judge"]) == (3, 3, 1)  # the tie prefers neither: left out
    assert position["2,1"]["ties"] == 1
    assert counts(position["2,1"]["human"]) == (2, 4, 0)  # label 2 is the candidate shown first
    assert counts(position["pooled"]["judge"]) == (7, 7, 1)
    assert position["pooled"]["human"]["value"] == 0.5


def test_one_order_is_the_original_and_failed_judgments_are_left_out() -> None:
    instances = [Instance(id=str(k), query="q", candidates=("a", "b"), label=2) for k in range(3)]
    judgments = [
        Judgment(id="0", method="toy", status="ok", verdict=1),
        Judgment(id="1", method="toy", status="ok", verdict=2),
        Judgment(id="2", method="toy", status="error", error="down"),
        # judged in both orders, but only whether they agreed was kept: in no order
        Judgment(id="3", method="toy", status="ok", verdict=1, consistent=True),
    ]
    instances.append(Instance(id="3", query="q", candidates=("a", "b"), label=1))
    position = bias_of(instances, judgments)["position"]
    assert list(position) == ["1,2"]
    assert counts(position["1,2"]["judge"]) == (1, 2, 0)
    assert counts(position["1,2"]["human"]) == (0, 2, 0)


def test_length_counts_the_longer_candidate_and_bins_agreement_by_the_length_gap() -> None:
    # gaps 1, 2, ..., 8 characters; the longer one is candidate 1 in even ids
    instances = [
        Instance(
            id=str(k),
            query="q",
            candidates=("x" * (10 + gap), "x" * 10) if k % 2 == 0 else ("x" * 10, "x" * (10 + gap)),
            label=1,
        )
        for k, gap in enumerate(range(1, 9))
    ] + [Instance(id="even", query="q", candidates=("ab", "cd"), label=1)]  # equally long
    longer = [1 if k % 2 == 0 else 2 for k in range(8)]
    # the judge picks the longer one, except a tie on the last
    verdicts = [*longer[:7], 0, 1]
    judgments = [
        Judgment(id=i.id, method="toy", status="ok", verdict=v)
        for i, v in zip(instances, verdicts, strict=True)
    ]
    length = bias_of(instances, judgments)["length"]
    assert length["unit"] == "characters" and length["equal_length"] == 1
    assert counts(length["judge"]) == (7, 7, 1)
    assert counts(length["human"]) == (4, 8, 0)  # label 1 is the longer one in the even ids
    # quartiles of the gaps 0 (the even pair), 1..8: edges 2, 4, 6, 8
    assert [(b["low"], b["high"]) for b in length["bins"]] == [(0, 2), (3, 4), (5, 6), (7, 8)]
    # agreement with the label 1: verdicts 1 (even pair), then 1, 2 | 1, 2 | 1, 2 | 1, 0
    assert [counts(b["agreement"])[:2] for b in length["bins"]] == [(2, 3), (1, 2), (1, 2), (1, 2)]


def test_self_preference_where_a_candidates_system_is_the_judges_model() -> None:
    instances = [
        Instance(id="0", query="q", candidates=("a", "b"), systems=("gpt-4o-mini", "llama-3"), label=2),
        Instance(id="1", query="q", candidates=("a", "b"), systems=("mistral", "GPT-4o mini"), label=2),
        Instance(id="2", query="q", candidates=("a", "b"), systems=("mistral", "llama-3"), label=1),
        Instance(id="3", query="q", candidates=("a", "b"), label=1),
    ]
    judgments = [
        Judgment(id=str(k), method="toy", status="ok", verdict=v) for k, v in enumerate((1, 2, 1, 1))
    ]
    own = bias_of(instances, judgments, judge_models=["openai:gpt-4o-mini"])["self_preference"]
    assert own["systems"] == ["GPT-4o mini", "gpt-4o-mini"]
    assert counts(own["judge"]) == (2, 2, 0)
    assert counts(own["human"]) == (1, 2, 0)
    # the model each judgment's trace names counts too
    traced = [
        j.model_copy(update={"trace": [TraceEntry(stage="s", messages=[], raw="", model="llama-3")]})
        for j in judgments
    ]
    by_trace = bias_of(instances, traced)["self_preference"]
    assert by_trace["systems"] == ["llama-3"] and counts(by_trace["judge"]) == (0, 2, 0)
    # no system is the judge: no self-preference entry
    assert "self_preference" not in bias_of(instances, judgments, judge_models=["claude"])


def test_no_diagnostics_for_pointwise_targets() -> None:
    scored = [Instance(id=str(k), query="q", candidates=("a",), scores={"overall": k}) for k in range(4)]
    judgments = [Judgment(id=str(k), method="toy", status="ok", scores=[k]) for k in range(4)]
    target = Target(name="toy", kind="pointwise", instances=tuple(scored))
    summary = summarize(target, join(scored, judgments), judge="toy", settings=Settings(0))
    assert "bias" not in summary and "selective_accuracy" not in summary


@pytest.mark.parametrize("resamples", [0, 50])
def test_the_rates_have_intervals_when_asked(resamples: int) -> None:
    instances = [Instance(id=str(k), query="q", candidates=("a", "bb"), label=1 + k % 2) for k in range(6)]
    judgments = [Judgment(id=str(k), method="toy", status="ok", verdict=1 + k % 3 % 2) for k in range(6)]
    target = Target(name="toy", kind="pairwise", instances=tuple(instances))
    summary = summarize(target, join(instances, judgments), judge="toy", settings=Settings(resamples))
    ci = summary["bias"]["length"]["judge"]["ci"]
    assert (ci is None) == (resamples == 0)
