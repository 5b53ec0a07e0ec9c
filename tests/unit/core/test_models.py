import pytest
from pydantic import ValidationError

from faceteval.core import Criterion, Instance, Judgment, Usage


def test_instance_accepts_canonical_record() -> None:
    instance = Instance.model_validate(
        {
            "id": 7,
            "query": "2+2?",
            "candidates": ["4", "5"],
            "criteria": ["accuracy", {"name": "clarity", "description": "easy to follow"}],
            "label": 1,
        }
    )
    assert instance.id == "7"
    assert instance.n_candidates == 2
    assert [c.describe() for c in instance.criteria or ()] == ["accuracy", "clarity: easy to follow"]


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"id": "a", "query": "q", "candidates": []}, "candidates"),
        ({"id": "a", "query": "q", "candidates": ["x", "y"], "label": 3}, "label"),
        ({"id": "a", "query": "q", "candidates": ["x"], "label": -1}, "label"),
        ({"id": "a", "query": "q", "candidates": ["x"], "model_a": "gpt"}, "model_a"),
        ({"id": "a", "candidates": ["x"]}, "query"),
        ({"id": "a", "query": "q", "candidates": ["x"], "criteria": []}, "criteria"),
        ({"id": "a", "query": "q", "candidates": ["x"], "criteria": [" "]}, "criteria.0.name"),
    ],
)
def test_instance_rejects_bad_fields(record: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        Instance.model_validate(record)
    assert ".".join(str(p) for p in info.value.errors()[0]["loc"]) == field


def test_permuted_reorders_candidates_and_hides_label() -> None:
    instance = Instance(id="1", query="q", candidates=("a", "b", "c"), label=2)
    shown = instance.permuted((2, 0, 1))
    assert shown.candidates == ("c", "a", "b")
    assert shown.label is None
    assert instance.candidates == ("a", "b", "c")


def test_criterion_tree_leaves_and_scale_check() -> None:
    tree = Criterion(name="quality", children=(Criterion(name="a"), Criterion(name="b", children=("c", "d"))))
    assert [leaf.name for leaf in tree.leaves()] == ["a", "c", "d"]
    with pytest.raises(ValidationError):
        Criterion(name="x", scale=(5, 1))


def test_instance_refuses_a_boolean_human_score() -> None:
    with pytest.raises(ValidationError, match="aspect 'fluency'"):
        Instance(id="1", query="q", candidates=["a"], scores={"coherence": 3, "fluency": True})


@pytest.mark.parametrize("record", [{"weight": True}, {"weight": False}, {"scale": [True, 5]}])
def test_criterion_refuses_a_boolean_for_a_number(record: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="expected a number"):
        Criterion.model_validate({"name": "clarity", **record})
    assert Criterion.model_validate({"name": "clarity", "weight": 1, "scale": [0, 5]}).weight == 1.0


def test_usage_adds_and_unknown_cost_stays_unknown() -> None:
    total = Usage(calls=1, cached_calls=1, input_tokens=10, output_tokens=2, cost_usd=0.5) + Usage(
        calls=2, input_tokens=5, output_tokens=1, cost_usd=0.25
    )
    assert (total.calls, total.cached_calls, total.input_tokens, total.output_tokens) == (3, 1, 15, 3)
    assert total.cost_usd == pytest.approx(0.75)
    assert (total + Usage(cost_usd=None)).cost_usd is None


def test_judgment_round_trips_through_json() -> None:
    judgment = Judgment(id="1", method="dna", status="ok", verdict=1, scores=[7.5, 6.0])
    assert Judgment.model_validate_json(judgment.model_dump_json()) == judgment


def test_the_content_hash_follows_what_a_judge_sees_and_nothing_else() -> None:
    base = Instance(id="q1", query="2+2?", candidates=("4", "5"), label=1)
    same = base.model_copy(update={"id": "other", "label": 2, "category": "math", "metadata": {"k": 1}})
    assert base.content_hash() == same.content_hash() and len(base.content_hash()) == 16
    for change in ({"candidates": ("4", "five")}, {"query": "2+3?"}, {"reference": "4"}, {"task": "t"}):
        assert base.model_copy(update=change).content_hash() != base.content_hash()
    criteria = Instance(id="q1", query="2+2?", candidates=("4", "5"), criteria=["Accuracy"])
    assert criteria.content_hash() != base.content_hash()


def test_systems_name_each_candidate_follow_permutations_and_stay_out_of_the_json_when_not_given() -> None:
    pair = Instance(id="1", query="q", candidates=("x", "y"), systems=("A", "B"))
    assert pair.permuted((1, 0)).systems == ("B", "A")
    assert '"systems":["A","B"]' in pair.model_dump_json()
    plain = Instance(id="1", query="q", candidates=("x", "y"))
    assert "systems" not in plain.model_dump_json()
    assert plain.content_hash() == pair.content_hash()  # a judge never sees them


@pytest.mark.parametrize(
    ("systems", "problem"),
    [
        (["A"], "names 1 system for 2 candidates"),
        (["A", "B", "C"], "names 3 systems for 2 candidates"),
        (["A", "A"], "names the system 'A' twice"),
        (["A", " "], "system 2 has no name"),
    ],
)
def test_systems_must_name_each_candidate_once(systems: list[str], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem) as info:
        Instance.model_validate({"id": "a", "query": "q", "candidates": ["x", "y"], "systems": systems})
    assert info.value.errors()[0]["loc"] == ("systems",)
