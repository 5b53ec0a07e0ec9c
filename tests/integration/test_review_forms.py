"""A form refused for what was typed in it is answered with its own page: the error beside the field, the
text kept, nothing stored, and every security property of a page (escaping, the CSP, fresh form tokens).

Forms are taken from the pages a real `faceteval review serve` process renders, and sent as a browser
sends them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from faceteval.review import OVERALL, Candidate, Draft, Item, ReviewStore
from tests.support.review_project import HOSTILE, Form, build_project, page_forms, serve


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The test project with a comparison (``p1``, its second response hostile) beside its outputs."""
    project = tmp_path_factory.mktemp("review")
    store = build_project(project)
    pair = Item(
        "p1", "eli5", "Why do bees buzz?", "", candidates=(Candidate("Wings.", "A"), Candidate(HOSTILE, "B"))
    )
    store.add_items(
        [pair],
        [
            Draft("p1", "Clarity", None, sentences=("Both are short.",), scores=(4, 2)),
            Draft("p1", OVERALL, None, scores=(4, 2), verdict=1),
        ],
    )
    with serve(project) as base:
        yield base, project


@pytest.fixture
def http(served: tuple[str, Path]) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=served[0], headers={"Origin": served[0]}, timeout=30) as client:
        assert client.post("/signin", data={"annotator": "alice"}).status_code == 303
        yield client


def form_of(page: str, key: str) -> Form:
    """The form of ``page`` whose key (its ``form`` field) is ``key``."""
    return next(form for form in page_forms(page) if form.fields.get("form") == key)


def stored(project: Path) -> tuple[object, ...]:
    store = ReviewStore.open(project, create=False)
    return (
        store.criteria_actions(),
        store.sentence_actions(),
        store.score_actions(),
        store.candidate_scores(),
        store.preferences(),
    )


def test_a_revision_without_its_reason_is_answered_with_the_criteria_page_and_the_error_beside_it(
    served: tuple[str, Path], http: httpx2.Client
) -> None:
    before = stored(served[1])
    form = form_of(http.get("/criteria?task=eli5").text, "revise:2")
    typed = {**form.fields, "name": "<script>window.__x = 1</script>", "description": "No wrong facts."}
    response = http.post(form.action, data=typed)
    assert response.status_code == 400 and "Stage 1 · criteria of eli5" in response.text
    assert "script-src" not in response.headers["content-security-policy"]
    assert "default-src 'none'" in response.headers["content-security-policy"]
    card = response.text[response.text.index('id="c2"') : response.text.index('id="add"')]
    assert "<details open>" in card
    assert re.search(
        r'name="reason" value="" aria-invalid="true" aria-describedby="error" autofocus></label>\s*'
        r'<p class="error field-error" id="error" role="alert">give a reason to revise this criterion',
        card,
    )
    assert 'value="&lt;script&gt;window.__x = 1&lt;/script&gt;"' in card and "<script>" not in response.text
    assert ">No wrong facts.</textarea>" in card
    again = form_of(response.text, "revise:2")
    assert again.fields["form_token"] != form.fields["form_token"]  # each form rendered, its own token
    assert stored(served[1]) == before  # nothing stored, not even the form's token
    assert http.post(form.action, data={**typed, "reason": "sharper"}).status_code == 303


def test_a_sentence_without_text_and_a_missing_score_are_answered_on_the_items_page(
    served: tuple[str, Path], http: httpx2.Client
) -> None:
    before = stored(served[1])
    page = http.get("/item?id=q1").text
    key = next(f.fields["form"] for f in page_forms(page) if f.fields.get("form", "").startswith("add:"))
    response = http.post("/item/sentence", data={**form_of(page, key).fields, "text": "   "})
    assert response.status_code == 400 and '<div class="text" id="output">' in response.text
    assert '<details class="add" open>' in response.text
    assert re.search(r'aria-invalid="true"[^>]*>   </textarea>\s*<p class="error field-error"', response.text)
    assert "write the sentence to add" in response.text

    pair = http.get("/item?id=p1").text
    scores = form_of(pair, "scores:Clarity")
    response = http.post(scores.action, data={**scores.fields, "score_1": "5"})  # Response 2's left out
    assert response.status_code == 400
    assert re.search(r'<input type="radio" name="score_1" value="5" required checked>', response.text)
    second = response.text[response.text.index('data-candidate="2" aria-invalid="true"') :]
    assert second.index(
        '<p class="error field-error" id="error" role="alert">choose a score</p>'
    ) < second.index("</fieldset>")
    preference = form_of(pair, "preference")
    response = http.post(preference.action, data={**preference.fields, "preference": "3"})
    assert (
        response.status_code == 400
        and "choose which is better (Response 1, Response 2), or a tie" in response.text
    )
    assert stored(served[1]) == before


def test_a_comparison_page_shows_every_response_as_text(
    served: tuple[str, Path], http: httpx2.Client
) -> None:
    page = http.get("/item?id=p1").text
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page and "<script>" not in page
    assert re.findall(r'<section class="candidate card" id="candidate-(\d)"', page) == ["1", "2"]
    assert "The judge's verdict: <strong>Response 1</strong>" in page.replace("&#39;", "'")
    score = form_of(page, "scores:Clarity")
    for refused, message in (
        ({"score_1": "9", "score_2": "1"}, "score must be between 1 and 5"),
        ({"score_1": "nan", "score_2": "1"}, "score_1 must be a number"),
    ):
        response = http.post(score.action, data={**score.fields, **refused})
        assert response.status_code == 400 and message in response.text
    single = form_of(page, "preference")
    response = http.post("/item/score", data={**single.fields, "criterion": "", "score": "3"})
    assert response.status_code == 400 and "is a comparison: score each of its candidates" in response.text
