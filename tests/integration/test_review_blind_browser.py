"""Blind review in a real headless Chromium: the judge's verdict, scores and explanations are nowhere in the
page until the annotator gives their own preference or overall score, then shown; the label is stored as
given blind, with its queue order and position."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from faceteval.review import ReviewStore
from tests.integration.test_review_browser import sign_in
from tests.integration.test_review_labels import imported
from tests.support.chromium import CHROMIUM, FLAGS
from tests.support.review_project import build_project, serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium package")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


def test_a_blind_comparison_hides_the_judge_until_the_preference_is_given(
    browser: Browser, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    project = tmp_path / "review"
    store = imported(project, tmp_path / "run", "--order", "uncertainty", "--blind")
    first = store.items("pairs")[0].id  # the least confident: i1, judged without a confidence
    with serve(project) as base:
        page = sign_in(browser, base, "kim")
        expect(page.locator("#queue")).to_contain_text("uncertainty order")
        page.goto("/items?task=pairs")
        page.locator("#items a").first.click()
        expect(page.locator("#blind")).to_be_visible()
        html = page.content()
        assert f"Q {first}?" in html and f"B {first}" in html  # the input and the responses are there
        for hidden in (
            f"SECRET-REASON-{first}",
            "The judge's verdict",
            "the judge's pick",
            "Judge's overall",
        ):
            assert hidden not in html, hidden
        assert page.locator("#verdict, .pick, .llm-overall, section[data-criterion]").count() == 0

        page.locator("#preference input[value='1']").check()
        page.locator("#preference button[type=submit]").click()
        expect(page.locator("#preference-saved")).to_have_text("saved: Response 1")
        expect(page.locator("#verdict")).to_have_text("The judge's verdict: Response 2.")
        expect(page.locator("#blind")).to_have_count(0)
        assert f"SECRET-REASON-{first}" in page.content()
        assert page.locator(".llm-overall").count() == 2

        page.locator("#preference input[value='2']").check()  # changing it now is not blind
        page.locator("#preference button[type=submit]").click()
        expect(page.locator("#preference-saved")).to_have_text("saved: Response 2")
    labels = [(x["item_id"], x["annotator"], x["value"], x["shown"], x["ordering"], x["queue_position"])
              for x in ReviewStore.open(project, create=False).labels()]  # fmt: skip
    assert labels == [
        (first, "kim", 1, "blind", "uncertainty", 1),
        (first, "kim", 2, "open", "uncertainty", 1),
    ]


def test_a_blind_output_hides_the_llms_scores_and_explanations_until_the_overall_score(
    browser: Browser, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    project = tmp_path / "review"
    store = build_project(project)
    store.update_settings(blind=True)
    with serve(project) as base:
        page = sign_in(browser, base, "alice")
        page.goto("/item?id=q1")
        expect(page.locator("#blind")).to_contain_text("once you give your overall score")
        html = page.content()
        assert "People squeeze flowers" in html
        for hidden in ("The answer uses simple words.", "LLM score", "LLM overall score", "Mostly right."):
            assert hidden not in html, hidden
        page.locator("#overall input[name=score][value='2']").check()
        page.locator("text=Save overall score").click()
        expect(page.locator("#overall-saved")).to_have_text("saved: 2")
        expect(page.locator("section[data-criterion='Clarity']")).to_contain_text(
            "The answer uses simple words."
        )
        assert "LLM overall score" in page.content()
    (label,) = ReviewStore.open(project, create=False).labels()
    assert (label["item_id"], label["value"], label["shown"], label["ordering"]) == ("q1", 2, "blind", None)
