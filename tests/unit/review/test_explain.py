"""Explanations split for review: sentences to act on, apart from their headings and score lines.

The rules are checked by hand on the forms judges write, and on CoEval's 3,400 recorded ChatGPT
evaluations (needs FACETEVAL_DATA_DIR, holding ``coeval/``; a missing directory fails the test).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from faceteval.datasets import chatgpt_texts, read_coeval
from faceteval.datasets.internal import TASKS_BY_NAME
from faceteval.review import Part
from faceteval.review.internal import explanation_parts, split_sentences, states_score
from faceteval.workflows.coeval._review import COEVAL_TASKS


def kinds(text: str) -> list[tuple[str, str]]:
    return [(part.kind, part.text) for part in explanation_parts(text)]


def test_coevals_summary_has_headings_a_score_line_and_sentences() -> None:
    text = (
        "Conclusion: The answer is clear. It uses short words.\n"
        "Score: I would assign a score of 4 to this answer.\n"
        'Evidence:\n- "Clouds get heavy." This is simple.\n- "Drops fall."'
    )
    assert kinds(text) == [
        ("heading", "Conclusion"),
        ("sentence", "The answer is clear."),
        ("sentence", "It uses short words."),
        ("score", "Score: I would assign a score of 4 to this answer."),
        ("heading", "Evidence"),
        ("sentence", '"Clouds get heavy." This is simple.'),  # a bullet is one sentence, as CoEval showed it
        ("sentence", '"Drops fall."'),
    ]


def test_numbered_replies_lose_their_numbers_and_keep_the_reason_after_a_score() -> None:
    text = (
        "1. The answer satisfies the premise. It explains dreams simply.\n\n"
        "2. Score: 4 out of 5. It could say more about why.\n\n"
        '3. Evidence:\n- "Our brain makes up stories."\n- "'  # a bullet cut off after its quote mark
    )
    assert kinds(text) == [
        ("sentence", "The answer satisfies the premise."),
        ("sentence", "It explains dreams simply."),
        ("score", "Score: 4 out of 5."),
        ("sentence", "It could say more about why."),
        ("heading", "Evidence"),
        ("sentence", '"Our brain makes up stories."'),
    ]


def test_a_sentence_stating_the_score_is_a_score_line_wherever_it_is() -> None:
    text = "2. I would assign a score of 5 to this answer as it is clear. Nothing is missing."
    assert kinds(text) == [
        ("score", "I would assign a score of 5 to this answer as it is clear."),
        ("sentence", "Nothing is missing."),
    ]
    assert [states_score(s) for s in ("**Rating:** 7/10", "It deserves a 3 out of 5.", "Score: 2")] == [
        True,
        True,
        True,
    ]
    for not_a_score in (
        "The movie is rated PG-13 for violence.",
        "It asks guests to rate their stay on a scale of 1 to 4.",
        "It lists 3 reasons.",
        "The score is not given.",
    ):
        assert not states_score(not_a_score), not_a_score


def test_a_comparisons_response_headings_say_which_candidate_each_part_is_about() -> None:
    text = "Response 1:\nConclusion: Clear.\nScore: 5\n\nResponse 2:\nConclusion: Vague.\nScore: 2"
    parts = explanation_parts(text)
    assert parts == [
        Part("heading", "Response 1", 1),
        Part("heading", "Conclusion", 1),
        Part("sentence", "Clear.", 1),
        Part("score", "Score: 5", 1),
        Part("heading", "Response 2", 2),
        Part("heading", "Conclusion", 2),
        Part("sentence", "Vague.", 2),
        Part("score", "Score: 2", 2),
    ]
    assert kinds("**Assistant 2:** It is shorter.")[:1] == [("heading", "Assistant 2")]


def test_sentences_are_split_at_their_ends_and_nowhere_else() -> None:
    text = (
        'It cites the U.S. rain belt, e.g. the Midwest. Dr. Smith agrees. The quote "It rains. It pours." '
        "is apt! Is it short? Yes: 2.5 lines. There are two issues: 1. It is long. 2. It is wrong."
    )
    assert split_sentences(text) == [
        "It cites the U.S. rain belt, e.g. the Midwest.",
        "Dr. Smith agrees.",
        'The quote "It rains. It pours." is apt!',
        "Is it short?",
        "Yes: 2.5 lines.",
        "There are two issues: 1. It is long.",
        "It is wrong.",
    ]


def test_a_line_ending_in_a_colon_is_a_heading_only_when_it_reads_as_a_label() -> None:
    assert kinds("Final Verdict:") == [("heading", "Final Verdict")]
    assert kinds("Evidence from the article to support the conclusion:") == [
        ("heading", "Evidence from the article to support the conclusion")
    ]
    assert kinds("The answer lists three steps:\n- Mix.") == [
        ("sentence", "The answer lists three steps:"),
        ("sentence", "Mix."),
    ]


def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    assert (Path(value) / "coeval").is_dir(), f"FACETEVAL_DATA_DIR={value} holds no coeval/"
    return Path(value)


@pytest.fixture(scope="module")
def coeval_drafts() -> list[tuple[str, float]]:
    """Every ChatGPT evaluation in CoEval's release, with the score recorded for it."""
    drafts = []
    for task in COEVAL_TASKS:
        spec = TASKS_BY_NAME[f"coeval-{task}"]
        outputs = read_coeval(data_dir(), spec)
        texts = chatgpt_texts(data_dir(), spec, outputs)
        for output in outputs:
            for (_, name, _), text in zip(spec.criteria, texts[output.id], strict=True):
                drafts.append((text, float(output.chatgpt[name])))
    return drafts


def test_every_coeval_evaluation_has_its_score_line_and_no_label_or_number_to_approve(
    coeval_drafts: list[tuple[str, float]],
) -> None:
    assert len(coeval_drafts) == 3400
    stated = unstated = 0
    for text, recorded in coeval_drafts:
        parts = explanation_parts(text)
        scores = [part.text for part in parts if part.kind == "score"]
        assert scores, text
        first = float(re.findall(r"\d+(?:\.\d+)?", scores[0])[0])
        if first == recorded:
            stated += 1
        else:  # CoEval's known misreading: the "1." of a reply opening "Evaluation:" recorded as its score
            assert recorded == 1 and text.lstrip().startswith("Evaluation:"), (recorded, scores)
            unstated += 1
        for part in parts:
            if part.kind == "sentence":
                assert part.text in text  # as written: nothing added, no quote doubled
                assert not re.fullmatch(r"[^.!?]{1,60}:", part.text), part.text  # not a bare label
                assert any(c.isalpha() for c in part.text), part.text  # not a list number
                assert not states_score(part.text), part.text
    assert (stated, unstated) == (3361, 39)


def test_coevals_headings_are_its_labels(coeval_drafts: list[tuple[str, float]]) -> None:
    headings = {
        part.text for text, _ in coeval_drafts for part in explanation_parts(text) if part.kind == "heading"
    }
    assert {"Conclusion", "Evidence", "Evaluation", "Score", "Evidence from the article"} <= headings
    assert all(
        heading.split()[0] in {"Conclusion", "Evidence", "Evaluation", "Score"} for heading in headings
    )
