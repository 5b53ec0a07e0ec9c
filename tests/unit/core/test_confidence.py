"""A verdict's confidence: each component on hand-made judgments, their mean, and the optional field."""

import pytest
from pydantic import ValidationError

from faceteval.core import (
    ConfidenceInputs,
    FacetScore,
    Judgment,
    OrderResult,
    PanelMember,
    confidence,
    confidence_components,
)

SCALE = ConfidenceInputs(scale=(1.0, 10.0))


def ok(**fields: object) -> Judgment:
    return Judgment.model_validate({"id": "1", "method": "m", "status": "ok", **fields})


def test_the_margin_is_the_winners_lead_over_the_scale() -> None:
    assert confidence_components(ok(verdict=2, scores=[4.0, 7.0]), SCALE) == {"margin": pytest.approx(3 / 9)}
    # three candidates: the lead over the best other one
    assert confidence(ok(verdict=3, scores=[2.0, 6.0, 10.0]), SCALE) == pytest.approx(4 / 9)
    # a tie verdict is one the scores do not separate
    assert confidence(ok(verdict=0, scores=[5.0, 5.0]), SCALE) == 0.0
    # without a scale there is no margin, and without any evidence no confidence
    assert confidence(ok(verdict=2, scores=[4.0, 7.0])) is None
    # a lead larger than the scale (a score outside it) is clipped to 1
    assert confidence(ok(verdict=1, scores=[20.0, 1.0]), SCALE) == 1.0


def test_facet_agreement_is_the_share_of_facet_weight_agreeing_with_the_verdict() -> None:
    facets = [
        FacetScore(name="accuracy", weight=0.6, scores=[3.0, 8.0]),  # agrees with 2
        FacetScore(name="style", weight=0.3, scores=[9.0, 2.0]),  # disagrees
        FacetScore(name="length", weight=0.1, scores=[5.0, 5.0]),  # a tie: disagrees with 2
        FacetScore(name="unscored", weight=0.5, scores=[None, 5.0]),  # left out
    ]
    assert confidence_components(ok(verdict=2, facets=facets)) == {"facets": pytest.approx(0.6)}
    # a tie verdict is agreed with by the facets that tie
    assert confidence_components(ok(verdict=0, facets=facets)) == {"facets": pytest.approx(0.1)}
    unweighted = [FacetScore(name=n, scores=s) for n, s in (("a", [1.0, 2.0]), ("b", [3.0, 1.0]))]
    assert confidence(ok(verdict=2, facets=unweighted)) == 0.5  # facets without weights count equally


def test_order_agreement_is_the_share_of_orders_giving_the_verdict() -> None:
    agreed = [OrderResult(order=[1, 2], verdict=2), OrderResult(order=[2, 1], verdict=2)]
    split = [OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=2)]
    assert confidence(ok(verdict=2, orders=agreed, consistent=True)) == 1.0
    assert confidence(ok(verdict=0, orders=split, consistent=False)) == 0.0
    rotations = [OrderResult(order=o, verdict=v) for o, v in (([1, 2, 3], 3), ([2, 3, 1], 3), ([3, 1, 2], 1))]
    assert confidence(ok(verdict=3, orders=rotations)) == pytest.approx(2 / 3)
    # a recorded judge that kept only whether its orders agreed (MT-Bench's GPT-4 pair judgments)
    assert confidence(ok(verdict=1, consistent=True)) == 1.0
    assert confidence(ok(verdict=0, consistent=False)) == 0.0
    assert confidence(ok(verdict=1, consistent=False)) is None  # which order gave it is not known


def test_the_confidence_is_the_mean_of_the_components_present() -> None:
    judged = ok(
        verdict=1,
        scores=[8.5, 4.0],
        facets=[FacetScore(name="a", weight=1.0, scores=[9.0, 4.0])],
        orders=[OrderResult(order=[1, 2], verdict=1), OrderResult(order=[2, 1], verdict=0)],
    )
    components = confidence_components(judged, SCALE)
    assert components == {"margin": pytest.approx(0.5), "facets": 1.0, "orders": 0.5}
    assert confidence(judged, SCALE) == pytest.approx(2 / 3)
    # the hooks for what other parts compute: a panel's agreement, the scores' logprob certainty
    with_panel = ConfidenceInputs(scale=(1.0, 10.0), panel=0.25, logprobs=0.75)
    assert confidence_components(judged, with_panel) == components | {"panel": 0.25, "logprobs": 0.75}
    assert confidence(judged, with_panel) == pytest.approx((0.5 + 1.0 + 0.5 + 0.25 + 0.75) / 5)


def test_a_failed_judgment_has_no_confidence() -> None:
    failed = Judgment(id="1", method="m", status="parse_error", error="unreadable")
    assert confidence(failed, ConfidenceInputs(scale=(1, 10), panel=1.0)) is None


def test_the_field_is_optional_bounded_and_left_out_of_the_json_when_absent() -> None:
    older = '{"id": "1", "method": "m", "status": "ok", "verdict": 1}'
    assert Judgment.model_validate_json(older).confidence is None
    assert "confidence" not in Judgment.model_validate_json(older).model_dump_json()
    made = ok(verdict=1, confidence=0.75)
    assert Judgment.model_validate_json(made.model_dump_json()).confidence == 0.75
    with pytest.raises(ValidationError, match="confidence"):
        ok(verdict=1, confidence=1.5)


def test_a_panel_s_confidence_takes_the_share_of_its_members_agreeing() -> None:
    members = [
        PanelMember(judge="a", status="ok", verdict=1),
        PanelMember(judge="b", status="ok", verdict=1),
        PanelMember(judge="c", status="ok", verdict=2),
        PanelMember(judge="d", status="error"),
    ]
    judged = Judgment(id="1", method="m", status="ok", verdict=1, panel=members)
    assert confidence_components(judged) == {"panel": 0.5}
    assert confidence(judged, ConfidenceInputs(panel=0.9)) == 0.9  # a caller's figure wins
