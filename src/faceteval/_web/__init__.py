"""What faceteval's web apps (the review app, the run viewer) share: the protections every request
passes (Host check, origin check, size limits, security headers with a Content-Security-Policy that
allows no script), the names a server answers to, links back to where a request came from (a page
of the app alone), the pages' Jinja environment, and starting a server.

Names are imported on first use, so asking which names a server answers to loads no web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:
    from faceteval._web._hosts import LOOPBACK_HOSTS, allowed_hosts, is_loopback, is_wildcard
    from faceteval._web._links import MAX_LINK, same_origin_path
    from faceteval._web._middleware import (
        MAX_BODY,
        SECURITY_HEADERS,
        BodyLimit,
        HostCheck,
        guard,
        protections,
    )
    from faceteval._web._server import ServeError, listen, serve, url_of
    from faceteval._web._templates import page_templates

_LAZY = {
    "_hosts": ("LOOPBACK_HOSTS", "allowed_hosts", "is_loopback", "is_wildcard"),
    "_links": ("MAX_LINK", "same_origin_path"),
    "_middleware": ("MAX_BODY", "SECURITY_HEADERS", "BodyLimit", "HostCheck", "guard", "protections"),
    "_server": ("ServeError", "listen", "serve", "url_of"),
    "_templates": ("page_templates",),
}

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_BODY",
    "MAX_LINK",
    "SECURITY_HEADERS",
    "BodyLimit",
    "HostCheck",
    "ServeError",
    "allowed_hosts",
    "guard",
    "is_loopback",
    "is_wildcard",
    "listen",
    "page_templates",
    "protections",
    "same_origin_path",
    "serve",
    "url_of",
]

__getattr__ = lazy_attributes(__name__, _LAZY)
