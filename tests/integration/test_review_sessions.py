"""A review session is kept by the project: signing out ends it, and it ends after `SESSION_IDLE` unused
(or `SESSION_MAX_AGE` after it opened), however its cookie is sent again.

Requests go to a real `faceteval review serve` process, or (to set the time without waiting for it)
to the app served by uvicorn from a thread of the test, made with a clock the test moves.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2

from faceteval.review._access import SESSION_IDLE, SESSION_MAX_AGE
from faceteval.review.internal import DATABASE, create_app
from tests.integration.test_review_access import client, invite, open_invite, score_as, sign_in
from tests.support.review_project import Clock, build_project, serve, serve_app


def signed_in_as(base: str, cookie: str) -> str | None:
    """Whom the start page says ``cookie`` signs in (None: it shows the sign-in form)."""
    with client(base, cookie) as http:
        shown = re.search(r'<strong id="annotator">([^<]*)</strong>', http.get("/").text)
    return shown[1] if shown else None


def sign_out(base: str, cookie: str) -> httpx2.Response:
    """Press Sign out with ``cookie``, as a browser sends its form (empty)."""
    with client(base, cookie) as http:
        return http.post(
            "/signout", content=b"", headers={"Content-Type": "application/x-www-form-urlencoded"}
        )


def test_signing_out_ends_the_session_and_its_cookie_sent_again_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        alice = sign_in(base, "alice")
        elsewhere = sign_in(base, "alice")  # alice in another browser
        assert score_as(base, alice, "alice-1".ljust(24, "x")).status_code == 303
        signed_out = sign_out(base, alice)
        assert signed_out.status_code == 303 and 'faceteval_annotator=""' in signed_out.headers["set-cookie"]
        assert score_as(base, alice, "alice-2".ljust(24, "x")).status_code == 401  # the cookie, kept
        assert signed_in_as(base, alice) is None
        assert sign_out(base, alice).status_code == 303  # signing out again changes nothing
        assert score_as(base, elsewhere, "elsewhere-1".ljust(24, "x")).status_code == 303
    with serve(project) as base:  # the project keeps it: the next server refuses it too
        assert score_as(base, alice, "alice-3".ljust(24, "x")).status_code == 401
        assert signed_in_as(base, elsewhere) == "alice"


def test_signing_in_as_another_ends_the_session_the_browser_had(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        alice = sign_in(base, "alice")
        with client(base, alice) as http:
            bob = http.post("/signin", data={"annotator": "bob"}).cookies["faceteval_annotator"]
        assert signed_in_as(base, alice) is None and signed_in_as(base, bob) == "bob"
        assert score_as(base, alice, "alice-1".ljust(24, "x")).status_code == 401


def test_a_session_opened_with_an_invite_ends_on_signing_out_and_the_link_opens_a_new_one(
    tmp_path: Path,
) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project, "--host", "0.0.0.0") as base:
        link = invite(project, "alice", "--base-url", base)
        alice = open_invite(base, link).cookies["faceteval_annotator"]
        assert signed_in_as(base, alice) == "alice"
        assert sign_out(base, alice).status_code == 303
        assert signed_in_as(base, alice) is None
        assert score_as(base, alice, "alice-1".ljust(24, "x")).status_code == 401
        again = open_invite(base, link).cookies["faceteval_annotator"]
        assert score_as(base, again, "alice-2".ljust(24, "x")).status_code == 303


def test_review_serve_refuses_a_session_unused_for_longer_than_the_idle_time(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        alice, bob = sign_in(base, "alice"), sign_in(base, "bob")
        idle = (datetime.now(UTC) - SESSION_IDLE - timedelta(minutes=1)).isoformat(timespec="milliseconds")
        with closing(sqlite3.connect(project / DATABASE)) as db, db:  # as if 12 hours went by for alice's
            db.execute("UPDATE sessions SET seen_at = ? WHERE annotator = 'alice'", (idle,))
        assert signed_in_as(base, alice) is None
        assert score_as(base, alice, "alice-1".ljust(24, "x")).status_code == 401
        assert signed_in_as(base, bob) == "bob"


def test_a_session_ends_after_the_idle_time_unused_and_each_use_keeps_it(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    clock = Clock(datetime(2025, 3, 1, 9, 0, tzinfo=UTC))
    with serve_app(create_app(project, clock=clock)) as base:
        alice = sign_in(base, "alice")
        for _ in range(3):  # used every 11 h 59 min: still signed in 36 hours on
            clock.advance(SESSION_IDLE - timedelta(minutes=1))
            assert signed_in_as(base, alice) == "alice"
        assert score_as(base, alice, "alice-1".ljust(24, "x")).status_code == 303
        clock.advance(SESSION_IDLE - timedelta(milliseconds=1))
        bob = sign_in(base, "bob")
        assert signed_in_as(base, alice) == "alice"  # a moment before the idle time is up
        clock.advance(SESSION_IDLE)
        assert signed_in_as(base, alice) is None and signed_in_as(base, bob) is None
        assert score_as(base, alice, "alice-2".ljust(24, "x")).status_code == 401
        again = sign_in(base, "alice")
        assert signed_in_as(base, again) == "alice"


def test_a_session_ends_at_its_maximum_age_however_much_it_is_used(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    opened = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    clock = Clock(opened)
    with serve_app(create_app(project, clock=clock)) as base:
        alice = sign_in(base, "alice")
        while clock.now + timedelta(hours=11) < opened + SESSION_MAX_AGE:
            clock.advance(timedelta(hours=11))
            assert signed_in_as(base, alice) == "alice", clock.now
        clock.now = opened + SESSION_MAX_AGE - timedelta(milliseconds=1)
        assert signed_in_as(base, alice) == "alice"
        clock.now = opened + SESSION_MAX_AGE
        assert signed_in_as(base, alice) is None
        assert score_as(base, alice, "alice-1".ljust(24, "x")).status_code == 401
