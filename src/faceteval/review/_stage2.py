"""Stage 2 of the review app: each item's explanations sentence by sentence, its scores, and (of a
comparison) the annotator's preference."""

from __future__ import annotations

from collections.abc import Callable

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from faceteval.review._access import Sessions
from faceteval.review._forms import FieldError, choice, field, integer, number
from faceteval.review._model import OVERALL, SENTENCE_ACTIONS, TIE, CriterionView, Item, preference_label
from faceteval.review._pages import FormProblem, back_to, item_page, page
from faceteval.review._requests import (
    annotator_of,
    criterion_of,
    item_of,
    once,
    position_of,
    posted_form,
    task_of,
)
from faceteval.review._store import ReviewStore

__all__ = ["item_routes"]

Act = Callable[[Item, str, FormData], tuple[str, Callable[[], object]]]
"""An action on an item: from the item, the annotator and the form, where it goes back to and what it
stores (which raises `FieldError` for a field filled in wrong)."""


def item_routes(store: ReviewStore, sessions: Sessions) -> list[Route]:
    """The routes of stage 2: a task's items, an item's page, and the form each action on it is sent with."""

    async def items_page(request: Request) -> Response:
        annotator = annotator_of(request, sessions)
        task = task_of(request, store)
        after, before = (position_of(request, name) for name in ("after", "before"))
        shown = store.items_page(task, annotator, after=after, before=before)
        return page("items.html", annotator=annotator, task=task, shown=shown)

    async def show(request: Request) -> Response:
        annotator = annotator_of(request, sessions)
        return item_page(store, annotator, item_of(request.query_params.get("id"), store))

    def posting(act: Act) -> Callable[[Request], object]:
        """The route of the form an action is sent with: stored once, or refused on the item's page."""

        async def route(request: Request) -> Response:
            annotator, form = await posted_form(request, sessions, store)
            item = item_of(field(form, "item", verbatim=True), store)
            location, record = act(item, annotator, form)

            def refused(problem: FormProblem) -> Response:
                return item_page(store, annotator, item, problem)

            return once(request, store, (annotator, form), location, record, refused)

        return route

    def sentence(item: Item, annotator: str, form: FormData) -> tuple[str, Callable[[], object]]:
        criterion = criterion_of(form, store, item.id, annotator).name
        action = choice(form, "action", SENTENCE_ACTIONS)
        index = None if action == "add" else integer(form, "sentence")

        def record() -> None:
            text = field(form, "text", required=False)
            if action in ("revise", "add") and not text:
                raise FieldError("text", "write the sentence" + (" to add" if action == "add" else ""))
            store.record_sentence_action(item.id, criterion, annotator, action, sentence=index, text=text)  # type: ignore[arg-type]

        return back_to(item.id, criterion), record

    def score(item: Item, annotator: str, form: FormData) -> tuple[str, Callable[[], object]]:
        criterion = field(form, "criterion", required=False, verbatim=True) or OVERALL
        if criterion != OVERALL:
            view = criterion_of(form, store, item.id, annotator)
            criterion, scale = view.name, view.scale
        else:
            scale = store.task_scale(item.task)
        return back_to(item.id, criterion), lambda: store.set_score(
            item.id, criterion, annotator, _score(form, "score", scale)
        )

    def scores(item: Item, annotator: str, form: FormData) -> tuple[str, Callable[[], object]]:
        view = criterion_of(form, store, item.id, annotator)
        names = [f"score_{k}" for k in range(1, len(item.candidates) + 1)]
        record = lambda: store.set_candidate_scores(  # noqa: E731
            item.id, view.name, annotator, [_score(form, name, view.scale) for name in names]
        )
        return back_to(item.id, view.name), record

    def prefer(item: Item, annotator: str, form: FormData) -> tuple[str, Callable[[], object]]:
        def record() -> None:
            chosen = field(form, "preference", required=False)
            allowed = [str(k) for k in range(TIE, len(item.candidates) + 1)]
            if chosen not in allowed:
                choices = ", ".join(preference_label(int(k)) for k in allowed[1:])
                raise FieldError("preference", f"choose which is better ({choices}), or a tie")
            store.set_preference(item.id, annotator, int(chosen))

        return back_to(item.id, OVERALL), record

    def approve(item: Item, annotator: str, form: FormData) -> tuple[str, Callable[[], object]]:
        """Pass every sentence not acted on yet and keep the LLM's scores: the criterion as drafted."""
        view = criterion_of(form, store, item.id, annotator)
        return back_to(item.id, view.name), lambda: _approve(store, item, annotator, view)

    return [
        Route("/items", items_page),
        Route("/item", show),
        Route("/item/sentence", posting(sentence), methods=["POST"]),
        Route("/item/score", posting(score), methods=["POST"]),
        Route("/item/scores", posting(scores), methods=["POST"]),
        Route("/item/preference", posting(prefer), methods=["POST"]),
        Route("/item/approve", posting(approve), methods=["POST"]),
    ]


def _score(form: FormData, name: str, scale: tuple[float, float]) -> float:
    """The score the form's field ``name`` gives, on ``scale``."""
    if not field(form, name, required=False):
        raise FieldError(name, "choose a score")
    value = number(form, name)
    if not scale[0] <= value <= scale[1]:
        raise FieldError(name, f"score must be between {scale[0]:g} and {scale[1]:g}")
    return value


def _approve(store: ReviewStore, item: Item, annotator: str, view: CriterionView) -> None:
    """Pass every sentence not acted on yet and keep the LLM's scores not given yet (one transaction)."""
    for sentence in view.sentences:
        if sentence.action is None and sentence.index is not None:
            store.record_sentence_action(item.id, view.name, annotator, "pass", sentence=sentence.index)
    if view.scored:
        return
    drafted = view.draft.scores if view.draft is not None and item.compares else ()
    if item.compares:
        kept = [
            mine if mine is not None else theirs for mine, theirs in zip(view.scores, drafted, strict=False)
        ]
        if len(kept) != len(item.candidates) or None in kept:
            raise FieldError(None, "the LLM did not score every response on this criterion: give the scores")
        store.set_candidate_scores(item.id, view.name, annotator, [float(s) for s in kept if s is not None])
    elif view.draft is None or view.draft.score is None:
        raise FieldError(None, "there is no LLM score to approve: give a score")
    else:
        store.set_score(item.id, view.name, annotator, view.draft.score)
