"""Who the review server answers: its own host names only, signed sessions, invite links beyond loopback.

Every request goes to a real `faceteval review serve` process on this machine (127.0.0.1).
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import httpx2
from click.testing import CliRunner
from itsdangerous import URLSafeSerializer

from faceteval._cli._app import cli
from faceteval.review import ReviewStore
from tests.support.review_project import build_project, serve

SCORE = {"item": "q1", "criterion": "Clarity", "score": "3"}


def client(base: str, cookie: str | None = None, **headers: str) -> httpx2.Client:
    """A client of the server at ``base`` that posts as a page of it does (its Origin), with the
    session ``cookie`` if one is given."""
    sent = {"Origin": base, **({"Cookie": f"faceteval_annotator={cookie}"} if cookie else {}), **headers}
    return httpx2.Client(base_url=base, headers=sent, timeout=30)


def sign_in(base: str, name: str) -> str:
    """Sign ``name`` in with the name form (loopback); the session cookie's value."""
    with client(base) as http:
        response = http.post("/signin", data={"annotator": name})
    assert response.status_code == 303, response.text
    return response.cookies["faceteval_annotator"]


def score_as(base: str, cookie: str, token: str) -> httpx2.Response:
    with client(base, cookie) as http:
        return http.post("/item/score", data={**SCORE, "form_token": token})


def signed(secret: str, name: str) -> str:
    """A session cookie of ``name`` as the server makes one, but signed with ``secret``."""
    serializer = URLSafeSerializer(secret, salt="faceteval.review.session")
    return str(serializer.dumps({"annotator": name, "invite": None}))


def forged(cookie: str, name: str) -> str:
    """``cookie`` with its payload made to name ``name``, its signature kept."""
    return signed("0" * 64, name).rsplit(".", 1)[0] + "." + cookie.rsplit(".", 1)[1]


def test_a_page_of_another_site_rebound_to_this_address_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        port = urllib.parse.urlsplit(base).port
        evil = f"evil.example:{port}"
        with client(base, Host=evil, Origin=f"http://{evil}") as http:
            assert http.post("/signin", data={"annotator": "mallory"}).status_code == 400
            assert http.get("/").status_code == 400
            assert http.get("/item?id=q1").status_code == 400
        for name in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}", "LOCALHOST"):
            with client(base, Host=name) as http:
                assert http.get("/").status_code == 200, name
    assert "mallory" not in ReviewStore.open(project, create=False).annotators()


def test_a_server_on_every_address_answers_ip_addresses_and_the_names_it_is_given(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project, "--host", "0.0.0.0", "--allow-host", "Review.Lab.example") as base:
        port = urllib.parse.urlsplit(base).port
        for name, status in (
            (f"192.0.2.7:{port}", 200),  # an address of the machine: no name to rebind
            (f"[2001:db8::7]:{port}", 200),
            (f"review.lab.example:{port}", 200),
            (f"evil.example:{port}", 400),
            (f"192.0.2.7.evil.example:{port}", 400),
        ):
            with client(base, Host=name) as http:
                assert http.get("/").status_code == status, name


def test_a_session_cookie_cannot_be_made_up_or_altered(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        sign_in(base, "alice")
        bob = sign_in(base, "bob")

        def refused(cookie: str) -> None:
            response = score_as(base, cookie, f"refused-{cookie}"[:80].ljust(24, "x"))
            assert response.status_code == 401, (cookie, response.text)
            with client(base, cookie) as http:
                assert "Signed in as" not in http.get("/").text

        refused("alice")  # the name alone
        refused(forged(bob, "alice"))  # bob's, made to name alice
        refused(signed("1" * 64, "alice"))  # signed with a secret of its own
        payload, signature = bob.rsplit(".", 1)  # a byte of the signature changed (not base64's last bits)
        refused(f"{payload}.{'B' if signature[0] == 'A' else 'A'}{signature[1:]}")
        assert score_as(base, bob, "accepted".ljust(24, "x")).status_code == 303
    assert ReviewStore.open(project, create=False).scores() == {("q1", "Clarity", "bob"): 3.0}
    assert (project / "session.key").stat().st_mode & 0o777 == 0o600


def invite(project: Path, name: str, *options: str) -> str:
    result = CliRunner().invoke(cli, ["review", "invite", str(project), name, *options])
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


def open_invite(base: str, url: str) -> httpx2.Response:
    """Open an invite link and press its button, as a browser does; the answer to the button."""
    assert url.startswith(base + "/invite/"), url
    with client(base) as http:
        page = http.get(url.removeprefix(base))
        if page.status_code != 200:
            return page
        token = url.rsplit("/", 1)[1]
        return http.post("/invite", data={"token": urllib.parse.unquote(token)})


def test_beyond_loopback_annotators_sign_in_only_with_their_own_invite_links(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        by_name = sign_in(base, "alice")  # on loopback, with her name alone
    with serve(project, "--host", "0.0.0.0") as base:
        with client(base) as http:
            refused = http.post("/signin", data={"annotator": "alice"})
            assert refused.status_code == 403 and "invite link" in refused.text
            assert "invite link" in http.get("/").text and 'name="annotator"' not in http.get("/").text
        assert score_as(base, by_name, "by-name".ljust(24, "x")).status_code == 401

        alices_link = invite(project, "alice", "--base-url", base + "/")
        accepted = open_invite(base, alices_link)
        assert accepted.status_code == 303
        alice = accepted.cookies["faceteval_annotator"]
        with client(base, alice) as http:
            assert '<strong id="annotator">alice</strong>' in http.get("/").text
        assert score_as(base, alice, "alice-1".ljust(24, "x")).status_code == 303

        bob = open_invite(base, invite(project, "bob", "--base-url", base)).cookies["faceteval_annotator"]
        assert score_as(base, forged(bob, "alice"), "bob-as-alice".ljust(24, "x")).status_code == 401
        mistyped = open_invite(base, alices_link[:-3] + "xyz")
        assert mistyped.status_code == 404 and "not valid" in mistyped.text

        revoked = CliRunner().invoke(cli, ["review", "invite", str(project), "alice", "--revoke"])
        assert revoked.exit_code == 0 and "Revoked 1 invite link" in revoked.output
        assert score_as(base, alice, "alice-2".ljust(24, "x")).status_code == 401
        assert open_invite(base, alices_link).status_code == 404
        assert score_as(base, bob, "bob-1".ljust(24, "x")).status_code == 303
    assert ReviewStore.open(project, create=False).scores() == {
        ("q1", "Clarity", "alice"): 3.0,
        ("q1", "Clarity", "bob"): 3.0,
    }


def test_invite_prints_a_link_to_the_host_and_port_it_is_given(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    link = invite(project, "carol", "--host", "::1", "--port", "9000")
    assert link.startswith("http://[::1]:9000/invite/") and len(link.rsplit("/", 1)[1]) >= 40
    every = CliRunner().invoke(cli, ["review", "invite", str(project), "carol", "--host", "0.0.0.0"])
    assert every.exit_code == 2 and "--base-url" in every.output
    bad = CliRunner().invoke(cli, ["review", "invite", str(project), "carol", "--base-url", "lab:80"])
    assert bad.exit_code == 1 and "not the address of the app" in bad.output
    # Only a hash of each token is kept: the project holds no link.
    token = link.rsplit("/", 1)[1].encode()
    assert not any(token in kept.read_bytes() for kept in project.iterdir())
