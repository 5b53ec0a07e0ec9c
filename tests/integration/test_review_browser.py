"""The review web app driven in a real headless Chromium against `faceteval review serve` on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from playwright.sync_api import Browser, Page, expect, sync_playwright

from faceteval._cli._app import cli
from faceteval.review import ReviewStore
from tests.support.review_project import build_project, serve

CHROMIUM = os.environ.get("FACETEVAL_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium package")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


def sign_in(browser: Browser, base: str, name: str) -> Page:
    page = browser.new_context(base_url=base).new_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a dialog opened: {dialog.message}"))
    page.goto("/")
    page.fill("#annotator-name", name)
    page.click("text=Start")
    expect(page.locator("#annotator")).to_have_text(name)
    return page


def section(page: Page, criterion: str):  # type: ignore[no-untyped-def]
    return page.locator(f"section[data-criterion='{criterion}']")


def test_an_annotator_completes_both_stages_and_a_refresh_loses_nothing(
    browser: Browser, tmp_path: Path
) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        page = sign_in(browser, base, "alice")

        # Stage 1: approve one criterion, revise the other, add one.
        page.click("text=Stage 1: review the criteria")
        first = page.locator(".card", has_text="Use simple and easy-to-understand language.")
        first.locator("input[name=reason]").first.fill("it is what the task asks")
        first.locator("button[value=approve]").click()
        expect(page.locator(".card", has_text="Clarity").locator(".action")).to_have_text("approve")
        accuracy = page.locator(".card", has_text="Answers should be factually correct.")
        accuracy.locator("summary", has_text="Revise").click()
        accuracy.locator("textarea[name=description]").fill("No fabricated or subtly wrong facts.")
        accuracy.locator("details input[name=reason]").fill("sharper")
        accuracy.locator("text=Save revision").click()
        expect(page.locator(".card", has_text="Accuracy").locator(".action")).to_have_text("revise")
        add = page.locator("#add")
        add.locator("input[name=name]").fill("Analogy")
        add.locator("textarea[name=description]").fill("Uses an analogy a child knows.")
        add.locator("input[name=reason]").fill("the task is for children")
        add.get_by_role("button", name="Add", exact=True).click()
        expect(page.locator(".card", has_text="Uses an analogy a child knows.")).to_be_visible()

        # Stage 2, first output: edit, delete and add sentences, then a score.
        page.click("text=Go on to stage 2")
        page.click("text=How is perfume made?")
        clarity = section(page, "Clarity")
        second = clarity.locator(".sentence").nth(1)
        second.locator("summary", has_text="Edit").click()
        second.locator("textarea").fill("It gives a concrete example: squeezing flowers.")
        second.locator("text=Save edit").click()
        section(page, "Clarity").locator(".sentence").nth(0).locator("button[value=delete]").click()
        expect(section(page, "Clarity").locator(".sentence").nth(0)).to_have_class(re.compile(r"\bdelete\b"))

        page.reload()  # mid-way: nothing sent is lost
        clarity = section(page, "Clarity")
        expect(clarity.locator(".sentence").nth(0)).to_have_class(re.compile(r"\bdelete\b"))
        expect(clarity.locator(".sentence").nth(1).locator(".body")).to_have_text(
            "It gives a concrete example: squeezing flowers."
        )
        clarity.locator("summary", has_text="Add a sentence").click()
        clarity.locator("details.add textarea").fill("It never says where the oil comes from.")
        clarity.locator("text=Add sentence").click()
        expect(section(page, "Clarity").locator(".sentence")).to_have_count(4)
        for index in (2, 3):
            sentence = section(page, "Clarity").locator(".sentence").nth(index)
            sentence.locator("button[value=pass]").click()
            expect(section(page, "Clarity").locator(".sentence").nth(index)).to_have_class(
                re.compile(r"\bpass\b")
            )
        clarity = section(page, "Clarity")
        clarity.locator("input[name=score][value='3']").check()
        clarity.locator("text=Save score").click()
        expect(section(page, "Clarity").locator(".your-score")).to_have_text("saved: 3")
        expect(section(page, "Clarity")).to_have_class(re.compile(r"\bdone\b"))

        section(page, "Accuracy").locator("text=Approve the rest as drafted").click()
        expect(section(page, "Accuracy").locator(".your-score")).to_have_text("saved: 2")
        analogy = section(page, "Analogy")
        expect(analogy).to_contain_text("No LLM evaluation")
        analogy.locator("input[name=score][value='1']").check()
        analogy.locator("text=Save score").click()
        expect(page.locator("#item-done")).to_have_count(0)
        page.locator("#overall input[name=score][value='3']").check()
        page.click("text=Save overall score")
        expect(page.locator("#overall-saved")).to_have_text("saved: 3")
        expect(page.locator("#item-done")).to_be_visible()

        page.reload()
        expect(page.locator("#item-done")).to_be_visible()
        page.goto("/")
        expect(page.locator("#progress")).to_contain_text("alice")
        expect(page.locator("#progress tr", has_text="alice")).to_contain_text("1 / 3")

    out = tmp_path / "final.jsonl"
    result = CliRunner().invoke(cli, ["review", "export", str(project), "--out", str(out)])
    assert result.exit_code == 0, result.output
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["id"] == "q1" and row["annotator"] == "alice" and row["done"]
    assert row["scores"] == {"Clarity": 3, "Accuracy": 2, "Analogy": 1} and row["overall"] == 3
    assert row["llm_scores"] == {"Clarity": 4, "Accuracy": 2} and row["llm_overall"] == 4
    assert row["explanations"]["Clarity"] == [
        "It gives a concrete example: squeezing flowers.",
        "A child could follow it.",
        "It never says where the oil comes from.",
    ]
    assert row["explanations"]["Accuracy"] == ["The facts are mostly right.", "One detail is vague."]
    actions = [json.loads(line) for line in (tmp_path / "final.actions.jsonl").read_text().splitlines()]
    stage_one = [a["action"] for a in actions if a["stage"] == "criteria"]
    assert stage_one == ["approve", "revise", "add"]
    assert [a["reason"] for a in actions if a["stage"] == "criteria"] == [
        "it is what the task asks",
        "sharper",
        "the task is for children",
    ]
    sentence_actions = [(a["criterion"], a["action"]) for a in actions if a["stage"] == "sentence"]
    assert sentence_actions == [
        ("Clarity", "revise"),
        ("Clarity", "delete"),
        ("Clarity", "add"),
        ("Clarity", "pass"),
        ("Clarity", "pass"),
        ("Accuracy", "pass"),
        ("Accuracy", "pass"),
    ]


def test_two_annotators_at_once_never_overwrite_each_other(browser: Browser, tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        alice = sign_in(browser, base, "alice")
        bob = sign_in(browser, base, "bob")
        for page in (alice, bob):
            page.goto("/item?id=q3")
        alice_first = section(alice, "Clarity").locator(".sentence").nth(0)
        alice_first.locator("summary", has_text="Edit").click()
        alice_first.locator("textarea").fill("Alice's version.")
        bob_first = section(bob, "Clarity").locator(".sentence").nth(0)
        bob_first.locator("summary", has_text="Edit").click()
        bob_first.locator("textarea").fill("Bob's version.")
        alice_first.locator("text=Save edit").click()
        bob_first.locator("text=Save edit").click()
        # Each save reloads its page: wait for the reloaded page before acting on it again.
        for page in (alice, bob):
            expect(section(page, "Clarity").locator(".sentence").nth(0)).to_have_class(
                re.compile(r"\brevise\b")
            )
        section(alice, "Clarity").locator("input[name=score][value='5']").check()
        section(bob, "Clarity").locator("input[name=score][value='1']").check()
        section(bob, "Clarity").locator("text=Save score").click()
        section(alice, "Clarity").locator("text=Save score").click()
        expect(section(bob, "Clarity").locator(".your-score")).to_have_text("saved: 1")
        expect(section(alice, "Clarity").locator(".your-score")).to_have_text("saved: 5")

        for page, text, score in ((alice, "Alice's version.", "5"), (bob, "Bob's version.", "1")):
            page.reload()
            first = section(page, "Clarity").locator(".sentence").nth(0)
            expect(first.locator(".body")).to_have_text(text)
            expect(section(page, "Clarity").locator(".your-score")).to_have_text(f"saved: {score}")

    out = tmp_path / "final.jsonl"
    assert CliRunner().invoke(cli, ["review", "export", str(project), "--out", str(out)]).exit_code == 0
    rows = {row["annotator"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert rows["alice"]["scores"]["Clarity"] == 5 and rows["bob"]["scores"]["Clarity"] == 1
    assert rows["alice"]["explanations"]["Clarity"][0] == "Alice's version."
    assert rows["bob"]["explanations"]["Clarity"][0] == "Bob's version."


def test_script_in_an_output_is_shown_as_text_and_never_runs(browser: Browser, tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        page = sign_in(browser, base, "mallory")
        page.goto("/item?id=q2")
        expect(page.locator("#output")).to_contain_text("<script>window.__pwned = 1</script>")
        expect(page.locator("#output")).to_contain_text('<img src="x" onerror=')
        assert page.locator("#output script, #output img").count() == 0
        assert page.evaluate("typeof window.__pwned") == "undefined"
        # An annotator's own text is escaped too.
        first = section(page, "Clarity").locator(".sentence").nth(0)
        first.locator("summary", has_text="Edit").click()
        first.locator("textarea").fill("<script>window.__pwned = 3</script>")
        first.locator("text=Save edit").click()
        expect(section(page, "Clarity").locator(".sentence").nth(0).locator(".body")).to_have_text(
            "<script>window.__pwned = 3</script>"
        )
        assert page.evaluate("typeof window.__pwned") == "undefined"


def test_an_edited_sentence_offers_to_undo_the_edit_not_to_approve_it(
    browser: Browser, tmp_path: Path
) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        page = sign_in(browser, base, "alice")
        page.goto("/item?id=q1")
        first = section(page, "Clarity").locator(".sentence").nth(0)
        expect(first.locator("button[value=pass]")).to_have_text("Approve")
        first.locator("summary", has_text="Edit").click()
        first.locator("textarea").fill("Plain words, short sentences.")
        first.locator("text=Save edit").click()
        first = section(page, "Clarity").locator(".sentence").nth(0)
        expect(first.locator(".body")).to_have_text("Plain words, short sentences.")
        # "pass" keeps the sentence as drafted: on an edited one, "Approve" would throw the edit away.
        expect(first.locator("button[value=pass]")).to_have_text("Undo edit")
        second = section(page, "Clarity").locator(".sentence").nth(1)
        second.locator("button[value=delete]").click()
        second = section(page, "Clarity").locator(".sentence").nth(1)
        expect(second.locator("button[value=pass]")).to_have_text("Restore")
        section(page, "Clarity").locator(".sentence").nth(0).locator("text=Undo edit").click()
        first = section(page, "Clarity").locator(".sentence").nth(0)
        expect(first.locator(".body")).to_have_text("The answer uses simple words.")
        expect(first.locator("button[value=pass]")).to_have_text("Approve")


def test_a_tab_left_open_as_one_annotator_never_acts_as_one_signed_in_since(
    browser: Browser, tmp_path: Path
) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        alices = sign_in(browser, base, "alice")
        alices.goto("/item?id=q1")
        alices_criteria = alices.context.new_page()
        alices_criteria.goto("/criteria?task=eli5")
        other_tab = alices.context.new_page()  # the same browser: one cookie for both tabs
        other_tab.goto("/")
        other_tab.click("text=Sign out")
        other_tab.fill("#annotator-name", "bob")
        other_tab.click("text=Start")
        expect(other_tab.locator("#annotator")).to_have_text("bob")

        expect(alices.locator("#annotator")).to_have_text("alice")
        section(alices, "Clarity").locator(".sentence").nth(0).locator("button[value=delete]").click()
        expect(alices.locator("#error")).to_contain_text("this page was alice's")
        expect(alices.locator("#error")).to_contain_text("now signed in as bob")
        expect(alices_criteria.locator("#annotator")).to_have_text("alice")
        alices_criteria.locator(".card").nth(0).locator("button[value=approve]").click()
        expect(alices_criteria.locator("#error")).to_contain_text("nothing was saved")
    store = ReviewStore.open(project, create=False)
    assert store.sentence_actions() == [] and store.criteria_actions() == []
