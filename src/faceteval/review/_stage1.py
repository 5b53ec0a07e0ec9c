"""Stage 1 of the review app: a task's criteria, approved, deleted, revised or added, each with a reason."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from faceteval.review._access import Sessions
from faceteval.review._forms import FieldError, choice, field, integer
from faceteval.review._model import CRITERION_ACTIONS
from faceteval.review._pages import FormProblem, criteria_page
from faceteval.review._requests import annotator_of, once, posted_form, task_of
from faceteval.review._store import ReviewStore

__all__ = ["criteria_routes"]


def criteria_routes(store: ReviewStore, sessions: Sessions) -> list[Route]:
    """The routes of stage 1: the criteria page, and the form each action on it is sent with."""

    async def show(request: Request) -> Response:
        return criteria_page(store, annotator_of(request, sessions), task_of(request, store))

    async def act(request: Request) -> Response:
        task = task_of(request, store)
        annotator, form = await posted_form(request, sessions, store)
        action = choice(form, "action", CRITERION_ACTIONS)
        criterion_id = None if action == "add" else integer(form, "criterion")
        anchor = f"#c{criterion_id}" if criterion_id is not None else "#add"

        def record() -> None:
            name = field(form, "name", required=False)
            reason = field(form, "reason", required=False)
            if action in ("revise", "add") and not name:
                raise FieldError("name", f"give the criterion a name to {action} it")
            if action != "approve" and not reason:
                raise FieldError("reason", f"give a reason to {action} this criterion: why {_why[action]}?")
            store.record_criterion_action(
                task,
                annotator,
                action,  # type: ignore[arg-type]
                criterion_id=criterion_id,
                name=name,
                description=field(form, "description", required=False),
                reason=reason,
            )

        def refused(problem: FormProblem) -> Response:
            return criteria_page(store, annotator, task, problem)

        location = f"/criteria?task={quote(task)}{anchor}"
        at = "name" if action in ("revise", "add") else None  # a name taken, or a drafted criterion's
        return once(request, store, (annotator, form), location, record, refused, at=at)

    return [Route("/criteria", show), Route("/criteria", act, methods=["POST"])]


_why = {"delete": "is it not one to judge by", "revise": "does it need to change", "add": "is it needed"}
