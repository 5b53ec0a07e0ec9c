"""Iterative alignment training (Algorithm 1) with a judge and a decomposer by rule: no LLM."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from faceteval.core import Criterion, Instance
from faceteval.errors import FacetevalError
from faceteval.methods.hdeval._tree import CriteriaTree, Node
from faceteval.workflows.hdeval._importance import top_k
from faceteval.workflows.hdeval._train import (
    NodeScores,
    TrainConfig,
    Trained,
    fit,
    initial_tree,
    predict,
    split,
    train,
)
from tests.support import hdeval_synthetic as synthetic

TARGETS = ("coherence", "fluency")
Run = tuple[Trained, synthetic.Judge, synthetic.Decomposer]


def config(**changes: object) -> TrainConfig:
    options: dict[str, object] = {
        "targets": TARGETS,
        "layers": 3,
        "children": 2,
        "expand": 2,
        "aggregator": "lr",
        "group_by": "doc",
    }
    return TrainConfig(**{**options, **changes})  # type: ignore[arg-type]


def judge_for(instances: list[Instance], **options: object) -> synthetic.Judge:
    return synthetic.Judge(ids=[i.id for i in instances], **options)  # type: ignore[arg-type]


# -- TrainConfig ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"targets": ()}, "at least one target"),
        ({"layers": 0}, "at least 1"),
        ({"children": 0}, "at least 1"),
        ({"expand": 0}, "at least 1"),
        ({"train_frac": 0.0}, "between 0 and 1, got 0.0"),
        ({"train_frac": 1.0}, "between 0 and 1, got 1.0"),
        ({"train_frac": -0.5}, "between 0 and 1"),
        ({"aggregator": "LR"}, "unknown aggregator 'LR'; choose one of lr, dt, rf, mlp, mean"),
        ({"importance": "gini"}, "unknown importance 'gini'; choose permutation or shap"),
    ],
)
def test_config_rejects_impossible_settings(changes: dict[str, object], message: str) -> None:
    with pytest.raises(FacetevalError, match=message):
        config(**changes)


def test_config_defaults_follow_the_paper() -> None:
    made = TrainConfig(targets=("coherence",))
    assert (made.layers, made.children, made.expand, made.aggregator) == (3, 4, 4, "mlp")
    assert made.importance == "permutation" and made.group_by is None


# -- split ------------------------------------------------------------------------------------------


def test_split_keeps_every_group_on_one_side() -> None:
    instances = synthetic.instances(64)
    chosen = split(instances, 0.5, seed=3, group_by="doc")
    sides: dict[str, set[bool]] = defaultdict(set)
    for instance in instances:
        sides[instance.metadata["doc"]].add(instance.id in chosen)
    assert all(len(side) == 1 for side in sides.values())
    assert {True} in sides.values() and {False} in sides.values()
    assert len(chosen) == 32  # 16 documents of 4: exactly half of the groups


@pytest.mark.parametrize(("fraction", "size"), [(0.25, 10), (0.5, 20), (0.8, 32)])
def test_split_without_groups_takes_the_fraction_of_rows(fraction: float, size: int) -> None:
    instances = synthetic.instances(40)
    chosen = split(instances, fraction, seed=0, group_by=None)
    assert len(chosen) == size
    assert chosen <= {i.id for i in instances}


def test_split_overshoots_by_less_than_a_group() -> None:
    instances = synthetic.instances(40)  # 10 documents of 4
    chosen = split(instances, 0.3, seed=1, group_by="doc")  # 12 rows wanted: 3 whole documents
    assert len(chosen) == 12
    chosen = split(instances, 0.35, seed=1, group_by="doc")  # 14 wanted: a 4th document is needed
    assert len(chosen) == 16


def test_split_is_seeded() -> None:
    instances = synthetic.instances(64)
    assert split(instances, 0.5, 7, "doc") == split(instances, 0.5, 7, "doc")
    assert len({frozenset(split(instances, 0.5, seed, "doc")) for seed in range(6)}) > 1


def test_split_refuses_to_leave_nothing_to_test_on() -> None:
    instances = synthetic.instances(8)  # two documents
    with pytest.raises(FacetevalError, match="nothing is left to test on"):
        split(instances, 0.6, seed=0, group_by="doc")


# -- train: Algorithm 1 -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained_run() -> Run:
    instances = synthetic.instances(64)
    judge, decomposer = judge_for(instances), synthetic.Decomposer()
    trained = train(synthetic.tree(), instances, config(), judge, decomposer)
    return trained, judge, decomposer


def test_layer_one_is_the_targets_and_layer_two_decomposes_every_one(trained_run: Run) -> None:
    trained, judge, decomposer = trained_run
    assert [layer.layer for layer in trained.layers] == [1, 2, 3]
    assert trained.layers[0].nodes == ["coherence", "fluency"]
    assert trained.layers[0].selected == ["coherence", "fluency"]
    assert decomposer.calls[0] == (["coherence", "fluency"], 2)
    assert trained.layers[1].nodes == [
        "coherence / flow",
        "coherence / structure",
        "fluency / grammar",
        "fluency / wording",
    ]
    assert [layer for layer, _ in judge.calls] == [1, 2, 3]
    assert judge.calls[1][1] == trained.layers[1].nodes  # each layer scores only its own nodes


def test_layer_three_decomposes_the_most_important_of_layer_two(trained_run: Run) -> None:
    trained, _, decomposer = trained_run
    second = trained.layers[1]
    ranked = top_k(second.nodes, np.array([second.importance[n] for n in second.nodes]), 2)
    assert set(second.selected) == set(ranked) == synthetic.INFORMATIVE_LAYER_2
    assert decomposer.calls[1] == (second.selected, 2)
    assert len(decomposer.calls) == 2
    assert set(trained.layers[2].nodes) == {
        "coherence / flow / transitions",
        "coherence / flow / ordering",
        "fluency / grammar / agreement",
        "fluency / grammar / tense",
    }
    assert trained.layers[2].selected == []  # the last layer is not decomposed
    assert trained.expanded == {"coherence", "fluency", *synthetic.INFORMATIVE_LAYER_2}


def test_expand_is_the_number_decomposed_at_the_next_layer() -> None:
    instances = synthetic.instances(64)
    decomposer = synthetic.Decomposer()
    trained = train(synthetic.tree(), instances, config(expand=1), judge_for(instances), decomposer)
    second = trained.layers[1]
    best = max(second.importance, key=second.importance.__getitem__)
    assert second.selected == [best] and best in synthetic.INFORMATIVE_LAYER_2
    assert decomposer.calls[1] == ([best], 2)
    assert [n.rsplit(" / ", 1)[0] for n in trained.layers[2].nodes] == [best, best]


def test_the_finalized_aggregator_reads_every_layer(trained_run: Run) -> None:
    trained, _, _ = trained_run
    assert trained.features == [n for layer in trained.layers for n in layer.nodes]
    assert trained.x.shape == (64, 10) and trained.y.shape == (64, 2)
    assert trained.importance.shape == (2, 10)
    assert isinstance(trained.aggregator, LinearRegression)
    column = trained.features.index("coherence / flow / transitions")
    assert trained.x[:, column].tolist() == [synthetic.latent(i, "transitions") for i in trained.ids]
    np.testing.assert_array_equal(trained.y[:, 1], [synthetic.human(i, "fluency") for i in trained.ids])
    # The finalized aggregator was fitted on the training rows only.
    refit = LinearRegression().fit(trained.x[trained.train], trained.y[trained.train])
    np.testing.assert_allclose(trained.aggregator.coef_, refit.coef_, atol=1e-9)
    assert trained.metadata["i5"] == {"doc": "d1", "system": "s1"}


def test_the_split_keeps_documents_whole(trained_run: Run) -> None:
    trained, _, _ = trained_run
    docs: dict[str, set[bool]] = defaultdict(set)
    for instance_id, in_train in zip(trained.ids, trained.train, strict=True):
        docs[trained.metadata[instance_id]["doc"]].add(bool(in_train))
    assert all(len(side) == 1 for side in docs.values())
    assert int(trained.train.sum()) == 32


def test_training_is_reproducible() -> None:
    instances = synthetic.instances(48)
    runs = [
        train(synthetic.tree(), instances, config(), judge_for(instances), synthetic.Decomposer())
        for _ in range(2)
    ]
    assert runs[0].features == runs[1].features
    np.testing.assert_array_equal(runs[0].train, runs[1].train)
    np.testing.assert_array_equal(runs[0].importance, runs[1].importance)


def test_criteria_the_starting_tree_decomposes_are_kept() -> None:
    edited = CriteriaTree(
        task=synthetic.TASK,
        criteria=(
            Criterion(
                name="coherence",
                children=(
                    Criterion(name="flow", children=(Criterion(name="transitions"),)),
                    Criterion(name="structure"),
                ),
            ),
            Criterion(name="fluency"),
        ),
    )
    instances = synthetic.instances(64)
    decomposer = synthetic.Decomposer()
    trained = train(edited, instances, config(), judge_for(instances), decomposer)
    # Layer 2: only fluency is new; layer 3: flow keeps its one hand-written child.
    assert decomposer.calls[0] == (["fluency"], 2)
    assert trained.tree.find("coherence / flow").criterion.children == (Criterion(name="transitions"),)
    assert "coherence / flow" in trained.layers[1].selected
    assert all("coherence / flow" not in ids for ids, _ in decomposer.calls[1:])
    assert trained.layers[2].nodes[0] == "coherence / flow / transitions"
    assert "coherence / flow / ordering" not in trained.features


def test_no_decomposition_is_asked_for_when_the_tree_already_has_every_layer() -> None:
    full = synthetic.Decomposer()(synthetic.tree(), ["coherence", "fluency"], 2)
    instances = synthetic.instances(32)
    asked = synthetic.Decomposer()
    trained = train(full, instances, config(layers=2), judge_for(instances), asked)
    assert asked.calls == []
    assert len(trained.features) == 6


def test_outputs_that_could_not_be_scored_are_left_out_and_counted() -> None:
    instances = synthetic.instances(64)
    judge = judge_for(instances, fail={2: {"i3", "i40"}}, unreadable={3: {"i7"}})
    trained = train(synthetic.tree(), instances, config(), judge, synthetic.Decomposer())
    assert set(trained.failed) == {"i3", "i40", "i7"}
    assert trained.failed["i3"] == "parse_error: no score in the reply"
    assert trained.failed["i7"].startswith("no score for coherence / flow / ")
    assert not {"i3", "i40", "i7"} & set(trained.ids)
    assert len(trained.ids) == len(trained.x) == 61
    assert np.isfinite(trained.x).all()
    assert [layer.failed for layer in trained.layers] == [0, 2, 1]


def test_a_missing_node_score_leaves_the_output_out() -> None:
    instances = synthetic.instances(32)
    base = judge_for(instances)

    def forgetful(nodes: Sequence[Node], layer: int) -> NodeScores:
        result = base(nodes, layer)
        scores = {k: dict(v) for k, v in result.scores.items()}
        del scores["i2"][nodes[-1].id]
        del scores["i9"]
        return NodeScores(scores=scores, failed=result.failed)

    trained = train(synthetic.tree(), instances, config(layers=1), forgetful)
    assert trained.failed == {"i2": "no score for fluency", "i9": "no score for coherence, fluency"}
    assert trained.layers[0].failed == 2
    assert len(trained.ids) == 30


def test_outputs_without_every_target_score_are_not_used() -> None:
    instances = synthetic.instances(32)
    partial = [
        i.model_copy(update={"scores": {"coherence": 1.0}}) if i.id in {"i0", "i1"} else i for i in instances
    ]
    trained = train(synthetic.tree(), partial, config(layers=1), judge_for(partial))
    assert "i0" not in trained.ids and "i1" not in trained.ids
    assert trained.failed == {}
    assert len(trained.ids) == 30


def test_train_refuses_what_it_cannot_do() -> None:
    instances = synthetic.instances(32)
    judge = judge_for(instances)
    with pytest.raises(FacetevalError, match=r"3 instance.*at least 4"):
        train(synthetic.tree(), instances[:3], config(layers=1), judge)
    with pytest.raises(FacetevalError, match="needs an LLM to decompose"):
        train(synthetic.tree(), instances, config(layers=2), judge)
    with pytest.raises(FacetevalError, match="no criteria"):
        train(CriteriaTree(task="t"), instances, config(layers=1), judge)
    everyone = {1: {i.id for i in instances[:28]}}
    with pytest.raises(FacetevalError, match="too few to train and test on"):
        train(synthetic.tree(), instances, config(layers=1), judge_for(instances, fail=everyone))


def test_a_target_people_scored_all_alike_is_refused_before_any_call() -> None:
    instances = [
        i.model_copy(update={"scores": {**(i.scores or {}), "fluency": 3.0}}) for i in synthetic.instances(32)
    ]
    judge = judge_for(instances)
    with pytest.raises(FacetevalError, match=r"every output the same fluency score \(3\), so there"):
        train(synthetic.tree(), instances, config(layers=1), judge)
    assert judge.calls == []
    training = split(instances, 0.5, 0, "doc")
    alike = [
        i.model_copy(update={"scores": {**(i.scores or {}), "fluency": 2.0}}) if i.id in training else i
        for i in instances
    ]
    with pytest.raises(FacetevalError, match=r"all 16 training outputs the same fluency score \(2\).*--seed"):
        train(synthetic.tree(), alike, config(layers=1), judge)
    assert judge.calls == []


def test_the_last_layer_stops_early_when_nothing_is_decomposed() -> None:
    instances = synthetic.instances(32)

    def barren(current: CriteriaTree, node_ids: Sequence[str], k: int) -> CriteriaTree:
        return current

    trained = train(synthetic.tree(), instances, config(), judge_for(instances), barren)
    assert [layer.layer for layer in trained.layers] == [1]
    assert trained.layers[0].selected == []
    assert trained.features == ["coherence", "fluency"]


# -- fit / predict ----------------------------------------------------------------------------------


def test_fit_and_predict_shape_one_and_several_targets() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 3))
    y = np.column_stack([x @ [1.0, 2.0, 0.0], x @ [0.0, -1.0, 3.0]])
    both = fit("lr", x, y)
    assert predict(both, x).shape == (30, 2)
    np.testing.assert_allclose(predict(both, x), y, atol=1e-9)
    one = fit("lr", x, y[:, :1])
    assert one.coef_.shape == (3,)  # fitted on a 1-D y, as scikit-learn expects
    assert predict(one, x).shape == (30, 1)
    np.testing.assert_allclose(predict(one, x)[:, 0], y[:, 0], atol=1e-9)
    assert fit("dt", x, y, seed=4).random_state == 4
    with pytest.raises(ValueError, match="unknown aggregator"):
        fit("svm", x, y)


# -- initial_tree -----------------------------------------------------------------------------------


def test_initial_tree_takes_the_benchmark_definitions_case_blind() -> None:
    criteria = [
        Criterion(name="Coherence", description="Well organised."),
        Criterion(name="relevance", description="On topic."),
    ]
    made = initial_tree("summaries", ["coherence", "fluency"], criteria, background="News.")
    assert made.task == "summaries" and made.background == "News."
    assert [c.name for c in made.criteria] == ["coherence", "fluency"]  # the target's own spelling
    assert [c.description for c in made.criteria] == ["Well organised.", ""]
    assert made.depth == 1
    assert initial_tree("t", ["a"]).criteria == (Criterion(name="a"),)
