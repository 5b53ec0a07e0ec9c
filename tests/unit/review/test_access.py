"""Signed sessions and invites of a review project, and the secret they are signed with."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from itsdangerous import URLSafeSerializer

from faceteval.review import ReviewError, ReviewStore
from faceteval.review._access import (
    SECRET,
    SESSION_IDLE,
    SESSION_MAX_AGE,
    SESSION_SEEN_EVERY,
    Session,
    Sessions,
    allowed_hosts,
    invite_url,
    new_invite,
    project_secret,
    token_hash,
)
from faceteval.review._schema import SCHEMA_VERSION
from tests.support.review_project import Clock, build_project


@pytest.fixture
def store(tmp_path: Path) -> ReviewStore:
    built = build_project(tmp_path / "review")
    built.add_annotator("alice")
    return built


def test_the_secret_is_made_once_readable_by_its_owner_alone(store: ReviewStore) -> None:
    project = store.path.parent
    secret = project_secret(project)
    assert len(secret) == 64 and project_secret(project) == secret
    assert (project / SECRET).stat().st_mode & 0o777 == 0o600
    assert [p.name for p in project.iterdir() if p.name.startswith(".session-")] == []  # no leftovers
    (project / SECRET).write_text("short\n", encoding="ascii")
    with pytest.raises(ReviewError, match="not a secret this project made"):
        project_secret(project)


def test_a_cookie_opens_its_own_session_only(store: ReviewStore) -> None:
    sessions = Sessions(project_secret(store.path.parent), store, invites_only=False)
    cookie = sessions.open(Session("alice"))
    assert sessions.session(cookie) == Session("alice")
    assert sessions.session("alice") is None
    elsewhere = Sessions("x" * 64, store, invites_only=False)
    assert sessions.session(elsewhere.open(Session("alice"))) is None  # signed with another secret
    with pytest.raises(ReviewError, match="no annotator 'nobody'"):
        sessions.open(Session("nobody"))
    assert Sessions(project_secret(store.path.parent), store, invites_only=True).session(cookie) is None
    before = URLSafeSerializer(project_secret(store.path.parent), salt="faceteval.review.session")
    assert sessions.session(before.dumps({"annotator": "alice", "invite": None})) is None  # no session kept


def test_a_session_closed_is_refused_and_the_others_stay_open(store: ReviewStore) -> None:
    sessions = Sessions(project_secret(store.path.parent), store, invites_only=False)
    first, second = sessions.open(Session("alice")), sessions.open(Session("alice"))
    sessions.close(first)
    assert sessions.session(first) is None and sessions.session(second) == Session("alice")
    sessions.close(first)  # again: nothing to end
    sessions.close("forged")
    sessions.close(None)
    assert sessions.session(second) == Session("alice")
    assert not any(first.encode() in kept.read_bytes() for kept in store.path.parent.iterdir())


def test_an_invite_opens_a_session_until_it_is_revoked(store: ReviewStore) -> None:
    token = new_invite(store, "bob")
    assert "bob" in store.annotators()
    found = store.invited(token_hash(token))
    assert found is not None and found[1] == "bob" and store.invited(token_hash(token + "x")) is None
    sessions = Sessions(project_secret(store.path.parent), store, invites_only=True)
    cookie = sessions.open(Session("bob", found[0]))
    assert sessions.session(cookie) == Session("bob", found[0])
    assert sessions.session(sessions.open(Session("alice", found[0]))) is None  # bob's invite, not hers
    assert store.revoke_invites("bob") == 1 and store.revoke_invites("bob") == 0
    assert sessions.session(cookie) is None and store.invited(token_hash(token)) is None


OPENED = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def test_a_session_ends_unused_for_the_idle_time_counted_from_its_last_use_kept(store: ReviewStore) -> None:
    clock = Clock(OPENED)
    sessions = Sessions(project_secret(store.path.parent), store, invites_only=False, clock=clock)
    cookie = sessions.open(Session("alice"))
    clock.advance(SESSION_SEEN_EVERY - timedelta(milliseconds=1))
    assert sessions.session(cookie) == Session("alice")  # a use this soon after is not kept...
    clock.now = OPENED + SESSION_IDLE
    assert sessions.session(cookie) is None  # ...so the idle time runs from the opening
    other = sessions.open(Session("alice"))
    clock.advance(SESSION_SEEN_EVERY)
    assert sessions.session(other) == Session("alice")  # kept: the idle time runs from here
    clock.advance(SESSION_IDLE - timedelta(milliseconds=1))
    assert sessions.session(other) == Session("alice")
    clock.advance(SESSION_IDLE)
    assert sessions.session(other) is None


def test_opening_a_session_removes_those_that_ended_by_time(store: ReviewStore) -> None:
    clock = Clock(OPENED)
    sessions = Sessions(project_secret(store.path.parent), store, invites_only=False, clock=clock)
    idle, used = sessions.open(Session("alice")), sessions.open(Session("alice"))
    for _ in range(int(SESSION_MAX_AGE / SESSION_IDLE)):
        clock.advance(SESSION_IDLE - SESSION_SEEN_EVERY)
        assert sessions.session(used) == Session("alice")
    clock.advance(SESSION_IDLE)
    sessions.open(Session("alice"))
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT COUNT(*) FROM sessions").fetchone() == (1,)
    assert sessions.session(idle) is None and sessions.session(used) is None


def test_hosts_and_links() -> None:
    assert allowed_hosts("0.0.0.0", ("::1", "lab")) == ["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "lab"]
    assert invite_url("https://lab.example/review/", "a b") == "https://lab.example/review/invite/a%20b"
    for wrong in ("lab.example:8080", "ftp://lab", "http://lab/?x=1"):
        with pytest.raises(ReviewError, match="not the address of the app"):
            invite_url(wrong, "t")


def test_a_version_6_project_keeps_sessions_once_opened_and_sessions_before_it_sign_in_again(
    store: ReviewStore,
) -> None:
    store.set_score("q1", "Clarity", "alice", 4)
    with sqlite3.connect(store.path) as db:  # as version 6 wrote it: sessions lived in cookies alone
        db.execute("DROP TABLE sessions")
        db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    old_cookie = URLSafeSerializer(project_secret(store.path.parent), salt="faceteval.review.session").dumps(
        {"annotator": "alice", "invite": None}
    )
    again = ReviewStore.open(store.path.parent, create=False)
    assert again.scores() == {("q1", "Clarity", "alice"): 4.0}
    sessions = Sessions(project_secret(store.path.parent), again, invites_only=False)
    assert sessions.session(old_cookie) is None
    assert sessions.session(sessions.open(Session("alice"))) == Session("alice")
    with sqlite3.connect(store.path) as db:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert version == (str(SCHEMA_VERSION),)
