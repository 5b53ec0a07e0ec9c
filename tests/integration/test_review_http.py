"""The review server refuses what it should, with 4xx, and binds loopback by default."""

from __future__ import annotations

import http.client
import json
import re
import secrets
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval.review import ReviewStore
from tests.support.review_project import build_project, serve


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Path]]:
    project = tmp_path_factory.mktemp("review")
    build_project(project)
    with serve(project) as base:
        parts = urllib.parse.urlsplit(base)
        yield parts.hostname or "", parts.port or 0, project


SIGNED_IN = "<signed in>"
"""``request``'s default cookie: that of the annotator who signed in first on the server."""
_signed_in: dict[int, str] = {}


def signed_in(server: tuple[str, int, Path]) -> str:
    """The Cookie header of the annotator who signed in first on ``server``."""
    return _signed_in[server[1]]


def request(
    server: tuple[str, int, Path],
    method: str,
    path: str,
    form: dict[str, str] | None = None,
    *,
    cookie: str | None = SIGNED_IN,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, str, dict[str, str]]:
    """One request; a form is sent with a token of its own, as a page renders each form."""
    host, port, _ = server
    connection = http.client.HTTPConnection(host, port, timeout=10)
    sent = {"Origin": f"http://{host}:{port}", **(headers or {})}
    if cookie == SIGNED_IN:
        cookie = _signed_in.get(port)
    if cookie:
        sent["Cookie"] = cookie
    if form is not None:
        body = urllib.parse.urlencode({"form_token": secrets.token_urlsafe(24), **form}).encode()
        sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
    connection.request(method, path, body=body, headers=sent)
    response = connection.getresponse()
    text = response.read().decode("utf-8", "replace")
    connection.close()
    answered = {k.lower(): v for k, v in response.getheaders()}
    if path == "/signin" and response.status == 303:
        _signed_in.setdefault(port, answered["set-cookie"].split(";")[0])
    return response.status, text, answered


@pytest.fixture(scope="module", autouse=True)
def alice(server: tuple[str, int, Path]) -> None:
    status, _, _ = request(server, "POST", "/signin", {"annotator": "alice"}, cookie=None)
    assert status == 303


def test_every_page_forbids_scripts(server: tuple[str, int, Path]) -> None:
    for path in ("/", "/item?id=q1", "/criteria?task=eli5", "/items?task=eli5", "/item?id=nope"):
        _, _, headers = request(server, "GET", path)
        policy = headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy
        assert headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("method", "path", "form", "status", "message"),
    [
        ("GET", "/item?id=nope", None, 404, "no item"),
        ("GET", "/criteria?task=nope", None, 404, "no task"),
        ("POST", "/item/score", {"item": "q1", "criterion": "Clarity"}, 400, "choose a score"),
        ("POST", "/item/score", {"item": "q1", "criterion": "Clarity", "score": "9"}, 400, "between 1 and 5"),
        (
            "POST",
            "/item/score",
            {"item": "q1", "criterion": "Accuracy", "score": "4"},
            400,
            "between 1 and 3",
        ),
        ("POST", "/item/score", {"item": "q1", "criterion": "Clarity", "score": "nan"}, 400, "number"),
        ("POST", "/item/score", {"item": "q1", "criterion": "Nope", "score": "3"}, 400, "no criterion"),
        ("POST", "/item/sentence", {"item": "q1", "criterion": "Clarity", "action": "pass"}, 400, "missing"),
        (
            "POST",
            "/item/sentence",
            {"item": "q1", "criterion": "Clarity", "action": "pass", "sentence": "7"},
            400,
            "no sentence 7",
        ),
        (
            "POST",
            "/item/sentence",
            {"item": "q1", "criterion": "Clarity", "action": "eat", "sentence": "0"},
            400,
            "must be one of",
        ),
        ("POST", "/criteria?task=eli5", {"action": "revise", "criterion": "1", "reason": "r"}, 400, "name"),
        ("POST", "/criteria?task=eli5", {"action": "delete", "criterion": "1"}, 400, "reason"),
        ("POST", "/signin", {"annotator": "<script>"}, 400, "annotator name"),
        ("PUT", "/item/score", None, 405, ""),
        ("DELETE", "/", None, 405, ""),
    ],
)
def test_malformed_requests_get_4xx_and_change_nothing(
    server: tuple[str, int, Path],
    method: str,
    path: str,
    form: dict[str, str] | None,
    status: int,
    message: str,
) -> None:
    store = ReviewStore.open(server[2], create=False)
    before = (store.score_actions(), store.sentence_actions(), store.criteria_actions())
    got, text, _ = request(server, method, path, form)
    assert got == status
    assert message in text.replace("&#39;", "'")
    assert (store.score_actions(), store.sentence_actions(), store.criteria_actions()) == before


def test_requests_without_a_name_a_form_or_the_same_origin_are_refused(server: tuple[str, int, Path]) -> None:
    score = {"item": "q1", "criterion": "Clarity", "score": "3"}
    assert request(server, "POST", "/item/score", score, cookie=None)[0] == 401
    assert request(server, "POST", "/item/score", score, cookie="faceteval_annotator=alice")[0] == 401
    evil = {"Origin": "http://evil.example"}
    assert request(server, "POST", "/item/score", score, headers=evil)[0] == 403
    as_json = {"Content-Type": "application/json"}
    assert (
        request(server, "POST", "/item/score", None, headers=as_json, body=json.dumps(score).encode())[0]
        == 415
    )
    huge = {"item": "q1", "criterion": "Clarity", "action": "add", "text": "x" * 300_000}
    assert request(server, "POST", "/item/sentence", huge)[0] == 413
    assert ReviewStore.open(server[2], create=False).score_actions() == []


def test_paths_outside_the_app_are_not_served(server: tuple[str, int, Path]) -> None:
    for path in (
        "/../review.sqlite",
        "/review.sqlite",
        "/static/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
    ):
        status, text, _ = request(server, "GET", path)
        assert status == 404 and "root:" not in text and "SQLite" not in text


def test_serve_binds_loopback_by_default() -> None:
    from faceteval._cli._review import serve as serve_command

    host = next(p for p in serve_command.params if p.name == "host")
    assert host.default == "127.0.0.1"


def test_a_project_written_by_a_newer_version_is_refused(tmp_path: Path) -> None:
    import sqlite3

    build_project(tmp_path)
    with sqlite3.connect(tmp_path / "review.sqlite") as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    result = CliRunner().invoke(cli, ["review", "export", str(tmp_path), "--out", str(tmp_path / "x.jsonl")])
    assert result.exit_code != 0 and "newer faceteval" in result.output


def test_a_port_in_use_is_a_usage_error_before_anything_is_announced(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["review", "serve", str(tmp_path / "p"), "--port", str(port)])
    assert result.exit_code == 2
    assert (
        f"cannot serve on 127.0.0.1:{port}" in result.output and "choose another with --port" in result.output
    )
    assert "Review of" not in result.output


def test_an_output_and_criterion_named_with_outer_spaces_can_be_reviewed(tmp_path: Path) -> None:
    from faceteval.review import OVERALL, Draft, Item

    store = ReviewStore.open(tmp_path)
    store.add_task("t", "", [(" Clarity ", "", (1.0, 5.0))])
    store.add_items(
        [Item(" q1 ", "t", "Why?", "Because.")],
        [Draft(" q1 ", " Clarity ", 4, sentences=("Clear.",)), Draft(" q1 ", OVERALL, 4)],
    )
    with serve(tmp_path) as base:
        parts = urllib.parse.urlsplit(base)
        server = (parts.hostname or "", parts.port or 0, tmp_path)
        assert request(server, "POST", "/signin", {"annotator": "alice"}, cookie=None)[0] == 303
        status, page, _ = request(server, "GET", "/item?id=%20q1%20")
        assert status == 200 and 'name="item" value=" q1 "' in page and 'value=" Clarity "' in page
        sent = [
            ("/item/sentence", {"item": " q1 ", "criterion": " Clarity ", "action": "pass", "sentence": "0"}),
            ("/item/score", {"item": " q1 ", "criterion": " Clarity ", "score": "2"}),
            ("/item/score", {"item": " q1 ", "criterion": "", "score": "3"}),
        ]
        for path, form in sent:
            status, text, _ = request(server, "POST", path, form)
            assert status == 303, text
    assert store.scores() == {(" q1 ", " Clarity ", "alice"): 2.0, (" q1 ", OVERALL, "alice"): 3.0}
    assert store.is_done(" q1 ", "alice")


def test_export_and_stats_make_the_folder_they_write_to_and_name_a_file_they_cannot_write(
    tmp_path: Path,
) -> None:
    build_project(tmp_path / "p")
    out = tmp_path / "new" / "folder" / "final.jsonl"
    result = CliRunner().invoke(cli, ["review", "export", str(tmp_path / "p"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and (out.parent / "final.actions.jsonl").is_file()
    numbers = tmp_path / "stats" / "s.json"
    stats = ["review", "stats", str(tmp_path / "p"), "--resamples", "0", "--json", str(numbers)]
    assert CliRunner().invoke(cli, stats).exit_code == 0 and numbers.is_file()

    under_a_file = out / "x.jsonl"  # in a "folder" that is the file just written
    for command in (
        ["review", "export", str(tmp_path / "p"), "--out", str(under_a_file)],
        ["review", "stats", str(tmp_path / "p"), "--resamples", "0", "--markdown", str(under_a_file)],
    ):
        result = CliRunner().invoke(cli, command)
        assert isinstance(result.exception, SystemExit) and result.exit_code == 1
        assert f"{under_a_file}, but {out} is a file, not a directory" in " ".join(result.output.split())


def test_serve_prints_an_ipv6_address_as_a_url_that_opens(tmp_path: Path) -> None:
    import subprocess
    import sys
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "faceteval", "review", "serve", str(tmp_path), "--host", "::1", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = line.split(" at ")[1].split()[0]
        assert url.startswith("http://[::1]:"), line
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout:
            process.stdout.close()


def test_an_address_that_cannot_be_bound_is_refused_before_any_warning_about_it(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["review", "serve", str(tmp_path), "--host", "192.0.2.1", "--port", "0"])
    assert result.exit_code == 2 and "cannot serve on 192.0.2.1:0" in result.output
    assert "anyone who can reach it" not in result.output


def test_the_list_of_outputs_shows_each_input_and_output_under_its_own_heading(
    server: tuple[str, int, Path],
) -> None:
    status, page, _ = request(server, "GET", "/items?task=eli5")
    assert status == 200
    rows = re.findall(r"<tr>(.*?)</tr>", page, flags=re.DOTALL)
    cells = [re.findall(r"<t[hd]>(.*?)</t[hd]>", row, flags=re.DOTALL) for row in rows]
    headings, first = cells[0], cells[1]
    assert headings[1:3] == ["Input", "Output"]
    assert "How is perfume made?" in first[1]
    assert first[2] == "People squeeze flowers and keep the smell in oil."


def test_every_text_field_is_limited_to_what_the_server_takes(server: tuple[str, int, Path]) -> None:
    from faceteval.review._app import MAX_TEXT

    for path in ("/item?id=q1", "/criteria?task=eli5"):
        _, page, _ = request(server, "GET", path)
        fields = re.findall(r"<textarea[^>]*>|<input type=\"text\"[^>]*>", page)
        assert fields
        for field in fields:
            limit = re.search(r'maxlength="(\d+)"', field)
            assert limit is not None and int(limit[1]) <= MAX_TEXT, (path, field)


def test_the_list_of_outputs_pages_by_position_and_refuses_a_position_that_is_not_one(
    server: tuple[str, int, Path],
) -> None:
    status, page, _ = request(server, "GET", "/items?task=eli5")
    assert status == 200 and 'rel="next"' not in page and 'rel="prev"' not in page
    count = len(re.findall(r"<tr><td>", page))
    assert f"outputs 1-{count} of {count}" in page
    status, later, _ = request(server, "GET", "/items?task=eli5&after=0")
    assert status == 200 and 'rel="prev"' in later and "outputs 2-" in later
    status, past, _ = request(server, "GET", "/items?task=eli5&after=999999")  # a link kept too long
    assert status == 200 and 'no outputs here: <a href="/items?task=eli5">the first page</a>' in past
    status, _, _ = request(server, "GET", "/items?task=eli5&before=%C2%B2")
    assert status == 400
