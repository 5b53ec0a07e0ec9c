"""The error page's link back is to a page of the app itself, whatever the request's Referer says."""

from __future__ import annotations

import pytest

from faceteval._web import same_origin_path

ORIGIN = ("http", "127.0.0.1:8080")
HERE = "http://127.0.0.1:8080"


@pytest.mark.parametrize(
    ("referer", "back"),
    [
        (f"{HERE}/item?id=q1&task=eli5", "/item?id=q1&task=eli5"),
        (f"{HERE}/", "/"),
        (f"{HERE}/criteria?task=eli5#c2", "/criteria?task=eli5"),  # a fragment is not sent; dropped if it is
        (f"{HERE}/item?id=%2F%2Fevil.example", "/item?id=%2F%2Fevil.example"),
        ("HTTP://127.0.0.1:8080/items?task=eli5", "/items?task=eli5"),
    ],
)
def test_a_page_of_this_app_is_linked_by_its_path_and_query(referer: str, back: str) -> None:
    assert same_origin_path(referer, *ORIGIN) == back


@pytest.mark.parametrize(
    "referer",
    [
        f"{HERE}//evil.example/x",  # a path a browser reads as another host
        f"{HERE}///evil.example/x",
        f"{HERE}/\\evil.example/x",  # a browser reads a backslash as a slash
        f"{HERE}/\\\\evil.example",
        f"{HERE}\\\\evil.example/x",
        f"{HERE}/item\\..\\..\\/evil.example",
        f"{HERE}/\t/evil.example/x",  # a browser drops tabs and line breaks from a link
        f"{HERE}/\n/evil.example/x",
        f"{HERE}/\r\n/evil.example",
        f"{HERE}/item?id=q1\x00",
        f"{HERE}/item?id=q1\x7f",
        f"{HERE}/caf\u00e9",
        f"{HERE}/item?id=\u202eq1",
        f" {HERE}/item",
        f"{HERE}/item id",
        f"{HERE}/" + "a" * 5000,  # too long to be a page of the app
        "//evil.example/x",
        "/\\evil.example/x",
        "\\\\evil.example/x",
        "/item?id=q1",  # a path alone: no origin to check
        "https://evil.example/x",
        "javascript:alert(1)",
        "JavaScript://127.0.0.1:8080/%0aalert(1)",
        "data:text/html,<script>alert(1)</script>",
        "http://evil.example:8080/item?id=q1",  # another host
        "http://127.0.0.1:8081/item?id=q1",  # another port
        "http://127.0.0.1/item?id=q1",
        "https://127.0.0.1:8080/item?id=q1",  # another scheme
        "http://alice@127.0.0.1:8080/item",
        "http://127.0.0.1:8080@evil.example/item",
        "http://[::1/item",
        "http://127.0.0.1:8080",  # no path
        "http://127.0.0.1:8080?x=1",
        "",
        None,
    ],
)
def test_anything_else_gets_no_link_back(referer: str | None) -> None:
    assert same_origin_path(referer, *ORIGIN) is None


def test_without_a_host_there_is_no_origin_to_match() -> None:
    assert same_origin_path(f"{HERE}/item", "http", None) is None
    assert same_origin_path("http://[::1]:8080/item?id=q1", "http", "[::1]:8080") == "/item?id=q1"
    assert same_origin_path("http://LOCALHOST:8080/item", "http", "localhost:8080") == "/item"
