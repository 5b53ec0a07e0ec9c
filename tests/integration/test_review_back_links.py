"""A real review server's error page links back only to a page of the app, whatever the Referer says.

An error page (an unknown item, a page needing a sign-in) offers "Back to the page you were on", built
from the request's Referer. Sent by a real `faceteval review serve` process, it is a path of the app
(one ``/``, not ``//`` or ``/\\``) of the same scheme, host and port, or there is none and the page
links the start page alone.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from pathlib import Path

import httpx2

from tests.support.review_project import build_project, serve


def back_link(base: str, referer: str) -> tuple[int, str | None]:
    """The status of the error page of an unknown item, asked for with ``referer``, and its link back."""
    with httpx2.Client(base_url=base, timeout=30) as http:  # keeps the session cookie it is given
        assert http.post("/signin", data={"annotator": "alice"}, headers={"Origin": base}).status_code == 303
        page = http.get("/item?id=nope", headers={"Referer": referer})
    assert '<a href="/">Back to the start</a>' in page.text
    back = re.findall(r'<a href="([^"]*)" id="back">', page.text)
    return page.status_code, html.unescape(back[0]) if back else None


def test_the_error_pages_link_back_is_a_path_of_this_app_or_there_is_none(tmp_path: Path) -> None:
    project = tmp_path / "review"
    build_project(project)
    with serve(project) as base:
        port = urllib.parse.urlsplit(base).port
        assert back_link(base, f"{base}/item?id=q2") == (404, "/item?id=q2")
        for referer in (
            f"{base}//evil.example/x",
            f"{base}/\\evil.example/x",
            f"{base}/\\\\evil.example",
            f"{base}\\\\evil.example/x",
            f"{base}/\t/evil.example/x",
            f"{base}/" + "x" * 6000,
            "//evil.example/x",
            "https://evil.example/x",
            "javascript:alert(1)",
            f"http://evil.example:{port}/item?id=q1",
            f"http://127.0.0.1:{port + 1}/item?id=q1",
            f"https://127.0.0.1:{port}/item?id=q1",
            f"http://localhost:{port}/item?id=q1",  # another host name of the same server: not this page's
        ):
            assert back_link(base, referer) == (404, None), referer
