"""The review app's pages: its templates, what each page shows, and a form's error shown on its page.

Every model and user text is escaped (Jinja's autoescape); no page holds script. A form refused for
what was typed in it (`FormProblem`) is answered with the page it was on, the error next to the
field, what was typed kept in the form, and the page opened at that form.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from starlette.responses import HTMLResponse

from faceteval._util.numbers import fmt
from faceteval._web import page_templates
from faceteval.review._explain import states_score
from faceteval.review._forms import FORM_KEY, FORM_TOKEN, MAX_TEXT, new_form_token
from faceteval.review._model import (
    CRITERION_ACTIONS,
    OVERALL,
    TIE,
    CriterionView,
    Item,
    SentenceView,
    finished,
    preference_label,
)
from faceteval.review._store import ReviewStore

__all__ = ["FormProblem", "Shown", "anchor", "back_to", "criteria_page", "item_page", "page"]

_templates = page_templates("faceteval.review")


@dataclass(frozen=True, slots=True)
class FormProblem:
    """Why a form was refused, to show on the page it was sent from."""

    form: str
    """The form's key (its ``form`` field): the page shows the error in that form."""
    at: str | None
    """The field at fault (the error is shown next to it), or None for the form as a whole."""
    message: str
    typed: Mapping[str, str] = field(default_factory=dict)
    """What was sent in the form's fields, to show in them again."""

    def kept(self, key: str, name: str, default: Any = "") -> Any:
        """What the form ``key`` shows in its field ``name``: what was typed, if it is the one refused."""
        return self.typed.get(name, "") if key == self.form else default


@dataclass(frozen=True, slots=True)
class Shown:
    """A line of a criterion's explanation as its page shows it."""

    kind: Literal["heading", "score", "sentence"]
    text: str = ""
    sentence: SentenceView | None = None
    """The sentence to act on (``sentence``), with the annotator's latest action on it."""
    overridden: str | None = None
    """A score line (or a sentence stating a score) that the annotator's own score replaces: their score."""


def page(template: str, *, status_code: int = 200, **context: Any) -> HTMLResponse:
    """The page ``template`` rendered with ``context``."""
    return HTMLResponse(_templates.get_template(template).render(**context), status_code=status_code)


def criteria_page(
    store: ReviewStore, annotator: str, task: str, problem: FormProblem | None = None
) -> HTMLResponse:
    """Stage 1: the task's criteria, each with the annotator's latest action; a refused form's error."""
    rows = store.reviewed_criteria(task, annotator)
    return page(
        "criteria.html",
        status_code=200 if problem is None else 400,
        annotator=annotator,
        task=task,
        rows=rows,
        actions=CRITERION_ACTIONS,
        problem=problem,
    )


def item_page(
    store: ReviewStore, annotator: str, item: Item, problem: FormProblem | None = None
) -> HTMLResponse:
    """Stage 2: one item (an output, or a comparison of candidates side by side), as the annotator left it.

    In a blind project, the judge's verdict, scores and explanations (and the criteria, which show
    them) are left out of the page until the annotator gives their preference (a comparison) or
    overall score (an output): their label is their own.
    """
    views, overall = store.item_view(item.id, annotator)
    preference = store.preference(item.id, annotator) if item.compares else None
    previous, following, index, total = store.neighbours(item.id)
    overall_draft = next((d for d in store.drafts(item.id) if d.criterion == OVERALL), None)
    given = preference if item.compares else overall
    return page(
        "item.html",
        status_code=200 if problem is None else 400,
        annotator=annotator,
        item=item,
        views=views,
        overall=overall,
        preference=preference,
        overall_draft=overall_draft,
        previous=previous,
        next=following,
        position=(index + 1, total),
        done=finished(views, given),
        blind=given is None and store.settings().blind,
        scale_values=scale_values,
        overall_scale=store.task_scale(item.task),
        numbers=list(range(1, len(item.candidates) + 1)),
        problem=problem,
    )


def explained(view: CriterionView) -> list[Shown]:
    """A criterion's explanation as its page shows it: headings, score lines, then each sentence.

    A draft split into parts shows them in order, its sentences with the annotator's actions, and
    their added sentences after; a draft without parts (imported before they were kept) shows its
    sentences alone. A score line, or a sentence stating a score, is marked overridden once the
    annotator's score differs from the LLM's.
    """
    draft = view.draft
    drafted = [s for s in view.sentences if s.index is not None]
    added = [s for s in view.sentences if s.index is None]
    if draft is None or not draft.parts:
        return [_sentence_line(view, sentence) for sentence in [*drafted, *added]]
    shown: list[Shown] = []
    queue = iter(drafted)
    for part in draft.parts:
        if part.kind == "sentence":
            sentence = next(queue, None)
            if sentence is not None:
                shown.append(Shown("sentence", sentence=sentence))
        elif part.kind == "score":
            shown.append(Shown("score", part.text, overridden=_overridden(view, part.candidate)))
        else:
            shown.append(Shown("heading", part.text))
    return shown + [Shown("sentence", sentence=sentence) for sentence in [*queue, *added]]


def _sentence_line(view: CriterionView, sentence: SentenceView) -> Shown:
    """A sentence as shown; one stating the LLM's score (its text as drafted) marked if overridden."""
    drafted = sentence.text is None or sentence.text == sentence.original  # an imported revise has no text
    stating = sentence.action != "delete" and drafted and states_score(sentence.original or "")
    return Shown("sentence", sentence=sentence, overridden=_overridden(view, None) if stating else None)


def _overridden(view: CriterionView, candidate: int | None) -> str | None:
    """The annotator's score (of ``candidate``, on a comparison) where it differs from the LLM's."""
    if view.draft is None:
        return None
    if not view.scores:
        mine, llm = [view.score], [view.draft.score]
    elif candidate is not None and 1 <= candidate <= len(view.scores):
        mine, llm = [view.scores[candidate - 1]], [_nth(view.draft.scores, candidate - 1)]
    else:
        mine, llm = list(view.scores), [_nth(view.draft.scores, k) for k in range(len(view.scores))]
    if any(m is not None and m != d for m, d in zip(mine, llm, strict=True)):
        return " / ".join("?" if m is None else fmt(m) for m in mine)
    return None


def _nth(values: Sequence[float | None], index: int) -> float | None:
    return values[index] if index < len(values) else None


def scale_values(scale: tuple[float, float], *given: float | None) -> list[float]:
    """The whole numbers of ``scale``, with any score ``given`` (the LLM's, the annotator's) between them."""
    values = {float(v) for v in range(math.ceil(scale[0]), math.floor(scale[1]) + 1)}
    values |= {float(v) for v in given if v is not None and scale[0] <= v <= scale[1]}
    return sorted(values)


def anchor(criterion: str) -> str:
    """The HTML id of a criterion's section (names hold any text; ids should not)."""
    if criterion == OVERALL:
        return "overall"
    return "k-" + hashlib.sha256(criterion.encode("utf-8")).hexdigest()[:12]


def back_to(item_id: str, criterion: str) -> str:
    """Where an action on ``criterion`` of ``item_id`` goes back to: that criterion on the item's page."""
    return f"/item?id={quote(item_id, safe='')}#{anchor(criterion)}"


_templates.globals["max_text"] = MAX_TEXT  # fields say how long they may be, rather than an error after
_templates.globals["form_token"] = new_form_token  # each form rendered, its own
_templates.globals["form_token_field"] = FORM_TOKEN
_templates.globals["form_key_field"] = FORM_KEY
_templates.globals["explained"] = explained
_templates.globals["TIE"] = TIE
_templates.filters["anchor"] = anchor
_templates.filters["num"] = fmt
_templates.filters["preference"] = preference_label
# A score as a form posts it: whole numbers as such, others to every digit (a round trip).
_templates.filters["exact"] = lambda v: str(int(v)) if float(v).is_integer() else repr(float(v))
