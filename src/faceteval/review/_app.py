"""The review web app: a Starlette application over a project's `ReviewStore`.

Pages are rendered on the server with every model and user text escaped, and are sent with a
Content-Security-Policy that allows no script at all, so nothing in an output can run. Every action
is one small form posted to the server and stored at once; the page then reloads at the same place
(post / redirect / get), so a refresh never resends an action and never loses one.

Each form carries a token of its own, stored with its action in one transaction: a form sent twice
(a double click, or sent again after a server stopped before it answered) is stored once, and
answered as it was the first time. An action the disk has no room for is not stored at all, and
the annotator is told so (507), with the way back to where they were and a button to send it again.
A form refused for what was typed in it (a deletion without its reason, a name already taken)
stores nothing and is answered with the page it was sent from: the error beside the field, what
was typed still in the form, the page opened at it (400).

Stage 1 (the criteria) is ``_stage1.py``, stage 2 (the items) ``_stage2.py``, what they share in a
request ``_requests.py``, and the pages ``_pages.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from faceteval._web import protections, same_origin_path
from faceteval.review._access import (
    Clock,
    Session,
    Sessions,
    allowed_hosts,
    is_loopback,
    is_wildcard,
    project_secret,
    token_hash,
    utc_now,
)
from faceteval.review._forms import MAX_TEXT, field, read_form
from faceteval.review._human_labels import human_labels, label_needs
from faceteval.review._model import DiskFullError, ReviewError
from faceteval.review._pages import page
from faceteval.review._requests import COOKIE, Replayed, annotator_of
from faceteval.review._stage1 import criteria_routes
from faceteval.review._stage2 import item_routes
from faceteval.review._store import ReviewStore

__all__ = ["COOKIE", "DEFAULT_HOST", "MAX_TEXT", "NOT_INVITED", "create_app"]

DEFAULT_HOST = "127.0.0.1"
NOT_INVITED = "this invite link is not valid (revoked, or not whole): ask for a new one"


def create_app(
    project: Path, *, host: str = DEFAULT_HOST, allow_hosts: Sequence[str] = (), clock: Clock = utc_now
) -> Starlette:
    """The web app of the review project in ``project`` (which must exist), served on ``host``.

    It answers to loopback's names, ``host`` and ``allow_hosts`` (the names annotators reach it
    by) alone; bound beyond loopback, annotators sign in only with their invite links. Sessions
    expire by ``clock`` (see `faceteval.review._access.SESSION_IDLE`).
    """
    store = ReviewStore.open(project, create=False)
    sessions = Sessions(project_secret(project), store, invites_only=not is_loopback(host), clock=clock)

    async def home(request: Request) -> Response:
        annotator = annotator_of(request, sessions, required=False)
        if annotator is None:
            return page("signin.html", annotators=store.annotators(), invites_only=sessions.invites_only)
        tasks = store.tasks()
        progress = {name: store.task_progress(name) for name in store.annotators()}
        labels, settings = {label.id: label for label in human_labels(store)}, store.settings()
        needs = [label_needs(store, name, labels, settings) for name, _ in tasks]
        return page(
            "home.html", annotator=annotator, tasks=tasks, progress=progress, needs=needs, settings=settings
        )

    async def signin(request: Request) -> Response:
        form = await read_form(request)
        if sessions.invites_only:
            raise HTTPException(
                403,
                "this server can be reached from other machines, so annotators sign in with their "
                "invite links (faceteval review invite PROJECT NAME), not with a name",
            )
        try:
            name = store.add_annotator(field(form, "annotator"))
        except DiskFullError:
            raise
        except ReviewError as exc:
            raise HTTPException(400, str(exc)) from None
        return _signed_in(request, sessions, Session(name))

    async def invite_page(request: Request) -> Response:
        token = request.path_params["token"]
        found = store.invited(token_hash(token))
        if found is None:
            raise HTTPException(404, NOT_INVITED)
        return page("invite.html", invited=found[1], token=token)

    async def invite_signin(request: Request) -> Response:
        form = await read_form(request)
        found = store.invited(token_hash(field(form, "token", verbatim=True)))
        if found is None:
            raise HTTPException(404, NOT_INVITED)
        return _signed_in(request, sessions, Session(found[1], found[0]))

    async def signout(request: Request) -> Response:
        await read_form(request)
        sessions.close(request.cookies.get(COOKIE))  # the cookie, sent again, opens nothing
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    routes = [
        Route("/", home),
        Route("/signin", signin, methods=["POST"]),
        Route("/invite/{token}", invite_page),
        Route("/invite", invite_signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        *criteria_routes(store, sessions),
        *item_routes(store, sessions),
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        with store.kept_open():  # reads go on, and a write fails alone, on a full disk
            yield

    hosts = allowed_hosts(host, tuple(allow_hosts))
    handlers: dict[Any, Any] = {  # each takes its own exception type, which Starlette's types do not say
        HTTPException: _error,
        DiskFullError: _disk_full,
        ReviewError: _review_error,
        Replayed: _replayed,
    }
    return Starlette(
        routes=routes,
        middleware=protections(hosts, any_address=is_wildcard(host)),
        exception_handlers=handlers,
        lifespan=lifespan,
    )


def _signed_in(request: Request, sessions: Sessions, session: Session) -> Response:
    """Open ``session`` in place of the one the browser had (which ends), and go to the start page."""
    cookie = sessions.open(session)
    sessions.close(request.cookies.get(COOKIE))
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(COOKIE, cookie, httponly=True, samesite="strict")
    return response


async def _error(request: Request, exc: HTTPException) -> Response:
    return page("error.html", status_code=exc.status_code, message=exc.detail, back=_came_from(request))


async def _review_error(request: Request, exc: ReviewError) -> Response:
    return page("error.html", status_code=400, message=str(exc), back=_came_from(request))


async def _disk_full(request: Request, exc: DiskFullError) -> Response:
    return page("not_saved.html", status_code=507, back="/", resend=None, fields=[])


async def _replayed(request: Request, exc: Replayed) -> Response:
    return RedirectResponse(exc.location, status_code=303)


def _came_from(request: Request) -> str | None:
    """The page of this app a request came from (its path and query), when its Referer is one (same
    scheme, host and port; a path that starts with one ``/``): a link to anything else is never made."""
    return same_origin_path(request.headers.get("referer"), request.url.scheme, request.headers.get("host"))
