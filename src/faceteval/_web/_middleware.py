"""What every request to faceteval's web apps passes: the Host check, the origin check, the size limits.

The Host check is Starlette's `TrustedHostMiddleware` over the names the server was bound to: a page
of another site whose name was rebound to this machine's address (DNS rebinding) sends its own name
as the Host, and is refused before anything else runs.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["MAX_BODY", "SECURITY_HEADERS", "BodyLimit", "HostCheck", "guard", "protections"]

MAX_BODY = 256 * 1024
"""Largest request body accepted (a form of a few sentences is far smaller)."""
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class HostCheck(TrustedHostMiddleware):
    """`TrustedHostMiddleware` (any port; IPv6 in brackets), which on a server listening on every
    address (``any_address``) also lets an IP address through: no name can be rebound in one."""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str], *, any_address: bool = False) -> None:
        super().__init__(app, allowed_hosts=allowed_hosts, www_redirect=False)
        self.any_address = any_address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.any_address and scope["type"] == "http" and _ip_address(Headers(scope=scope).get("host")):
            await self.app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def _ip_address(host: str | None) -> bool:
    """Whether the Host header ``host`` is an IP address (with or without a port)."""
    try:
        parts = urlsplit(f"//{host}")
        _ = parts.port  # a malformed port raises
        ipaddress.ip_address(parts.hostname or "")
    except ValueError:
        return False
    return parts.netloc == host


async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """Refuse oversized and cross-site requests; add the security headers to every response."""
    if request.method not in ("GET", "HEAD", "POST"):
        response: Response = PlainTextResponse("method not allowed", status_code=405)
    elif request.method == "POST" and not _same_origin(request):
        response = PlainTextResponse("cross-site request refused", status_code=403)
    elif int(request.headers.get("content-length") or 0) > MAX_BODY:
        response = PlainTextResponse("request too large", status_code=413)
    else:
        response = await call_next(request)
    for header, value in SECURITY_HEADERS.items():
        response.headers.setdefault(header, value)
    return response


class BodyLimit:
    """Refuse a body over `MAX_BODY` as it arrives, however it is sent (`guard` checks Content-Length)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > MAX_BODY:
                raise HTTPException(413, "request too large")
            return message

        await self.app(scope, limited, send)


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.headers.get("host")


def protections(hosts: Sequence[str], *, any_address: bool = False) -> list[Middleware]:
    """The middleware every app serves behind: `guard` (methods, origin, size, security headers), the
    Host check over ``hosts`` (see `HostCheck` for ``any_address``) and `BodyLimit`."""
    return [
        Middleware(BaseHTTPMiddleware, dispatch=guard),
        Middleware(HostCheck, allowed_hosts=hosts, any_address=any_address),
        Middleware(BodyLimit),
    ]
