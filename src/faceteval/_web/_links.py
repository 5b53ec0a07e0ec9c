"""Links a page makes from what a request says of where it came from: only to a page of the same app.

A browser reads a link that starts with ``//`` (or ``/\\``: it takes a backslash for a slash, and
drops tabs and line breaks) as the address of another host, so a Referer of this very server whose
path is ``//evil.example/x`` would give a link off the site. Only a path of the app itself is kept.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

__all__ = ["MAX_LINK", "same_origin_path"]

MAX_LINK = 2048
"""The longest Referer a link is made from (the app's own addresses are far shorter)."""
_PLAIN = re.compile(r"[!-\[\]-~]+")
"""Printable ASCII but the backslash: no space, tab, line break, control or other character."""


def same_origin_path(referer: str | None, scheme: str, host: str | None) -> str | None:
    """The path and query of ``referer`` when it is an address of the origin ``scheme://host`` (its
    ``Host``) with a path that starts with one ``/``; None for anything else.

    Examples:
        >>> same_origin_path("http://127.0.0.1:8080/item?id=q1", "http", "127.0.0.1:8080")
        '/item?id=q1'
        >>> same_origin_path("http://127.0.0.1:8080//evil.example/x", "http", "127.0.0.1:8080") is None
        True
    """
    if not referer or not host or len(referer) > MAX_LINK or not _PLAIN.fullmatch(referer):
        return None
    try:
        parts = urlsplit(referer)
    except ValueError:  # a malformed IPv6 host
        return None
    if parts.scheme.lower() != scheme.lower() or parts.netloc.lower() != host.lower():
        return None
    if not parts.path.startswith("/") or parts.path.startswith("//"):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")
