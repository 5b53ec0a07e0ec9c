"""What every page and action of the review app does with its request: who sent it, what it names, and
storing a posted form once (or answering it with the page it came from, the error beside its field)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from faceteval.review._access import Sessions
from faceteval.review._forms import FORM_KEY, FORM_TOKEN, FieldError, field, form_token, read_form
from faceteval.review._model import CriterionView, DiskFullError, Item, ReviewError
from faceteval.review._pages import FormProblem, page
from faceteval.review._store import ReviewStore

__all__ = [
    "COOKIE",
    "Refused",
    "Replayed",
    "annotator_of",
    "criterion_of",
    "item_of",
    "once",
    "posted_form",
    "problem",
    "task_of",
]

COOKIE = "faceteval_annotator"

Refused = Callable[[FormProblem], Response]
"""What answers a form refused for what was typed in it: the page it came from, with the problem."""


class Replayed(Exception):
    """A form posted before (its token is stored): answered as the first post was."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.location = location


def annotator_of(request: Request, sessions: Sessions, *, required: bool = True) -> Any:
    """The annotator the request's session cookie signs in (401 when none does, if ``required``)."""
    session = sessions.session(request.cookies.get(COOKIE))
    if session is not None:
        return session.annotator
    if required:
        how = "open your invite link" if sessions.invites_only else "go to the start page and give your name"
        raise HTTPException(401, f"sign in first: {how}")
    return None


async def posted_form(request: Request, sessions: Sessions, store: ReviewStore) -> tuple[str, FormData]:
    """The signed-in annotator and their form; 409 when it was sent from a page shown to another.

    Every page's forms name the annotator it was shown to: signing in as someone else in another
    tab changes the cookie of every tab, and a page still showing the first name must not act
    under the second. A form sent before (its token stored) is answered as it was then
    (`Replayed`), before anything else is checked again.
    """
    annotator = annotator_of(request, sessions)
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
        raise Replayed(posted[1])
    return annotator, form


def problem(form: FormData, name: str | None, message: str) -> FormProblem:
    """The problem of ``form`` (at its field ``name``), with what was typed in it."""
    typed = {
        key: value
        for key, value in form.multi_items()
        if isinstance(value, str) and key not in (FORM_TOKEN, "annotator")
    }
    return FormProblem(field(form, FORM_KEY, required=False, verbatim=True), name, message, typed)


def once(
    request: Request,
    store: ReviewStore,
    sent: tuple[str, FormData],
    location: str,
    act: Callable[[], object],
    refused: Refused,
    *,
    at: str | None = None,
) -> Response:
    """Do ``act`` once for the form ``sent`` (annotator, form), stored with its token; then go to
    ``location``. Sent again, nothing is done and the answer is the first one's. A full disk stores
    nothing and says so (507), with the way back to ``location`` and the form to send again. What
    ``act`` refuses (a `ReviewError`, a `FieldError`) stores nothing, and is answered by ``refused``
    (the page the form came from, the error beside the field ``at``, or the one the error names)."""
    annotator, form = sent
    try:
        with store.posting(form_token(form), annotator, location) as earlier:
            if earlier is None:
                act()
    except DiskFullError:
        return _not_saved(request, form, location)
    except FieldError as exc:
        return refused(problem(form, exc.field or at, str(exc.detail)))
    except ReviewError as exc:
        return refused(problem(form, at, str(exc)))
    return RedirectResponse(earlier or location, status_code=303)


def _not_saved(request: Request, form: FormData, location: str) -> Response:
    resend = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    fields = [(name, value) for name, value in form.multi_items() if isinstance(value, str)]
    return page("not_saved.html", status_code=507, back=location, resend=resend, fields=fields)


def task_of(request: Request, store: ReviewStore) -> str:
    """The task the request's ``task`` names (404 when the project has none of that name)."""
    task = request.query_params.get("task", "")
    if task not in {name for name, _ in store.tasks()}:
        raise HTTPException(404, f"no task {task!r}")
    return task


def position_of(request: Request, name: str) -> int | None:
    """The item position the request's query parameter ``name`` gives (a page of items starts after or
    ends before it), None without one (400 when it is not a whole number)."""
    value = request.query_params.get(name)
    if value is None:
        return None
    if not value.isascii() or not value.lstrip("-").isdigit() or len(value) > 19:
        raise HTTPException(400, f"{name} must be an item's position (a whole number), not {value!r}")
    return int(value)


def item_of(item_id: str | None, store: ReviewStore) -> Item:
    """The item ``item_id`` (404 when the project has none)."""
    try:
        return store.item(item_id or "")
    except ReviewError:
        raise HTTPException(404, f"no item {item_id!r}") from None


def criterion_of(form: FormData, store: ReviewStore, item_id: str, annotator: str) -> CriterionView:
    """The annotator's view of the criterion the form names (400 when the item has no such criterion)."""
    name = field(form, "criterion", verbatim=True)
    view = next((v for v in store.item_view(item_id, annotator)[0] if v.name == name), None)
    if view is None:
        raise HTTPException(400, f"item {item_id!r} has no criterion {name!r} for {annotator}")
    return view
