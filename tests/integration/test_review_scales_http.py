"""What the review pages show and accept: the task's own overall scale, fractional scores, criteria
an annotator added (revised, deleted), unique names, renamed criteria, and bodies sent in chunks."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest

from faceteval.review import OVERALL, Draft, Item, ReviewStore
from tests.integration.test_review_http import request, signed_in
from tests.support.review_project import serve


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Path]]:
    """A task judged on 1-5 whose criteria are all on 1-3, with a draft score of 2.5."""
    project = tmp_path_factory.mktemp("review")
    store = ReviewStore.open(project)
    store.add_task("short", "Be brief.", [("Length", "Short is good.", (1.0, 3.0))], scale=(1.0, 5.0))
    store.add_items(
        [
            Item("a", "short", "Why?", "Because."),
            Item("b", "short", "How?", "Like so."),
            Item("c", "short", "When?", "Now."),
        ],
        [
            Draft("a", "Length", 2.5, "", "", ("Brief.",)),
            Draft("a", OVERALL, 5),
            Draft("b", "Length", 3),
            Draft("c", "Length", 7 / 3),
        ],
    )
    with serve(project) as base:
        parts = urllib.parse.urlsplit(base)
        host_port = (parts.hostname or "", parts.port or 0, project)
        assert request(host_port, "POST", "/signin", {"annotator": "José"}, cookie=None)[0] == 303
        yield host_port


def get(server: tuple[str, int, Path], path: str) -> str:
    status, text, _ = request(server, "GET", path)
    assert status == 200, text
    return unescape(text)


def post(server: tuple[str, int, Path], path: str, form: dict[str, str]) -> tuple[int, str]:
    status, text, _ = request(server, "POST", path, form)
    return status, unescape(text)


def radios(page: str, criterion: str) -> list[tuple[str, bool]]:
    """The score choices of a criterion's form ("" for the overall score), and which one is checked."""
    form = re.search(
        rf'name="criterion" value="{re.escape(criterion)}">\s*Your (?:overall )?score:(.*?)</form>',
        page,
        re.S,
    )
    assert form is not None, page
    found = re.findall(r'value="([^"]+)" required( checked)?> ([^<]+)</label>', form.group(1))
    return [(label.strip(), bool(checked)) for _, checked, label in found]


def radio_values(page: str, criterion: str) -> list[str]:
    """What each score choice of a criterion's form posts."""
    form = re.search(rf'value="{re.escape(criterion)}">\s*Your (?:overall )?score:(.*?)</form>', page, re.S)
    assert form is not None, page
    return re.findall(r'value="([^"]+)" required', form.group(1))


def test_the_overall_score_is_on_the_tasks_scale_not_its_criterias(server: tuple[str, int, Path]) -> None:
    page = get(server, "/item?id=a")
    assert "LLM overall score: <strong>5</strong> on 1-5." in page
    assert [v for v, _ in radios(page, "")] == ["1", "2", "3", "4", "5"]
    assert post(server, "/item/score", {"item": "a", "criterion": "", "score": "5"})[0] == 303
    status, text = post(server, "/item/score", {"item": "a", "criterion": "Length", "score": "5"})
    assert status == 400 and "score must be between 1 and 3" in text
    assert "saved: 5" in get(server, "/item?id=a")


def test_a_fractional_score_is_shown_as_it_is_and_kept_on_approval(server: tuple[str, int, Path]) -> None:
    page = get(server, "/item?id=a")
    assert re.search(r'class="llm-score">2\.5</strong> on 1-3', page)
    assert radios(page, "Length") == [("1", False), ("2", False), ("2.5", True), ("3", False)]
    assert post(server, "/item/approve", {"item": "a", "criterion": "Length"})[0] == 303
    page = get(server, "/item?id=a")
    assert "saved: 2.5" in page and ("2.5", True) in radios(page, "Length")
    assert ReviewStore.open(server[2], create=False).scores()[("a", "Length", "José")] == 2.5


def test_a_score_saved_unchanged_is_the_score_shown(server: tuple[str, int, Path]) -> None:
    page = get(server, "/item?id=c")
    assert ("2.33333", True) in radios(page, "Length")  # shown rounded, posted exactly
    posted = next(v for v in radio_values(page, "Length") if v.startswith("2.33"))
    assert post(server, "/item/score", {"item": "c", "criterion": "Length", "score": posted})[0] == 303
    assert ReviewStore.open(server[2], create=False).scores()[("c", "Length", "José")] == 7 / 3


def test_added_criteria_can_be_revised_and_deleted_and_names_stay_unique(
    server: tuple[str, int, Path],
) -> None:
    add = {"action": "add", "name": "Tone", "description": "Friendly.", "reason": "missing"}
    assert post(server, "/criteria?task=short", add)[0] == 303
    status, text = post(server, "/criteria?task=short", {**add, "name": "tone"})
    assert status == 400 and "you already have a criterion named 'Tone'" in text
    status, text = post(server, "/criteria?task=short", {**add, "name": "LENGTH"})
    assert status == 400 and "you already have a criterion named 'Length'" in text
    store = ReviewStore.open(server[2], create=False)
    (added,) = [row for row, _ in store.reviewed_criteria("short", "José") if row.id < 0]
    page = get(server, "/criteria?task=short")
    card = page[page.index(f'id="c{added.id}"') :]
    assert f'name="criterion" value="{added.id}"' in card and 'value="delete"' in card

    revise = {"action": "revise", "criterion": str(added.id), "name": "Warmth", "reason": "better name"}
    assert post(server, "/criteria?task=short", {**revise, "description": "Warm words."})[0] == 303
    page = get(server, "/criteria?task=short")
    assert 'name="name" value="Warmth"' in page and ">Warm words.</textarea>" in page  # the revision, to edit
    item = get(server, "/item?id=b")
    assert "<h3>Warmth</h3>" in item and "Drafted as Tone." in item and "<p>Warm words.</p>" in item
    assert [v for v, _ in radios(item, "Tone")] == ["1", "2", "3", "4", "5"]  # an added criterion: the task's
    assert post(server, "/item/score", {"item": "b", "criterion": "Tone", "score": "4"})[0] == 303

    gone = {"action": "delete", "criterion": str(added.id), "reason": "not needed"}
    assert post(server, "/criteria?task=short", gone)[0] == 303
    assert "Warmth" not in get(server, "/item?id=b")
    assert [c.name for c in store.final_criteria("short", "José")] == ["Length"]


def test_a_body_over_the_limit_is_refused_when_sent_in_chunks(server: tuple[str, int, Path]) -> None:
    import http.client

    host, port, project = server
    before = ReviewStore.open(project, create=False).sentence_actions()
    connection = http.client.HTTPConnection(host, port, timeout=10)
    chunks = (b"text=" + b"x" * 100_000 if i == 0 else b"x" * 100_000 for i in range(10))
    connection.request(
        "POST",
        "/item/sentence",
        body=chunks,
        headers={
            "Origin": f"http://{host}:{port}",
            "Cookie": signed_in(server),
            "Content-Type": "application/x-www-form-urlencoded",
        },
        encode_chunked=True,
    )
    response = connection.getresponse()
    assert response.status == 413 and "request too large" in response.read().decode()
    connection.close()
    assert ReviewStore.open(project, create=False).sentence_actions() == before
