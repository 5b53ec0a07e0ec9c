"""The run viewer driven in a real headless Chromium against `faceteval view` on 127.0.0.1.

Each screenshot is taken of a page whose content the test has just asserted on in the DOM; they are
kept under pytest's temporary directory (``screenshots/``), to look at when a test fails.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import faceteval
from faceteval.results import Proportion
from tests.support.chromium import CHROMIUM, FLAGS
from tests.support.view_runs import HOSTILE, UNREADABLE, Runs, data_dir, make_runs, view

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

WIDTH, HEIGHT = 1280, 900


@pytest.fixture(scope="module")
def browser(runs: Runs) -> Iterator[Browser]:
    """Chromium, started once the runs are made: Playwright's sync API keeps an event loop running in
    this thread, where the commands making the runs could not start theirs."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium package")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return make_runs(tmp_path_factory.mktemp("runs"), data_dir())


@pytest.fixture(scope="module")
def base(runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with view(index_dir=tmp_path_factory.mktemp("index"), cwd=runs.folder) as url:
        yield url


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture
def page(browser: Browser, base: str) -> Iterator[Page]:
    context = browser.new_context(base_url=base, viewport={"width": WIDTH, "height": HEIGHT})
    opened = context.new_page()
    opened.on("dialog", lambda dialog: pytest.fail(f"a dialog opened: {dialog.message}"))
    yield opened
    context.close()


def screenshot(page: Page, path: Path) -> None:
    """A full-page screenshot of what the test asserted on; it must be a PNG as wide as the page."""
    page.screenshot(path=path, full_page=True)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == WIDTH and height >= HEIGHT


def row_ids(page: Page) -> list[str]:
    return page.locator("#rows tr.row").evaluate_all("rows => rows.map(r => r.dataset.id)")


def open_judge_run(page: Page) -> None:
    from playwright.sync_api import expect

    page.goto("/")
    page.locator("#runs a", has_text="j.jsonl").first.click()
    expect(page.locator("#run-kind")).to_have_text("judge run")


def test_the_list_of_runs_shows_every_run_with_what_it_did(page: Page, shots: Path) -> None:
    from playwright.sync_api import expect

    page.goto("/")

    expect(page.locator("#runs tbody tr")).to_have_count(9)
    judge = page.locator("#runs tr[data-kind='judge']", has_text="j.jsonl")
    expect(judge).to_contain_text("dna")
    expect(judge).to_contain_text("4 ok · 1 parse_error · orders agreed 3, disagreed 1")
    expect(page.locator("#runs tr[data-kind='meta-eval']", has_text="mtbench")).to_contain_text("n = 40")
    expect(page.locator("#runs tr[data-kind='hdeval train']")).to_contain_text("targets: Coherence")
    expect(page.locator("#runs td.indent")).to_have_count(2)  # the sweep's runs, under it
    screenshot(page, shots / "runs.png")


def apply_filters(page: Page) -> None:
    """Submits the filter form and waits for the page it loads, so rows read after are the new page's."""
    with page.expect_navigation():
        page.click("#filters button[type=submit]")


def test_the_filters_of_a_judge_run_keep_the_rows_they_name(page: Page, shots: Path) -> None:
    from playwright.sync_api import expect

    open_judge_run(page)
    assert row_ids(page) == ["p1", "p2", "p3", "p4", "p5"]
    expect(page.locator("#summary")).to_contain_text("orders_disagreed")

    page.select_option("select[name=verdict]", "2")
    apply_filters(page)
    expect(page.locator("#count")).to_have_text("2 items match the filters.")
    assert row_ids(page) == ["p2", "p5"] and "verdict=2" in page.url

    page.select_option("select[name=agreement]", "disagree")
    apply_filters(page)
    expect(page.locator("#count")).to_have_text("1 item matches the filters.")
    assert row_ids(page) == ["p5"]
    expect(page.locator("#rows tr.row td.verdict")).to_have_text("2 (A)")
    expect(page.locator("select[name=verdict]")).to_have_value("2")  # the form shows what is applied
    screenshot(page, shots / "filtered-verdict-disagree.png")

    with page.expect_navigation():
        page.click("text=clear")
    page.select_option("select[name=consistent]", "no")
    apply_filters(page)
    assert row_ids(page) == ["p3"]

    with page.expect_navigation():
        page.click("text=clear")
    page.select_option("select[name=status]", "parse_error")
    apply_filters(page)
    assert row_ids(page) == ["p4"]
    expect(page.locator("#rows tr.row td .status")).to_have_text("parse_error")

    with page.expect_navigation():
        page.click("text=clear")
    page.select_option("select[name=winner]", "A")
    page.fill("input[name=facet]", "Is the output correct?")
    apply_filters(page)
    assert row_ids(page) == ["p1", "p5"]
    expect(page.locator("#rows thead th", has_text="Is the output correct?")).to_have_count(1)
    screenshot(page, shots / "filtered-winner-facet.png")


def shown_rate(rate: Proportion) -> tuple[str, str, str]:
    """A rate as the result's tables show it: its value, its interval, its denominator."""
    assert rate.value is not None and rate.ci is not None
    ci = f"[{100 * rate.ci[0]:.1f}, {100 * rate.ci[1]:.1f}]"
    return f"{100 * rate.value:.1f}%", ci, f"n = {rate.n}"


def test_a_judge_runs_page_shows_its_stored_result_whatever_its_items_are_filtered_to(
    page: Page, shots: Path, runs: Runs
) -> None:
    from playwright.sync_api import expect

    stored = faceteval.read_run(runs.judge).summary.result
    assert stored is not None and stored.pairwise is not None
    page.goto("/")
    with page.expect_navigation():
        page.locator("#runs a", has_text="j.jsonl").first.click()

    for _ in range(2):  # the run's page, then the same run with its items filtered
        for table, standings in (
            ("systems", stored.pairwise.systems),
            ("positions", stored.pairwise.positions),
        ):
            for standing in standings:
                row = page.locator(f"#result-{table} tr[data-name='{standing.name}']")
                for cell, rate in (
                    ("win-rate", standing.win_rate),
                    ("win-rate-without-ties", standing.win_rate_without_ties),
                ):
                    value, ci, n = shown_rate(rate)
                    expect(row.locator(f"td.{cell} .value")).to_have_text(value)
                    expect(row.locator(f"td.{cell} .ci")).to_have_text(ci)
                    expect(row.locator(f"td.{cell} .over")).to_have_text(n)
                expect(row.locator("td.wins")).to_have_text(str(standing.wins))
                expect(row.locator("td.failed")).to_have_text(str(standing.failed))
        a = page.locator("#result-systems tr[data-name='A']")
        expect(a.locator("td.win-rate .value")).to_have_text("62.5%")  # won 2, tied 1, lost 1 of 4
        expect(page.locator("#result-failures tr[data-name='parse_error']")).to_contain_text("20.0% of 5")
        expect(page.locator("#result-consistency")).to_contain_text("75.0%")  # 3 of 4 orders agreed
        expect(page.locator("#result-facets tbody tr")).to_have_count(len(stored.pairwise.facets))
        screenshot(page, shots / "judge-result.png")
        page.select_option("select[name=verdict]", "2")
        apply_filters(page)
        expect(page.locator("#count")).to_have_text("2 items match the filters.")


def test_an_item_shows_its_candidates_side_by_side_its_facets_and_every_prompt(
    page: Page, shots: Path, runs: Runs
) -> None:
    from playwright.sync_api import expect

    open_judge_run(page)
    page.select_option("select[name=winner]", "A")
    apply_filters(page)
    page.locator("#rows td.id a", has_text="p1").click()

    expect(page.locator("#item-title")).to_contain_text("p1")
    candidates = page.locator("#candidates .candidate")
    expect(candidates).to_have_count(2)
    first, second = candidates.nth(0).bounding_box(), candidates.nth(1).bounding_box()
    assert first is not None and second is not None
    assert abs(first["y"] - second["y"]) < 1 and first["x"] + first["width"] <= second["x"]  # side by side
    expect(candidates.nth(0)).to_contain_text("Response 1 (A)")
    expect(candidates.nth(0).locator(".candidate-text")).to_have_text("good")
    expect(candidates.nth(0).locator(".badge.win")).to_have_text("verdict")
    expect(candidates.nth(0).locator(".badge.human")).to_have_text("human label")
    expect(candidates.nth(1).locator(".candidate-text")).to_have_text("weak")

    judgment = json.loads(runs.judge.read_text(encoding="utf-8").splitlines()[0])
    facets = page.locator("#facets tr.facet")
    expect(facets).to_have_count(len(judgment["facets"]))
    for facet in judgment["facets"]:  # the mean of the two orders: 5.5 and 2.5 (a first-position bias)
        row = page.locator(f"#facets tr.facet[data-facet='{facet['name']}']")
        expect(row.locator("td.score")).to_have_text([f"{s:g}" for s in facet["scores"]])
        expect(row.locator("td.weight")).to_have_text(f"{facet['weight']:.3g}")
        expect(row.locator(".explanation")).to_have_text(facet["explanation"])
    exchanges = page.locator("#trace .exchange")
    expect(exchanges).to_have_count(len(judgment["trace"]))
    aspects = exchanges.nth(0)
    aspects.locator("summary", has_text="Prompt").click()
    expect(aspects.locator(".message .text").nth(1)).to_contain_text("Propose 2 concise questions")
    expect(aspects.locator(".raw-reply")).to_have_text(judgment["trace"][0]["raw"])
    screenshot(page, shots / "item.png")

    page.click("#next")  # the next item the filter keeps
    expect(page.locator("#item-title")).to_contain_text("p5")


def test_a_parse_error_is_shown_as_such_with_the_reply_that_could_not_be_read(
    page: Page, shots: Path
) -> None:
    from playwright.sync_api import expect

    open_judge_run(page)
    page.locator("#rows td.id a", has_text="p4").click()

    expect(page.locator("#item-status")).to_have_text("parse_error")
    expect(page.locator("#item-error")).to_contain_text("Parse error: order 1,2: dna.score")
    failed = page.locator("#trace .exchange.parse-error")
    expect(failed.first.locator(".parse-error-note")).to_contain_text(
        "Parse error: the reply could not be read"
    )
    expect(failed.first.locator(".raw-reply")).to_have_text(UNREADABLE)
    expect(failed.first.locator(".message .text").nth(1)).to_be_visible()  # its prompt, opened
    screenshot(page, shots / "parse-error.png")


def test_model_and_input_text_is_shown_as_text_and_runs_nothing(page: Page) -> None:
    from playwright.sync_api import expect

    open_judge_run(page)
    page.locator("#rows td.id a", has_text="p5").click()

    expect(page.locator("#candidates .candidate").nth(1).locator(".candidate-text")).to_have_text(HOSTILE)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#candidates img").count() == 0


def test_a_meta_evaluation_filters_by_agreement_with_the_human_label(page: Page, shots: Path) -> None:
    from playwright.sync_api import expect

    page.goto("/")
    page.locator("#runs a", has_text="mtbench").click()
    expect(page.locator("#agreement")).to_contain_text("agreement")

    page.select_option("select[name=agreement]", "disagree")
    page.select_option("select[name=system]", "gpt-4")
    apply_filters(page)

    rows = page.locator("#rows tr.row")
    assert rows.count() > 0
    for text in rows.locator("td.agreement").all_inner_texts():
        assert "✗ disagrees" in text
    rows.first.locator("td.id a").click()
    expect(page.locator("#candidates .candidate .system")).to_have_count(2)
    expect(page.locator("#candidates")).to_contain_text("gpt-4")
    expect(page.locator("#human-label")).not_to_be_empty()
    screenshot(page, shots / "meta-eval-item.png")
