"""Criterion scores read from judgments, and training on recorded scores with no LLM."""

from __future__ import annotations

from faceteval.core import FacetScore, Judgment
from faceteval.workflows.hdeval._features import recorded_scorer, scores_from_judgments
from faceteval.workflows.hdeval._train import TrainConfig, train
from tests.support import hdeval_synthetic as synthetic


def judged(instance_id: str, facets: dict[str, float | None]) -> Judgment:
    return Judgment(
        id=instance_id,
        method="hdeval",
        status="ok",
        facets=[FacetScore(name=name, scores=[value]) for name, value in facets.items()],
    )


def test_facets_are_matched_to_node_ids_case_blind() -> None:
    judgments = [judged("a", {"COHERENCE": 4, "coherence / Logical flow": 2.5, "Fluency": 5})]
    result = scores_from_judgments(judgments, ["Coherence", "coherence / logical Flow"])
    assert result.scores == {"a": {"Coherence": 4.0, "coherence / logical Flow": 2.5}}  # the ids' spelling
    assert result.failed == {}


def test_failed_judgments_are_listed_with_their_reason_and_never_scored() -> None:
    judgments = [
        judged("ok", {"coherence": 3}),
        Judgment(id="bad", method="hdeval", status="parse_error", error="no score in the reply"),
        Judgment(id="down", method="hdeval", status="error"),
        # A failed judgment with facets left over is still not scored.
        Judgment(
            id="partial",
            method="hdeval",
            status="error",
            error="timeout",
            facets=[FacetScore(name="coherence", scores=[5])],
        ),
    ]
    result = scores_from_judgments(judgments, ["coherence"])
    assert result.failed == {
        "bad": "parse_error: no score in the reply",
        "down": "error: no reason recorded",
        "partial": "error: timeout",
    }
    assert result.scores == {"ok": {"coherence": 3.0}}


def test_facets_without_a_score_or_not_asked_for_are_skipped() -> None:
    judgments = [
        judged("a", {"coherence": None, "fluency": 2}),
        Judgment(id="b", method="hdeval", status="ok", facets=[FacetScore(name="coherence", scores=[])]),
        judged("c", {"relevance": 1}),
    ]
    result = scores_from_judgments(judgments, ["coherence", "fluency"])
    assert result.scores == {"a": {"fluency": 2.0}, "b": {}, "c": {}}
    assert result.failed == {}


def test_the_recorded_scorer_answers_for_the_nodes_it_is_asked_about() -> None:
    judgments = iter([judged("a", {"coherence": 4, "fluency": 2}), judged("b", {"coherence": 1})])
    scorer = recorded_scorer(judgments)  # a one-shot iterable is kept for every layer
    tree = synthetic.tree()
    first = scorer(tree.layer(1)[:1], 1)
    both = scorer(tree.layer(1), 1)
    assert first.scores == {"a": {"coherence": 4.0}, "b": {"coherence": 1.0}}
    assert both.scores == {"a": {"coherence": 4.0, "fluency": 2.0}, "b": {"coherence": 1.0}}


def test_training_on_recorded_judgments() -> None:
    instances = synthetic.instances(40)
    judgments = [
        judged(
            i.id, {name: synthetic.criterion_score(i.id, name) for name in ("Coherence", "FLOW", "grammar")}
        )
        for i in instances
    ]
    judgments[3] = Judgment(id="i3", method="hdeval", status="parse_error", error="unreadable")
    judgments[4] = judged("i4", {"coherence": 2, "grammar": 3})  # no flow
    tree = synthetic.tree(("coherence", "flow", "grammar"))
    config = TrainConfig(targets=("coherence", "fluency"), layers=1, aggregator="lr", group_by="doc")
    trained = train(tree, instances, config, recorded_scorer(judgments))
    assert trained.features == ["coherence", "flow", "grammar"]
    assert trained.failed == {"i3": "parse_error: unreadable", "i4": "no score for flow"}
    assert trained.layers[0].failed == 2
    assert len(trained.ids) == 38
    row = trained.ids.index("i7")
    assert trained.x[row].tolist() == [
        synthetic.criterion_score("i7", n) for n in ("coherence", "flow", "grammar")
    ]
    assert trained.y[row].tolist() == [synthetic.human("i7", "coherence"), synthetic.human("i7", "fluency")]
