"""The review web app driven in a real headless Chromium against `faceteval review serve` on 127.0.0.1.

Each test acts as an annotator would (clicks, types) and checks what the page's DOM then shows.
"""

from __future__ import annotations

import json
import re
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval.review import ReviewStore
from tests.integration.test_coeval_http import inputs, responder
from tests.support.chromium import CHROMIUM, FLAGS
from tests.support.llm_server import LLMServer
from tests.support.processes import run_to_end
from tests.support.review_project import build_project, serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium package")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


def sign_in(browser: Browser, base: str, name: str) -> Page:
    from playwright.sync_api import expect

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
    from playwright.sync_api import expect

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
    from playwright.sync_api import expect

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
    from playwright.sync_api import expect

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
    from playwright.sync_api import expect

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
    from playwright.sync_api import expect

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


def judged_pairs(tmp_path: Path) -> Path:
    """A review project holding a `judge --method coeval` run over the local server, imported: two
    outputs judged alone and a pair judged side by side (``pair``: Response 2 the judge's pick)."""
    outputs, criteria = inputs(tmp_path)
    judged = tmp_path / "j.jsonl"
    with LLMServer(responder) as server:  # in a process of its own: this one runs the browser's loop
        result = run_to_end(
            [
                sys.executable, "-m", "faceteval", "judge", str(outputs), "--method", "coeval", "--criteria",
                str(criteria), "--model", "openai:judge", "--base-url", server.base_url, "--no-cache",
                "--out", str(judged), "-q",
            ],
            timeout=300,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
    project = tmp_path / "review"
    imported = CliRunner().invoke(cli, ["review", "import", str(project), str(judged), "--task", "rain"])
    assert imported.exit_code == 0, imported.output
    return project


def test_a_pairwise_judgment_is_one_item_with_both_responses_side_by_side_and_a_preference(
    browser: Browser, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    project = judged_pairs(tmp_path)
    with serve(project) as base:
        page = sign_in(browser, base, "alice")
        page.goto("/items?task=rain")
        expect(page.locator("#items tr")).to_have_count(4)  # a header, two outputs, one comparison
        expect(page.locator("#items .compared")).to_have_text("2 responses side by side")
        page.locator("#items a", has_text="Why does it rain?").nth(2).click()
        expect(page.locator("h1")).to_contain_text("comparison 3 of 3")

        # Both responses, side by side: the same row, one left of the other, each whole.
        first, second = page.locator("#candidate-1"), page.locator("#candidate-2")
        expect(first.locator(".output")).to_have_text("Precipitation results from coalescence.")
        expect(second.locator(".output")).to_have_text("Clouds get heavy and drops fall.")
        left, right = first.bounding_box(), second.bounding_box()
        assert left is not None and right is not None
        assert left["y"] == right["y"] and left["x"] + left["width"] <= right["x"]
        expect(first).to_be_in_viewport()
        expect(second).to_be_in_viewport()
        expect(second.locator(".pick")).to_have_text("the judge's pick")
        expect(first.locator(".pick")).to_have_count(0)
        expect(page.locator("#verdict")).to_contain_text("Response 2")
        expect(first.locator(".llm-overall")).to_have_text("2")

        # Each criterion: the judge's score of each response, its explanation comparing both.
        length = section(page, "Length")
        expect(length.locator(".llm-score")).to_have_text(["1", "3"])
        expect(length.locator(".heading")).to_have_text(
            ["Response 1", "Conclusion", "Evidence", "Response 2", "Conclusion", "Evidence"]
        )
        expect(length.locator(".sentence")).to_have_count(4)  # no score line, no label to approve
        expect(length.locator(".sentence .body").nth(1)).to_have_text(
            '"Precipitation results from coalescence."'
        )
        expect(length.locator(".score-line.overridden")).to_have_count(0)

        # Scoring Response 1 otherwise than the judge overrides its score line, and that one only.
        length.locator("fieldset[data-candidate='1'] input[value='3']").check()
        length.locator("fieldset[data-candidate='2'] input[value='3']").check()
        length.locator("text=Save scores").click()
        length = section(page, "Length")
        expect(length.locator(".your-score")).to_have_text(["3", "3", "saved: 3 / 3"])
        overridden = length.locator(".score-line.overridden")
        expect(overridden).to_have_count(1)
        expect(overridden.locator(".said")).to_have_text("Score: I would assign a score of 1 to this answer.")
        expect(overridden.locator(".overrides")).to_have_text("overridden by your score: 3")
        expect(length.locator(".score-line").nth(1)).not_to_have_class(re.compile(r"\boverridden\b"))

        length.locator("text=Approve the rest as drafted").click()
        expect(section(page, "Length")).to_have_class(re.compile(r"\bdone\b"))
        expect(section(page, "Length").locator(".your-score").nth(0)).to_have_text("3")  # kept, not the LLM's
        section(page, "Comprehensibility").locator("text=Approve the rest as drafted").click()
        expect(section(page, "Comprehensibility").locator(".your-score")).to_have_text(
            ["2", "5", "saved: 2 / 5"]
        )
        expect(page.locator("#item-done")).to_have_count(0)  # no preference yet

        page.locator("#preference input[name=preference][value='1']").check()
        page.locator("text=Save preference").click()
        expect(page.locator("#preference-saved")).to_have_text("saved: Response 1")
        expect(page.locator("#item-done")).to_be_visible()
        page.reload()
        expect(page.locator("#preference input[value='1']")).to_be_checked()

    out = tmp_path / "final.jsonl"
    assert CliRunner().invoke(cli, ["review", "export", str(project), "--out", str(out)]).exit_code == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["id"], row["kind"], row["done"]) == ("pair", "comparison", True)
    assert (row["preference"], row["llm_verdict"]) == (1, 2)
    assert row["scores"] == {"Comprehensibility": [2, 5], "Length": [3, 3]}
    assert row["llm_scores"]["Length"] == [1, 3]
    numbers = tmp_path / "stats.json"
    stats = ["review", "stats", str(project), "--resamples", "0", "--json", str(numbers)]
    printed = CliRunner().invoke(cli, stats)
    assert printed.exit_code == 0 and "Preferences on comparisons" in printed.output
    preferences = json.loads(numbers.read_text())["tasks"]["rain"]["preferences"]
    assert preferences["with_judge"]["n"] == 1 and preferences["with_judge"]["agree"] == 0
    assert preferences["distribution"] == {"judge": {"Response 2": 1}, "annotators": {"Response 1": 1}}


def test_a_form_refused_for_what_was_typed_is_shown_on_its_page_beside_the_field_with_the_text_kept(
    browser: Browser, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        page = sign_in(browser, base, "alice")
        page.goto("/criteria?task=eli5")

        # A revision without its reason: the same page, the error beside the reason, the rest as typed.
        accuracy = page.locator("#c2")
        accuracy.locator("summary", has_text="Revise").click()
        accuracy.locator("form.revise input[name=name]").fill("Correctness")
        accuracy.locator("form.revise textarea[name=description]").fill(
            "No fabricated or subtly wrong facts."
        )
        accuracy.locator("text=Save revision").click()
        expect(page.locator("h1")).to_have_text("Stage 1 · criteria of eli5")
        assert urllib.parse.urlsplit(page.url).path == "/criteria"
        revise = page.locator("#c2 form.revise")
        expect(revise).to_be_visible()  # its details open
        error = revise.locator("label:has(input[name=reason]) + p.field-error")
        expect(error).to_have_text("give a reason to revise this criterion: why does it need to change?")
        expect(revise.locator("input[name=reason]")).to_have_attribute("aria-invalid", "true")
        expect(revise.locator("input[name=reason]")).to_be_focused()
        expect(revise.locator("input[name=name]")).to_have_value("Correctness")
        expect(revise.locator("textarea[name=description]")).to_have_value(
            "No fabricated or subtly wrong facts."
        )
        expect(page.locator("#c2")).to_be_in_viewport()
        expect(page.locator("#c1 .field-error")).to_have_count(0)  # beside this form alone
        assert ReviewStore.open(project, create=False).criteria_actions() == []
        revise.locator("input[name=reason]").fill("sharper")
        revise.locator("text=Save revision").click()
        expect(page.locator("#c2 .action")).to_have_text("revise")
        expect(page.locator(".field-error")).to_have_count(0)

        # A deletion without its reason: the dead end of before is the same page, the error beside it.
        page.locator("#c1 button[value=delete]").click()
        expect(page.locator("#c1 form.mark label:has(input[name=reason]) + p.field-error")).to_contain_text(
            "give a reason to delete this criterion"
        )
        expect(page.locator("#c1 .action")).to_have_count(0)
        expect(page.locator("#c2 .action")).to_have_text("revise")  # what was done before is there

        # A name the annotator's criteria have: refused by the store, shown beside the name.
        add = page.locator("#add")
        add.locator("input[name=name]").fill("clarity")
        add.locator("textarea[name=description]").fill("<b>Plain</b> words.")
        add.locator("input[name=reason]").fill("the task is for children")
        add.get_by_role("button", name="Add", exact=True).click()
        add = page.locator("#add")
        expect(add.locator("label:has(input[name=name]) + p.field-error")).to_have_text(
            "you already have a criterion named 'Clarity'"
        )
        expect(add.locator("textarea[name=description]")).to_have_value("<b>Plain</b> words.")  # as text
        expect(add.locator("input[name=reason]")).to_have_value("the task is for children")
        expect(page.locator("#problem")).to_contain_text("Not saved")
        assert page.evaluate("document.querySelectorAll('b').length") == 0

    actions = ReviewStore.open(project, create=False).criteria_actions()
    assert [(a["action"], a["reason"]) for a in actions] == [("revise", "sharper")]
