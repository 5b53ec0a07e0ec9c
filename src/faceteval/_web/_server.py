"""Starting a web app: a socket bound before anything is announced, then uvicorn on it."""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from faceteval.errors import ServeError

if TYPE_CHECKING:
    from starlette.types import ASGIApp

__all__ = ["ServeError", "listen", "serve", "url_of"]


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (a free port for 0) and listening.

    Raises:
        ServeError: It cannot be bound, saying why (and, for a port in use, how to choose another).
    """
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:  # a host name
        family = socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        hint = "; choose another with --port" if exc.errno == errno.EADDRINUSE else ""
        raise ServeError(f"cannot serve on {host}:{port}: {exc.strerror}{hint}") from None
    listening.listen(2048)
    return listening


def url_of(host: str, listening: socket.socket) -> str:
    """The address of the app served on ``listening``, bound to ``host`` (IPv6 in brackets).

    Examples:
        >>> with socket.socket() as s:
        ...     s.bind(("127.0.0.1", 0))
        ...     url_of("127.0.0.1", s).startswith("http://127.0.0.1:")
        True
    """
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{listening.getsockname()[1]}/"


def serve(app: ASGIApp, listening: socket.socket, *, log_config: Mapping[str, Any] | None = None) -> None:
    """Serve ``app`` on ``listening`` until Ctrl-C (or SIGTERM); uvicorn logs warnings and errors alone,
    through ``log_config`` (a `logging.config.dictConfig` mapping) when one is given."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", log_config=dict(log_config) if log_config else None)
    uvicorn.Server(config).run(sockets=[listening])
