"""The review web app: a Starlette application over a project's `ReviewStore`.

Pages are rendered on the server with every model and user text escaped, and are sent with a
Content-Security-Policy that allows no script at all, so nothing in an output can run. Every action
is one small form posted to the server and stored at once; the page then reloads at the same place
(post / redirect / get), so a refresh never resends an action and never loses one.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from faceteval.parsing._numbers import fmt
from faceteval.review._store import (
    CRITERION_ACTIONS,
    OVERALL,
    SENTENCE_ACTIONS,
    CriterionView,
    ReviewError,
    ReviewStore,
    finished,
)

COOKIE = "faceteval_annotator"
MAX_BODY = 256 * 1024
"""Largest request body accepted (a form of a few sentences is far smaller)."""
MAX_TEXT = 20_000
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

_templates = Environment(
    loader=PackageLoader("faceteval.review", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def create_app(project: Path) -> Starlette:
    """The web app of the review project in ``project`` (which must exist)."""
    store = ReviewStore.open(project, create=False)

    async def home(request: Request) -> Response:
        annotator = _annotator(request, store, required=False)
        if annotator is None:
            return _page("signin.html", annotators=store.annotators())
        tasks = store.tasks()
        progress = {name: store.task_progress(name) for name in store.annotators()}
        return _page("home.html", annotator=annotator, tasks=tasks, progress=progress)

    async def signin(request: Request) -> Response:
        form = await _form(request)
        try:
            name = store.add_annotator(_field(form, "annotator"))
        except ReviewError as exc:
            raise HTTPException(400, str(exc)) from None
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, quote(name), httponly=True, samesite="strict")
        return response

    async def signout(request: Request) -> Response:
        await _form(request)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    async def criteria_page(request: Request) -> Response:
        annotator = _annotator(request, store)
        task = _task(request, store)
        rows = store.reviewed_criteria(task, annotator)
        return _page("criteria.html", annotator=annotator, task=task, rows=rows, actions=CRITERION_ACTIONS)

    async def criteria_action(request: Request) -> Response:
        task = _task(request, store)
        annotator, form = await _signed_form(request, store)
        action = _choice(form, "action", CRITERION_ACTIONS)
        criterion_id = None if action == "add" else _integer(form, "criterion")
        try:
            store.record_criterion_action(
                task,
                annotator,
                action,  # type: ignore[arg-type]
                criterion_id=criterion_id,
                name=_field(form, "name", required=False),
                description=_field(form, "description", required=False),
                reason=_field(form, "reason", required=action != "approve"),
            )
        except ReviewError as exc:
            raise HTTPException(400, str(exc)) from None
        anchor = f"#c{criterion_id}" if criterion_id is not None else "#add"
        return RedirectResponse(f"/criteria?task={quote(task)}{anchor}", status_code=303)

    async def items_page(request: Request) -> Response:
        annotator = _annotator(request, store)
        task = _task(request, store)
        done = store.done_items(annotator)
        items = [(item, item.id in done) for item in store.items(task)]
        return _page("items.html", annotator=annotator, task=task, items=items)

    async def item_page(request: Request) -> Response:
        annotator = _annotator(request, store)
        item = _item(request.query_params.get("id"), store)
        views, overall = store.item_view(item.id, annotator)
        siblings = [other.id for other in store.items(item.task)]
        index = siblings.index(item.id)
        return _page(
            "item.html",
            annotator=annotator,
            item=item,
            views=views,
            overall=overall,
            overall_draft=next((d for d in store.drafts(item.id) if d.criterion == OVERALL), None),
            previous=siblings[index - 1] if index > 0 else None,
            next=siblings[index + 1] if index + 1 < len(siblings) else None,
            position=(index + 1, len(siblings)),
            done=finished(views, overall),
            scale_values=_scale_values,
            overall_scale=store.task_scale(item.task),
        )

    async def sentence_action(request: Request) -> Response:
        annotator, form = await _signed_form(request, store)
        item = _item(_field(form, "item", verbatim=True), store)
        criterion = _criterion(form, store, item.id, annotator).name
        action = _choice(form, "action", SENTENCE_ACTIONS)
        sentence = None if action == "add" else _integer(form, "sentence")
        try:
            store.record_sentence_action(
                item.id,
                criterion,
                annotator,
                action,  # type: ignore[arg-type]
                sentence=sentence,
                text=_field(form, "text", required=action in ("revise", "add")),
            )
        except ReviewError as exc:
            raise HTTPException(400, str(exc)) from None
        return _back_to(item.id, criterion)

    async def score_action(request: Request) -> Response:
        annotator, form = await _signed_form(request, store)
        item = _item(_field(form, "item", verbatim=True), store)
        criterion = _field(form, "criterion", required=False, verbatim=True) or OVERALL
        if criterion != OVERALL:
            view = _criterion(form, store, item.id, annotator)
            criterion, (low, high) = view.name, view.scale
        else:
            low, high = store.task_scale(item.task)
        score = _number(form, "score")
        if not low <= score <= high:
            raise HTTPException(400, f"score must be between {low:g} and {high:g}")
        store.set_score(item.id, criterion, annotator, score)
        return _back_to(item.id, criterion)

    async def approve_action(request: Request) -> Response:
        """Pass every sentence not acted on yet and keep the LLM's score: the criterion as drafted."""
        annotator, form = await _signed_form(request, store)
        item = _item(_field(form, "item", verbatim=True), store)
        view = _criterion(form, store, item.id, annotator)
        criterion = view.name
        for sentence in view.sentences:
            if sentence.action is None and sentence.index is not None:
                store.record_sentence_action(item.id, criterion, annotator, "pass", sentence=sentence.index)
        if view.score is None:
            if view.draft is None or view.draft.score is None:
                raise HTTPException(400, "there is no LLM score to approve: give a score")
            store.set_score(item.id, criterion, annotator, view.draft.score)
        return _back_to(item.id, criterion)

    routes = [
        Route("/", home),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/criteria", criteria_page),
        Route("/criteria", criteria_action, methods=["POST"]),
        Route("/items", items_page),
        Route("/item", item_page),
        Route("/item/sentence", sentence_action, methods=["POST"]),
        Route("/item/score", score_action, methods=["POST"]),
        Route("/item/approve", approve_action, methods=["POST"]),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(BaseHTTPMiddleware, dispatch=_guard), Middleware(_BodyLimit)],
        exception_handlers={HTTPException: _error, ReviewError: _review_error},  # type: ignore[dict-item]
    )


async def _guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
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


class _BodyLimit:
    """Refuse a body over `MAX_BODY` as it arrives, however it is sent (`_guard` checks Content-Length)."""

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


async def _error(request: Request, exc: HTTPException) -> Response:
    return _page("error.html", status_code=exc.status_code, message=exc.detail)


async def _review_error(request: Request, exc: ReviewError) -> Response:
    return _page("error.html", status_code=400, message=str(exc))


def _page(template: str, *, status_code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(template).render(**context), status_code=status_code)


def _annotator(request: Request, store: ReviewStore, *, required: bool = True) -> Any:
    from urllib.parse import unquote

    name = unquote(request.cookies.get(COOKIE, ""))
    if name and name in store.annotators():
        return name
    if required:
        raise HTTPException(401, "sign in first: go to the start page and give your name")
    return None


async def _signed_form(request: Request, store: ReviewStore) -> tuple[str, FormData]:
    """The signed-in annotator and their form; 409 when it was sent from a page shown to another.

    Every page's forms name the annotator it was shown to: signing in as someone else in another
    tab changes the cookie of every tab, and a page still showing the first name must not act
    under the second.
    """
    annotator = _annotator(request, store)
    form = await _form(request)
    shown = _field(form, "annotator", required=False, verbatim=True)
    if shown and shown != annotator:
        raise HTTPException(
            409,
            f"this page was {shown}'s, but this browser is now signed in as {annotator} (in another "
            f"tab?), so nothing was saved: reload the page to go on as {annotator}, or sign in as "
            f"{shown} again",
        )
    return annotator, form


async def _form(request: Request) -> FormData:
    if request.headers.get("content-type", "").split(";")[0].strip() not in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        raise HTTPException(415, "send a form")
    try:
        return await request.form(max_files=0, max_fields=50)
    except HTTPException:
        raise
    except Exception as exc:  # a body the form parser rejects
        raise HTTPException(400, f"malformed form: {exc}") from None


def _field(form: FormData, name: str, *, required: bool = True, verbatim: bool = False) -> str:
    """The field's text, stripped unless ``verbatim`` (an id or name that keys stored rows, as sent)."""
    value = form.get(name)
    if value is None or not isinstance(value, str) or not value.strip():
        if required:
            raise HTTPException(400, f"missing field {name!r}")
        return ""
    if len(value) > MAX_TEXT:
        raise HTTPException(400, f"field {name!r} is longer than {MAX_TEXT} characters")
    return value if verbatim else value.strip()


def _choice(form: FormData, name: str, choices: tuple[str, ...]) -> str:
    value = _field(form, name)
    if value not in choices:
        raise HTTPException(400, f"{name} must be one of {', '.join(choices)}")
    return value


def _integer(form: FormData, name: str) -> int:
    try:
        return int(_field(form, name))
    except ValueError:
        raise HTTPException(400, f"{name} must be a whole number") from None


def _number(form: FormData, name: str) -> float:
    try:
        value = float(_field(form, name))
    except ValueError:
        raise HTTPException(400, f"{name} must be a number") from None
    if not math.isfinite(value):
        raise HTTPException(400, f"{name} must be a number")
    return value


def _task(request: Request, store: ReviewStore) -> str:
    task = request.query_params.get("task", "")
    if task not in {name for name, _ in store.tasks()}:
        raise HTTPException(404, f"no task {task!r}")
    return task


def _item(item_id: str | None, store: ReviewStore) -> Any:
    try:
        return store.item(item_id or "")
    except ReviewError:
        raise HTTPException(404, f"no item {item_id!r}") from None


def _criterion(form: FormData, store: ReviewStore, item_id: str, annotator: str) -> CriterionView:
    """The annotator's view of the criterion the form names (400 when the item has no such criterion)."""
    name = _field(form, "criterion", verbatim=True)
    view = next((v for v in store.item_view(item_id, annotator)[0] if v.name == name), None)
    if view is None:
        raise HTTPException(400, f"item {item_id!r} has no criterion {name!r} for {annotator}")
    return view


def _scale_values(scale: tuple[float, float], *given: float | None) -> list[float]:
    """The whole numbers of ``scale``, with any score ``given`` (the LLM's, the annotator's) between them."""
    values = {float(v) for v in range(math.ceil(scale[0]), math.floor(scale[1]) + 1)}
    values |= {float(v) for v in given if v is not None and scale[0] <= v <= scale[1]}
    return sorted(values)


def anchor(criterion: str) -> str:
    """The HTML id of a criterion's section (names hold any text; ids should not)."""
    if criterion == OVERALL:
        return "overall"
    return "k-" + hashlib.sha256(criterion.encode("utf-8")).hexdigest()[:12]


_templates.globals["max_text"] = MAX_TEXT  # fields say how long they may be, rather than an error after
_templates.filters["anchor"] = anchor
_templates.filters["num"] = fmt
# A score as a form posts it: whole numbers as such, others to every digit (a round trip).
_templates.filters["exact"] = lambda v: str(int(v)) if float(v).is_integer() else repr(float(v))
_templates.filters["q"] = lambda value: quote(str(value), safe="")


def _back_to(item_id: str, criterion: str) -> Response:
    return RedirectResponse(f"/item?id={quote(item_id, safe='')}#{anchor(criterion)}", status_code=303)
