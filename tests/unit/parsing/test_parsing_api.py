"""The public surface of faceteval.parsing and behaviour the corpus does not pin down."""

from __future__ import annotations

import dataclasses
import math

import pytest

import faceteval.parsing
from faceteval.core import Criterion
from faceteval.errors import ParseError
from faceteval.parsing import CriteriaParser, ScoreParser, Scores, WeightParser


def test_all_lists_exactly_the_public_names() -> None:
    public = {name for name in dir(faceteval.parsing) if not name.startswith("_")}
    assert set(faceteval.parsing.__all__) == {
        "NO_LOGPROBS",
        "CriteriaParser",
        "ScoreParser",
        "ScoreReader",
        "Scores",
        "WeightParser",
        "reply_model",
        "text_field",
    }
    assert set(faceteval.parsing.__all__) <= public
    for name in faceteval.parsing.__all__:
        assert getattr(faceteval.parsing, name).__doc__


def test_scores_is_a_frozen_value() -> None:
    scores = Scores((8.0, 6.0), "why")
    with pytest.raises(dataclasses.FrozenInstanceError):
        scores.values = (1.0,)  # type: ignore[misc]
    assert scores == Scores((8.0, 6.0), "why")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"labels": ()},
        {"labels": ("Output",), "scale": (10, 1)},
        {"labels": ("Output",), "position": "middle"},
    ],
    ids=["no-labels", "reversed-scale", "bad-position"],
)
def test_score_parser_rejects_bad_configuration(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the message is checked by reading it, not matched
        ScoreParser(**kwargs)  # type: ignore[arg-type]


def test_other_parsers_reject_bad_configuration() -> None:
    with pytest.raises(ValueError, match="at least one name"):
        WeightParser([])
    with pytest.raises(ValueError, match="count must be at least 1"):
        CriteriaParser(0)


def test_parse_error_keeps_the_raw_reply_and_a_specific_problem() -> None:
    text = "Response 1: 8\nResponse 2:"
    with pytest.raises(ParseError) as caught:
        ScoreParser(("Response 1", "Response 2")).parse(text)
    assert caught.value.raw == text
    assert caught.value.problem.startswith(
        "expected 2 scores from 1 to 10 (Response 1, Response 2) but found 1 (Response 1: 8)"
    )
    assert "stops before Response 2" in caught.value.problem


def test_score_values_are_floats_in_label_order() -> None:
    scores = ScoreParser(("Response 1", "Response 2", "Response 3")).parse(
        "Response 3: 2\nResponse 1: 9\nResponse 2: 5"
    )
    assert scores.values == (9.0, 5.0, 2.0)
    assert all(isinstance(v, float) for v in scores.values)


def test_scores_are_never_clamped_or_rescaled() -> None:
    parser = ScoreParser(("Output",), scale=(1, 5))
    for text, problem in [
        ("Score: 8/10", "Output's score is given out of 10; scores must be on a 1-5 scale"),
        ("Score: 6", "score 6 for Output is outside 1-5"),
        ("Score: 0", "score 0 for Output is outside 1-5"),
    ]:
        with pytest.raises(ParseError) as caught:
            parser.parse(text)
        assert caught.value.problem == problem


def test_negative_scale_is_described_without_a_dash() -> None:
    with pytest.raises(ParseError, match=r"outside -1 to 1"):
        ScoreParser(("Output",), scale=(-1, 1)).parse("Score: 2")


def test_weights_sum_to_one_in_name_order() -> None:
    weights = WeightParser(["Accuracy", "Clarity", "Tone"]).parse("Tone: 10%\nAccuracy: 70%\nClarity: 20%")
    assert weights == pytest.approx((0.7, 0.2, 0.1))
    assert math.isclose(sum(weights), 1.0, abs_tol=1e-12)


def test_criteria_are_criterion_models() -> None:
    criteria = CriteriaParser(2).parse("1. Accuracy: the facts are right\n2. Is it short?")
    assert criteria == (
        Criterion(name="Accuracy", description="the facts are right"),
        Criterion(name="Is it short?"),
    )


NESTED_TOO_DEEP = [
    pytest.param("[" * 3000, id="whole-reply"),
    pytest.param("Sure, here it is: " + "[[" * 2000, id="inline-lists"),
    pytest.param('Weights: {"a": ' * 2000, id="inline-objects"),
    pytest.param("```json\n" + "{" * 3000 + "\n```", id="fenced"),
]


@pytest.mark.parametrize("text", NESTED_TOO_DEEP)
@pytest.mark.parametrize(
    "parser",
    [
        ScoreParser(["Response 1", "Response 2"]),
        WeightParser(["Accuracy", "Helpfulness"]),
        CriteriaParser(3),
    ],
    ids=type,
)
def test_json_nested_deeper_than_the_decoder_goes_is_a_parse_failure(
    parser: ScoreParser | WeightParser | CriteriaParser, text: str
) -> None:
    # A small model stuck repeating brackets until max_tokens: the decoder's RecursionError must not
    # escape (it would end the whole run instead of this one judgment).
    with pytest.raises(ParseError) as caught:
        parser.parse(text)
    assert caught.value.raw == text


def test_values_before_a_nest_too_deep_are_still_read() -> None:
    assert ScoreParser(["Response 1", "Response 2"]).parse("Scores: 8 6\n" + '{"a": ' * 3000).values == (
        8.0,
        6.0,
    )
