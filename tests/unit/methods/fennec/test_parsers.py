"""Fennec's replies as judges write them: judge results, guidelines, criteria, rewrites."""

from __future__ import annotations

import pytest

from faceteval.errors import ParseError
from faceteval.methods.fennec import (
    FennecCriteriaParser,
    GuidelineParser,
    JudgeResultParser,
    RewriteParser,
)

PAIR = JudgeResultParser(["Response A", "Response B"])
SINGLE = JudgeResultParser(["Response"])

TABLE_11 = """Response A Score: 1
Explanation: Response A does not meet the criteria of the evaluation as it consists of incorrect information \
and does not include any details about the book's plot or characters.
Response B Score: 4
Explanation: Response B provides a fairly accurate summary of the key events and characters in The Great \
Gatsby. The AI could have included more context to secure a score of 5.
Comparison: Response B is much more competent, providing a concrete summary of The Great Gatsby."""


def test_the_papers_worked_example_is_read_in_full() -> None:
    judged = PAIR.parse(TABLE_11)
    assert judged.values == (1.0, 4.0)
    assert judged.explanations[0].startswith("Response A does not meet the criteria")
    assert judged.explanations[1].endswith("to secure a score of 5.")  # a number inside is not a score
    assert (
        judged.comparison
        == "Response B is much more competent, providing a concrete summary of The Great Gatsby."
    )


@pytest.mark.parametrize(
    ("reply", "values"),
    [
        ("**Response A Score:** 3\nExplanation: ok\n**Response B Score:** 5\nExplanation: fine", (3.0, 5.0)),
        ("Response A Score: 4/5\nExplanation: x\nResponse B Score: 2/5\nExplanation: y", (4.0, 2.0)),
        ("Score for Response A: 2\nok\nScore for Response B: 3\nfine", (2.0, 3.0)),
        ("Response A: 5\nExplanation: x\nResponse B: Score 1\nExplanation: y", (5.0, 1.0)),
        ("### Response A Score: 3.5\nhalf\n### Response B Score: 3\nless", (3.5, 3.0)),
        (
            "[Judge Result]:\nResponse B Score: 2\nExplanation: y\nResponse A Score: 4\nExplanation: x",
            (4.0, 2.0),
        ),
    ],
)
def test_common_variants_of_the_format(reply: str, values: tuple[float, float]) -> None:
    assert PAIR.parse(reply).values == values


def test_explanations_belong_to_their_response_even_when_listed_out_of_order() -> None:
    judged = PAIR.parse(
        "Response B Score: 2\nExplanation: about B\nResponse A Score: 4\nExplanation: about A"
    )
    assert judged.explanations == ("about A", "about B")
    assert judged.comparison is None


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("Response A Score: 4\nExplanation: only one", "no score for Response B"),
        ("Response A Score: 7\nResponse B Score: 3", "the score of Response A is 7, outside 1-5"),
        ("Response A Score: 0\nResponse B Score: 3", "the score of Response A is 0, outside 1-5"),
        ("I'm sorry, but I can't evaluate these responses.", "the reply is a refusal"),
        ("Both responses are decent; A is a bit better.", "no score for Response A"),
        ("", "the reply is empty"),
        (
            "Response A Score: 4\nExplanation: The answer is thorough and",
            "no score for Response B",
        ),  # cut off
    ],
)
def test_what_cannot_be_read_is_a_problem_to_reask(reply: str, problem: str) -> None:
    with pytest.raises(ParseError) as caught:
        PAIR.parse(reply)
    assert caught.value.problem.startswith(problem)
    assert caught.value.raw == reply


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (
            "Response A Score: 4/10\nExplanation: Mostly accurate, but it misdates the novel.\n"
            "Response B Score: 2/10\nExplanation: It confuses Gatsby with Nick.\n"
            "Comparison: A is more accurate.",
            'the score of Response A ("4/10") is given out of 10; it must be on a 1-5 scale',
        ),
        (
            "**Response A Score:** 4 / 10\n**Explanation:** Covers the plot.\n"
            "**Response B Score:** 2 / 10\n**Explanation:** Thin.",
            'the score of Response A ("4 / 10") is given out of 10; it must be on a 1-5 scale',
        ),
        (
            "Response A Score: 4 out of 10\nExplanation: Decent summary.\n"
            "Response B Score: 2 out of 10\nExplanation: Misses the ending.",
            'the score of Response A ("4 out of 10") is given out of 10; it must be on a 1-5 scale',
        ),
        (
            "Response A Score: 5\nExplanation: Complete.\n"
            "Response B Score: 3 (out of 10)\nExplanation: Partial.",
            'the score of Response B ("3 (out of 10)") is given out of 10; it must be on a 1-5 scale',
        ),
        (
            "### Score for Response A: 75/100\nGood.\n### Score for Response B: 40/100\nWeak.",
            'the score of Response A ("75/100") is given out of 100; it must be on a 1-5 scale',
        ),
        (
            "Response A Score: 2-5\nExplanation: Depending on how strictly accuracy is read.\n"
            "Response B Score: 3\nExplanation: Fine.",
            'the score of Response A ("2-5") gives a range, not one score',
        ),
        (
            "Response A Score: 2 to 5\nExplanation: Hard to say.\nResponse B Score: 3\nExplanation: Fine.",
            'the score of Response A ("2 to 5") gives a range, not one score',
        ),
        (
            "Response A Score: 4\nExplanation: Good.\nResponse B Score: 2–5\nExplanation: It varies.",
            'the score of Response B ("2–5") gives a range, not one score',
        ),
        (
            "Response A Score: 3.5 - 4.5\nExplanation: Between very and fairly.\nResponse B Score: 2",
            'the score of Response A ("3.5 - 4.5") gives a range, not one score',
        ),
        (
            "Response A Score: 4 or 5\nExplanation: Nearly complete.\nResponse B Score: 2",
            'the score of Response A ("4 or 5") gives a range, not one score',
        ),
        (
            "Response A Score: 3/5-4/5\nExplanation: Borderline.\nResponse B Score: 2/5",
            'the score of Response A ("3/5-4/5") gives a range, not one score',
        ),
    ],
)
def test_a_score_out_of_another_maximum_or_a_range_is_never_read_as_a_score(reply: str, problem: str) -> None:
    with pytest.raises(ParseError) as caught:
        PAIR.parse(reply)
    assert caught.value.problem == problem
    assert caught.value.raw == reply


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("Response Score: 8/10\nExplanation: Clear and complete.", "is given out of 10"),
        ("Response Score: 4 out of 10\nExplanation: Adequate.", "is given out of 10"),
        ("**Response Score:** 3–4\n**Explanation:** Mostly clear.", "gives a range"),
    ],
)
def test_single_eval_scores_out_of_another_maximum_or_ranges_are_problems(reply: str, problem: str) -> None:
    with pytest.raises(ParseError, match=problem):
        SINGLE.parse(reply)


@pytest.mark.parametrize(
    ("reply", "values", "explanations"),
    [
        (
            "Response A Score: 4 out of 5\nExplanation: Good.\n"
            "Response B Score: 2 (out of 5)\nExplanation: Thin.",
            (4.0, 2.0),
            ("Good.", "Thin."),
        ),
        (
            "Response A Score: 4 - it covers the plot well.\nResponse B Score: 2 – too short.",
            (4.0, 2.0),
            ("- it covers the plot well.", "– too short."),
        ),
        (
            "Response A Score: 4\nExplanation:\n- 3 of the 4 main characters are named.\n"
            "Response B Score: 2\n- 1 to 2 key events are missing.",
            (4.0, 2.0),
            ("- 3 of the 4 main characters are named.", "- 1 to 2 key events are missing."),
        ),
        (
            "Response A Score: 4.5/5\nExplanation: Nearly perfect.\n"
            "Response B Score: 2/5\nExplanation: Weak.",
            (4.5, 2.0),
            ("Nearly perfect.", "Weak."),
        ),
        (  # a dash and a number after the score, but no range: it falls, or follows a denominator
            "Response A Score: 4 - 2 minor errors aside, it is right.\n"
            "Response B Score: 3/5 - 1 factual error.",
            (4.0, 3.0),
            ("- 2 minor errors aside, it is right.", "- 1 factual error."),
        ),
    ],
)
def test_scores_out_of_five_and_numbers_in_the_explanation_are_still_read(
    reply: str, values: tuple[float, float], explanations: tuple[str, str]
) -> None:
    judged = PAIR.parse(reply)
    assert judged.values == values
    assert judged.explanations == explanations


def test_single_eval_reply() -> None:
    judged = SINGLE.parse("Response Score: 2\nExplanation: It misses the plot.")
    assert judged.values == (2.0,) and judged.explanations == ("It misses the plot.",)
    with pytest.raises(ParseError):
        SINGLE.parse("Explanation: It misses the plot.")


def test_examples_and_instructions_are_readable_and_name_every_label() -> None:
    for parser in (PAIR, SINGLE, JudgeResultParser(["Response A", "Response B", "Response C"])):
        assert len(parser.parse(parser.example()).values) == len(parser.labels)
        assert all(label in parser.instructions for label in parser.labels)


def test_guidelines_must_describe_every_score() -> None:
    parser = GuidelineParser()
    guideline = (
        "[Scoring Guideline]:\n1. Not at all: wrong.\n2. Slightly.\n3. Fairly.\n4. Very.\n5. Extremely."
    )
    assert parser.parse(guideline).startswith("1. Not at all")
    with pytest.raises(ParseError, match="does not describe score 3, 4"):
        parser.parse("1. bad\n2. poor\n5. great")
    with pytest.raises(ParseError, match="refusal"):
        parser.parse("I cannot help with that.")
    assert parser.parse(parser.example()) == parser.example()


def test_fennec_criteria_need_the_asked_count_and_are_name_plus_description() -> None:
    parser = FennecCriteriaParser(2)
    criteria = parser.parse(
        "1. **Accuracy**: Evaluates if the summary is correct.\n2. Coherence: flows well."
    )
    assert [(c.name, c.description) for c in criteria] == [
        ("Accuracy", "Evaluates if the summary is correct."),
        ("Coherence", "flows well."),
    ]
    with pytest.raises(ParseError, match="expected 2 criteria but found 1"):
        parser.parse("1. Accuracy: correct.")
    with pytest.raises(ParseError, match="refusal"):
        parser.parse("Sorry, I can't do that.")
    assert "Name: what it evaluates" in parser.instructions
    assert len(parser.parse(parser.example())) == 2


def test_rewrites_lose_their_label_and_refusals_are_problems() -> None:
    parser = RewriteParser()
    assert (
        parser.parse("[Modified Response]: The Great Gatsby follows Nick.")
        == "The Great Gatsby follows Nick."
    )
    with pytest.raises(ParseError, match="empty"):
        parser.parse("[Modified Response]:")
    with pytest.raises(ParseError, match="refusal"):
        parser.parse("I'm sorry, I cannot rewrite this.")
