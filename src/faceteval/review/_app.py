"""The review web app: a Starlette application over a project's `ReviewStore`.

Pages are rendered on the server with every model and user text escaped, and are sent with a
Content-Security-Policy that allows no script at all, so nothing in an output can run. Every action
is one small form posted to the server and stored at once; the page then reloads at the same place
(post / redirect / get), so a refresh never resends an action and never loses one.

Each form carries a token of its own, stored with its action in one transaction: a form sent twice
(a double click, or sent again after a server stopped before it answered) is stored once, and
answered as it was the first time. An action the disk has no room for is not stored at all, and
the annotator is told so (507), with the way back to where they were and a button to send it again.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from faceteval._util.numbers import fmt
from faceteval._web import page_templates, protections
from faceteval.review._access import (
    Session,
    Sessions,
    allowed_hosts,
    is_loopback,
    is_wildcard,
    project_secret,
    token_hash,
)
from faceteval.review._forms import (
    FORM_TOKEN,
    MAX_TEXT,
    choice,
    field,
    form_token,
    integer,
    new_form_token,
    number,
    read_form,
)
from faceteval.review._model import (
    CRITERION_ACTIONS,
    OVERALL,
    SENTENCE_ACTIONS,
    CriterionView,
    DiskFullError,
    ReviewError,
    finished,
)
from faceteval.review._store import ReviewStore

COOKIE = "faceteval_annotator"
DEFAULT_HOST = "127.0.0.1"
NOT_INVITED = "this invite link is not valid (revoked, or not whole): ask for a new one"

_templates = page_templates("faceteval.review")


class _Replayed(Exception):
    """A form posted before (its token is stored): answered as the first post was."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.location = location


def create_app(project: Path, *, host: str = DEFAULT_HOST, allow_hosts: Sequence[str] = ()) -> Starlette:
    """The web app of the review project in ``project`` (which must exist), served on ``host``.

    It answers to loopback's names, ``host`` and ``allow_hosts`` (the names annotators reach it
    by) alone; bound beyond loopback, annotators sign in only with their invite links.
    """
    store = ReviewStore.open(project, create=False)
    sessions = Sessions(project_secret(project), store, invites_only=not is_loopback(host))

    async def home(request: Request) -> Response:
        annotator = _annotator(request, sessions, required=False)
        if annotator is None:
            return _page("signin.html", annotators=store.annotators(), invites_only=sessions.invites_only)
        tasks = store.tasks()
        progress = {name: store.task_progress(name) for name in store.annotators()}
        return _page("home.html", annotator=annotator, tasks=tasks, progress=progress)

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
        return _signed_in(sessions, Session(name))

    async def invite_page(request: Request) -> Response:
        token = request.path_params["token"]
        found = store.invited(token_hash(token))
        if found is None:
            raise HTTPException(404, NOT_INVITED)
        return _page("invite.html", invited=found[1], token=token)

    async def invite_signin(request: Request) -> Response:
        form = await read_form(request)
        found = store.invited(token_hash(field(form, "token", verbatim=True)))
        if found is None:
            raise HTTPException(404, NOT_INVITED)
        return _signed_in(sessions, Session(found[1], found[0]))

    async def signout(request: Request) -> Response:
        await read_form(request)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    async def criteria_page(request: Request) -> Response:
        annotator = _annotator(request, sessions)
        task = _task(request, store)
        rows = store.reviewed_criteria(task, annotator)
        return _page("criteria.html", annotator=annotator, task=task, rows=rows, actions=CRITERION_ACTIONS)

    async def criteria_action(request: Request) -> Response:
        task = _task(request, store)
        annotator, form = await _posted_form(request, sessions, store)
        action = choice(form, "action", CRITERION_ACTIONS)
        criterion_id = None if action == "add" else integer(form, "criterion")
        anchor = f"#c{criterion_id}" if criterion_id is not None else "#add"

        def act() -> None:
            store.record_criterion_action(
                task,
                annotator,
                action,  # type: ignore[arg-type]
                criterion_id=criterion_id,
                name=field(form, "name", required=False),
                description=field(form, "description", required=False),
                reason=field(form, "reason", required=action != "approve"),
            )

        return _once(request, store, (annotator, form), f"/criteria?task={quote(task)}{anchor}", act)

    async def items_page(request: Request) -> Response:
        annotator = _annotator(request, sessions)
        task = _task(request, store)
        done = store.done_items(annotator)
        items = [(item, item.id in done) for item in store.items(task)]
        return _page("items.html", annotator=annotator, task=task, items=items)

    async def item_page(request: Request) -> Response:
        annotator = _annotator(request, sessions)
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
        annotator, form = await _posted_form(request, sessions, store)
        item = _item(field(form, "item", verbatim=True), store)
        criterion = _criterion(form, store, item.id, annotator).name
        action = choice(form, "action", SENTENCE_ACTIONS)
        sentence = None if action == "add" else integer(form, "sentence")
        text = field(form, "text", required=action in ("revise", "add"))

        def act() -> None:
            store.record_sentence_action(
                item.id,
                criterion,
                annotator,
                action,  # type: ignore[arg-type]
                sentence=sentence,
                text=text,
            )

        return _once(request, store, (annotator, form), _back_to(item.id, criterion), act)

    async def score_action(request: Request) -> Response:
        annotator, form = await _posted_form(request, sessions, store)
        item = _item(field(form, "item", verbatim=True), store)
        criterion = field(form, "criterion", required=False, verbatim=True) or OVERALL
        if criterion != OVERALL:
            view = _criterion(form, store, item.id, annotator)
            criterion, (low, high) = view.name, view.scale
        else:
            low, high = store.task_scale(item.task)
        score = number(form, "score")
        if not low <= score <= high:
            raise HTTPException(400, f"score must be between {low:g} and {high:g}")
        location = _back_to(item.id, criterion)
        score_it = lambda: store.set_score(item.id, criterion, annotator, score)  # noqa: E731
        return _once(request, store, (annotator, form), location, score_it)

    async def approve_action(request: Request) -> Response:
        """Pass every sentence not acted on yet and keep the LLM's score: the criterion as drafted."""
        annotator, form = await _posted_form(request, sessions, store)
        item = _item(field(form, "item", verbatim=True), store)
        view = _criterion(form, store, item.id, annotator)
        criterion = view.name

        def act() -> None:  # one transaction: every sentence and the score, or nothing
            for sentence in view.sentences:
                if sentence.action is None and sentence.index is not None:
                    store.record_sentence_action(
                        item.id, criterion, annotator, "pass", sentence=sentence.index
                    )
            if view.score is None:
                if view.draft is None or view.draft.score is None:
                    raise HTTPException(400, "there is no LLM score to approve: give a score")
                store.set_score(item.id, criterion, annotator, view.draft.score)

        return _once(request, store, (annotator, form), _back_to(item.id, criterion), act)

    routes = [
        Route("/", home),
        Route("/signin", signin, methods=["POST"]),
        Route("/invite/{token}", invite_page),
        Route("/invite", invite_signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/criteria", criteria_page),
        Route("/criteria", criteria_action, methods=["POST"]),
        Route("/items", items_page),
        Route("/item", item_page),
        Route("/item/sentence", sentence_action, methods=["POST"]),
        Route("/item/score", score_action, methods=["POST"]),
        Route("/item/approve", approve_action, methods=["POST"]),
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
        _Replayed: _replayed,
    }
    return Starlette(
        routes=routes,
        middleware=protections(hosts, any_address=is_wildcard(host)),
        exception_handlers=handlers,
        lifespan=lifespan,
    )


def _signed_in(sessions: Sessions, session: Session) -> Response:
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(COOKIE, sessions.cookie(session), httponly=True, samesite="strict")
    return response


def _once(
    request: Request,
    store: ReviewStore,
    sent: tuple[str, FormData],
    location: str,
    act: Callable[[], object],
) -> Response:
    """Do ``act`` once for the form ``sent`` (annotator, form), stored with its token; then go to
    ``location``. Sent again, nothing is done and the answer is the first one's. A full disk stores
    nothing and says so (507), with the way back to ``location`` and the form to send again."""
    annotator, form = sent
    try:
        with store.posting(form_token(form), annotator, location) as earlier:
            if earlier is None:
                act()
    except DiskFullError:
        return _not_saved(request, form, location)
    except ReviewError as exc:
        raise HTTPException(400, str(exc)) from None
    return RedirectResponse(earlier or location, status_code=303)


def _not_saved(request: Request, form: FormData, location: str) -> Response:
    resend = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    fields = [(name, value) for name, value in form.multi_items() if isinstance(value, str)]
    return _page("not_saved.html", status_code=507, back=location, resend=resend, fields=fields)


async def _error(request: Request, exc: HTTPException) -> Response:
    return _page("error.html", status_code=exc.status_code, message=exc.detail)


async def _review_error(request: Request, exc: ReviewError) -> Response:
    return _page("error.html", status_code=400, message=str(exc))


async def _disk_full(request: Request, exc: DiskFullError) -> Response:
    return _page("not_saved.html", status_code=507, back="/", resend=None, fields=[])


async def _replayed(request: Request, exc: _Replayed) -> Response:
    return RedirectResponse(exc.location, status_code=303)


def _page(template: str, *, status_code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(template).render(**context), status_code=status_code)


def _annotator(request: Request, sessions: Sessions, *, required: bool = True) -> Any:
    """The annotator the request's session cookie signs in (401 when none does, if ``required``)."""
    session = sessions.session(request.cookies.get(COOKIE))
    if session is not None:
        return session.annotator
    if required:
        how = "open your invite link" if sessions.invites_only else "go to the start page and give your name"
        raise HTTPException(401, f"sign in first: {how}")
    return None


async def _posted_form(request: Request, sessions: Sessions, store: ReviewStore) -> tuple[str, FormData]:
    """The signed-in annotator and their form; 409 when it was sent from a page shown to another.

    Every page's forms name the annotator it was shown to: signing in as someone else in another
    tab changes the cookie of every tab, and a page still showing the first name must not act
    under the second. A form sent before (its token stored) is answered as it was then
    (`_Replayed`), before anything else is checked again.
    """
    annotator = _annotator(request, sessions)
    form = await read_form(request)
    shown = field(form, "annotator", required=False, verbatim=True)
    if shown and shown != annotator:
        raise HTTPException(
            409,
            f"this page was {shown}'s, but this browser is now signed in as {annotator} (in another "
            f"tab?), so nothing was saved: reload the page to go on as {annotator}, or sign in as "
            f"{shown} again",
        )
    posted = store.posted(form_token(form))
    if posted is not None and posted[0] == annotator:
        raise _Replayed(posted[1])
    return annotator, form


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
    name = field(form, "criterion", verbatim=True)
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
_templates.globals["form_token"] = new_form_token  # each form rendered, its own
_templates.globals["form_token_field"] = FORM_TOKEN
_templates.filters["anchor"] = anchor
_templates.filters["num"] = fmt
# A score as a form posts it: whole numbers as such, others to every digit (a round trip).
_templates.filters["exact"] = lambda v: str(int(v)) if float(v).is_integer() else repr(float(v))


def _back_to(item_id: str, criterion: str) -> str:
    """Where an action on ``criterion`` of ``item_id`` goes back to: that criterion on the item's page."""
    return f"/item?id={quote(item_id, safe='')}#{anchor(criterion)}"
