"""A criterion's explanation as its page shows it: headings, score lines (overridden by the annotator's own
score when it differs), and the sentences with the annotator's actions."""

from __future__ import annotations

from faceteval.review import CriterionView, Draft, Part, SentenceView
from faceteval.review._pages import Shown, explained

PARTS = (
    Part("heading", "Response 1", 1),
    Part("sentence", "Clear.", 1),
    Part("score", "Score: 4", 1),
    Part("heading", "Response 2", 2),
    Part("sentence", "Vague.", 2),
    Part("score", "Score: 2", 2),
)


def view(
    draft: Draft, score: float | None = None, scores: tuple[float | None, ...] = (), *added: str
) -> CriterionView:
    sentences = tuple(SentenceView(k, text, text, None) for k, text in enumerate(draft.sentences))
    extra = tuple(SentenceView(None, None, text, "add", action_id=9) for text in added)
    return CriterionView("Clarity", "", (1.0, 5.0), draft, sentences + extra, score, scores=scores)


def lines(shown: list[Shown]) -> list[tuple[str, str, str | None]]:
    return [(s.kind, s.text or (s.sentence.text if s.sentence else "") or "", s.overridden) for s in shown]


def test_a_comparisons_score_line_is_overridden_by_the_annotators_score_of_its_response_alone() -> None:
    draft = Draft("p1", "Clarity", None, sentences=("Clear.", "Vague."), scores=(4, 2), parts=PARTS)
    assert [o for _, _, o in lines(explained(view(draft, None, (None, None))))] == [None] * 6
    shown = lines(explained(view(draft, None, (4, 1), "Added.")))
    assert shown == [
        ("heading", "Response 1", None),
        ("sentence", "Clear.", None),
        ("score", "Score: 4", None),  # the annotator's 4 is the LLM's
        ("heading", "Response 2", None),
        ("sentence", "Vague.", None),
        ("score", "Score: 2", "1"),
        ("sentence", "Added.", None),  # what the annotator added comes last
    ]


def test_a_draft_without_parts_marks_a_sentence_stating_the_score_it_keeps() -> None:
    draft = Draft("o1", "Clarity", 4, sentences=("1. Clear.", "2. Score: 4", '"Rated 5 stars."'))
    assert [o for _, _, o in lines(explained(view(draft, 4)))] == [None, None, None]
    assert [o for _, _, o in lines(explained(view(draft, 2)))] == [None, "2", None]  # a quote states no score
    edited = view(draft, 2)
    mine = SentenceView(1, "2. Score: 4", "Score: 2, too long.", "revise")
    edited = CriterionView("Clarity", "", (1.0, 5.0), draft, (edited.sentences[0], mine), 2)
    assert lines(explained(edited))[1] == ("sentence", "Score: 2, too long.", None)  # their own words
