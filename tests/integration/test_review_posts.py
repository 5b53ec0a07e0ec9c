"""A form sent again is stored once; an action the disk has no room for is refused alone, and said so.

Forms are taken from the pages a real `faceteval review serve` process renders, and sent as a
browser sends them.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2

from faceteval.review import ReviewStore
from tests.support.review_project import Form, build_project, page_forms, serve, serving

ADDED = "It never says where the oil comes from."
ADDED_SENTENCE = '<div class="sentence add">'
"""How a page shows a sentence the annotator added."""


@contextmanager
def session(base: str, name: str = "alice") -> Iterator[httpx2.Client]:
    """A client signed in as ``name`` through the sign-in form, sending the Origin a page does."""
    with httpx2.Client(base_url=base, headers={"Origin": base}, timeout=30) as http:
        assert http.post("/signin", data={"annotator": name}).status_code == 303
        yield http


def signed_in(base: str, cookie: str) -> httpx2.Client:
    """A client sending the session ``cookie`` (a Cookie header) to the server at ``base``."""
    return httpx2.Client(base_url=base, headers={"Origin": base, "Cookie": cookie}, timeout=30)


def add_form(http: httpx2.Client, text: str = ADDED) -> Form:
    """The form adding a sentence to q1's Clarity, filled in."""
    page = http.get("/item?id=q1")
    assert page.status_code == 200, page.text
    form = next(f for f in page_forms(page.text) if f.fields.get("action") == "add")
    assert form.fields["criterion"] == "Clarity"
    return Form(form.action, {**form.fields, "text": text})


def added(project: Path) -> list[str]:
    store = ReviewStore.open(project, create=False)
    return [a["text"] for a in store.sentence_actions() if a["action"] == "add"]


def test_a_form_sent_twice_is_stored_once_and_answered_alike(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base, session(base) as http:
        form = add_form(http)
        first = http.post(form.action, data=form.fields)
        again = http.post(form.action, data=form.fields)
        assert first.status_code == again.status_code == 303
        assert again.headers["location"] == first.headers["location"]
        assert first.headers["location"].startswith("/item?id=q1#k-")
        other = add_form(http, "A second sentence, from a form of its own.")
        assert http.post(other.action, data=other.fields).status_code == 303
    assert added(project) == [ADDED, "A second sentence, from a form of its own."]


def send_unanswered(base: str, path: str, fields: dict[str, str], cookie: str) -> socket.socket:
    """POST a form and read nothing back: the socket, to close once the server is gone."""
    parts = urllib.parse.urlsplit(base)
    body = urllib.parse.urlencode(fields).encode()
    connection = socket.create_connection((parts.hostname, parts.port), timeout=30)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nOrigin: {base}\r\nCookie: {cookie}\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    connection.sendall(head.encode() + body)
    return connection


def test_an_action_stored_but_never_answered_is_not_stored_again_when_sent_again(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serving(project) as (base, process), session(base) as http:
        form = add_form(http)
        cookie = f"faceteval_annotator={http.cookies['faceteval_annotator']}"
        unanswered = send_unanswered(base, form.action, form.fields, cookie)
        deadline = time.monotonic() + 60
        while added(project) != [ADDED]:
            assert time.monotonic() < deadline, "the action was never stored"
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)  # before the browser read the answer
        process.wait(timeout=30)
        unanswered.close()
    with serve(project) as base, signed_in(base, cookie) as http:  # the browser sends it again
        again = http.post(form.action, data=form.fields)
        assert again.status_code == 303, again.text
        assert again.headers["location"].startswith("/item?id=q1#k-")
        assert http.get("/item?id=q1").text.count(ADDED_SENTENCE) == 1
    assert added(project) == [ADDED]


MOUNT = 'mount -t tmpfs -o size=1m tmpfs "$1" && cp -a "$2"/. "$1"/ && shift 2 && exec "$@"'
"""Run by ``unshare -rm sh -c``: the project copied onto a tmpfs of 1 MiB of its own, then the server."""


def fill(directory: Path) -> None:
    """Write into ``directory`` until its disk is full."""
    written = subprocess.run(
        ["dd", "if=/dev/zero", f"of={directory / 'filler'}", "bs=4096"], capture_output=True, text=True
    )
    assert "No space left on device" in written.stderr, written.stderr


def test_on_a_full_disk_an_action_is_refused_alone_with_the_way_back_and_then_stored_once(
    tmp_path: Path,
) -> None:
    source, disk = tmp_path / "source", tmp_path / "disk"
    build_project(source)
    disk.mkdir()
    unshared = ["unshare", "-rm", "sh", "-c", MOUNT, "sh", str(disk), str(source)]
    with serving(disk, wrapper=unshared) as (base, process), session(base) as http:
        inside = Path(f"/proc/{process.pid}/root") / disk.relative_to("/")  # the server's view of it
        usage = os.statvfs(inside)
        assert usage.f_blocks * usage.f_frsize <= 1024 * 1024, "the project is not on the small tmpfs"
        score = next(f for f in page_forms(http.get("/item?id=q1").text) if f.action == "/item/score")
        assert http.post("/item/score", data={**score.fields, "score": "3"}).status_code == 303
        fill(inside)

        form = add_form(http, "A long sentence. " * 900)  # more than any room left in SQLite's log
        refused = http.post(form.action, data=form.fields)
        assert refused.status_code == 507, refused.text
        assert "was not saved" in refused.text and "disk" in refused.text
        (resend,) = page_forms(refused.text)
        assert resend.action == "/item/sentence" and resend.fields == form.fields
        back = refused.text.split('id="back"')[0].rsplit('href="', 1)[1].split('"')[0]
        assert back.startswith("/item?id=q1#k-")
        kept = http.get("/item?id=q1")  # everything before is there, and can be read
        assert kept.status_code == 200 and "saved: 3" in kept.text

        (inside / "filler").unlink()
        assert http.post(resend.action, data=resend.fields).headers["location"] == back
        assert http.post(resend.action, data=resend.fields).headers["location"] == back
        page = http.get("/item?id=q1").text
        assert page.count(ADDED_SENTENCE) == 1 and "saved: 3" in page
