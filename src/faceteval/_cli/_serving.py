"""Serving a web app from the command line (``review serve``, ``view``): the address, then the server."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import click

from faceteval._cli._console import neutral_log_config
from faceteval._web import ServeError, listen, serve

if TYPE_CHECKING:
    from starlette.types import ASGIApp


def listen_on(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (a free port for 0), or a usage error saying what is wrong."""
    try:
        return listen(host, port)
    except ServeError as exc:
        raise click.UsageError(str(exc)) from None


def serve_on(app: ASGIApp, listening: socket.socket) -> None:
    """Serve ``app`` (an ASGI app) on ``listening`` until Ctrl-C, a request's path or text logged inert."""
    import uvicorn

    serve(app, listening, log_config=neutral_log_config(uvicorn.config.LOGGING_CONFIG))
