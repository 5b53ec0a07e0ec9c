"""Signed sessions and invites of a review project, and the secret they are signed with."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval.review import ReviewError, ReviewStore
from faceteval.review._access import (
    SECRET,
    Session,
    Sessions,
    allowed_hosts,
    invite_url,
    new_invite,
    project_secret,
    token_hash,
)
from tests.support.review_project import build_project


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
    cookie = sessions.cookie(Session("alice"))
    assert sessions.session(cookie) == Session("alice")
    assert sessions.session("alice") is None
    assert sessions.session(Sessions("x" * 64, store, invites_only=False).cookie(Session("alice"))) is None
    assert sessions.session(sessions.cookie(Session("nobody"))) is None  # signed, but no such annotator
    assert Sessions(project_secret(store.path.parent), store, invites_only=True).session(cookie) is None


def test_an_invite_opens_a_session_until_it_is_revoked(store: ReviewStore) -> None:
    token = new_invite(store, "bob")
    assert "bob" in store.annotators()
    found = store.invited(token_hash(token))
    assert found is not None and found[1] == "bob" and store.invited(token_hash(token + "x")) is None
    sessions = Sessions(project_secret(store.path.parent), store, invites_only=True)
    cookie = sessions.cookie(Session("bob", found[0]))
    assert sessions.session(cookie) == Session("bob", found[0])
    assert sessions.session(sessions.cookie(Session("alice", found[0]))) is None  # bob's invite, not hers
    assert store.revoke_invites("bob") == 1 and store.revoke_invites("bob") == 0
    assert sessions.session(cookie) is None and store.invited(token_hash(token)) is None


def test_hosts_and_links() -> None:
    assert allowed_hosts("0.0.0.0", ("::1", "lab")) == ["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "lab"]
    assert invite_url("https://lab.example/review/", "a b") == "https://lab.example/review/invite/a%20b"
    for wrong in ("lab.example:8080", "ftp://lab", "http://lab/?x=1"):
        with pytest.raises(ReviewError, match="not the address of the app"):
            invite_url(wrong, "t")
