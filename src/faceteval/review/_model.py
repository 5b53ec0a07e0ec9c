"""What a review project holds and gives back: its values, its action names and its errors.

No I/O here: `ReviewStore` (``_store.py``) reads and writes these through the log (``_log.py``), the
imported content (``_content.py``) and the views (``_views.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from faceteval._util.text import first_few, plural
from faceteval.errors import DiskFullError, ReviewError

__all__ = [
    "CRITERION_ACTIONS",
    "DEFAULT_SCALE",
    "OVERALL",
    "SENTENCE_ACTIONS",
    "TIE",
    "Candidate",
    "CriterionAction",
    "CriterionRow",
    "CriterionView",
    "DiskFullError",
    "Draft",
    "Item",
    "Part",
    "PartKind",
    "ReviewError",
    "SentenceAction",
    "SentenceView",
    "TaskProgress",
    "describe_conflicts",
    "finished",
    "preference_label",
]

OVERALL = ""
"""The criterion name under which the overall score is stored."""
DEFAULT_SCALE = (1.0, 5.0)
TIE = 0
"""A preference (or verdict) that no candidate is better: a tie."""

CriterionAction = Literal["approve", "delete", "revise", "add"]
SentenceAction = Literal["pass", "revise", "delete", "add"]
CRITERION_ACTIONS: tuple[CriterionAction, ...] = ("approve", "delete", "revise", "add")
SENTENCE_ACTIONS: tuple[SentenceAction, ...] = ("pass", "revise", "delete", "add")
PartKind = Literal["heading", "score", "sentence"]


def preference_label(preference: int | None) -> str:
    """How a preference or verdict reads: ``Response 2``, ``tie``, or ``none``.

    Examples:
        >>> preference_label(2), preference_label(TIE), preference_label(None)
        ('Response 2', 'tie', 'none')
    """
    if preference is None:
        return "none"
    return "tie" if preference == TIE else f"Response {preference}"


class TaskProgress(NamedTuple):
    """An annotator's progress on one task."""

    done: int
    """Items finished: every criterion and the overall score."""
    total: int
    """Items of the task."""
    awaiting_overall: int
    """Items whose every criterion is finished, without an overall score (as in CoEval's released review)."""


@dataclass(frozen=True, slots=True)
class CriterionRow:
    """A task's criterion as drafted (or imported) for review, or as an annotator added or revised it.

    ``id`` is the drafted criterion's (> 0), or minus the id of the ``add`` action of a criterion an
    annotator added. ``name`` keys the criterion's drafts and scores; ``label`` is the name the
    annotator gave it when they revised it ("" while it has its own).
    """

    id: int
    task: str
    position: int
    name: str
    description: str = ""
    scale: tuple[float, float] = DEFAULT_SCALE
    label: str = ""

    @property
    def title(self) -> str:
        """The name to show: the annotator's, else the drafted one."""
        return self.label or self.name


@dataclass(frozen=True, slots=True)
class Candidate:
    """One of the candidates a comparison item shows side by side."""

    output: str
    system: str | None = None


@dataclass(frozen=True, slots=True)
class Item:
    """One output to review, or a comparison of several (a pairwise or listwise judgment).

    A comparison has its ``candidates`` (two or more, numbered from 1 in this order) and an empty
    ``output``: annotators score each candidate on each criterion and give their preference.
    """

    id: str
    task: str
    query: str
    output: str
    system: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    position: int = 0
    candidates: tuple[Candidate, ...] = ()

    @property
    def compares(self) -> bool:
        """Whether the item is a comparison of candidates (rather than one output)."""
        return bool(self.candidates)


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of an explanation as the review shows it.

    A ``sentence`` is reviewed (approved, edited, deleted); a ``heading`` (``Evidence``, ``Response 2``)
    and a ``score`` line (``Score: 4 out of 5.``) are shown, not reviewed: the annotator's own score
    takes a score line's place. ``candidate`` is the candidate a part is about, when a ``Response k``
    heading says so.
    """

    kind: PartKind
    text: str
    candidate: int | None = None


@dataclass(frozen=True, slots=True)
class Draft:
    """The LLM's evaluation of an item on one criterion (or, with ``OVERALL``, overall).

    For a comparison, ``score`` is None and ``scores`` holds one score per candidate; the ``OVERALL``
    draft also holds the judge's ``verdict`` (1-based, `TIE`, or None). ``parts`` is how the
    explanation reads, headings and score lines included; ``sentences`` are its parts to review, in
    order. Drafts imported before parts were kept have none: their sentences are all there is.
    """

    item_id: str
    criterion: str
    score: float | None
    conclusion: str = ""
    evidence: str = ""
    sentences: tuple[str, ...] = ()
    scores: tuple[float | None, ...] = ()
    weight: float | None = None
    verdict: int | None = None
    parts: tuple[Part, ...] = ()


@dataclass(frozen=True, slots=True)
class SentenceView:
    """A sentence of the explanation as one annotator left it."""

    index: int | None
    """Position in the draft; None for a sentence the annotator added."""
    original: str | None
    text: str | None
    """The current text; None when deleted."""
    action: SentenceAction | None
    """The annotator's latest action on it; None while untouched."""
    action_id: int | None = None


@dataclass(frozen=True, slots=True)
class CriterionView:
    """What one annotator sees and has done for one criterion of one item."""

    name: str
    """The criterion's key (the name it was drafted or added with)."""
    description: str
    scale: tuple[float, float]
    draft: Draft | None
    sentences: tuple[SentenceView, ...]
    score: float | None
    """The annotator's score; None until they give or confirm one (always None on a comparison)."""
    title: str = ""
    """The name to show (the annotator's revision of it, else ``name``)."""
    scores: tuple[float | None, ...] = ()
    """On a comparison, the annotator's score of each candidate (None until given); else empty."""

    @property
    def scored(self) -> bool:
        """Whether the annotator gave the criterion's score (on a comparison, every candidate's)."""
        return all(s is not None for s in self.scores) if self.scores else self.score is not None

    @property
    def done(self) -> bool:
        return self.scored and all(s.action is not None for s in self.sentences)


def finished(views: Sequence[CriterionView], final: float | None) -> bool:
    """Whether an item is done: every criterion reviewed and scored, and its ``final`` given (the
    overall score of an output; the preference, a candidate or `TIE`, of a comparison)."""
    return final is not None and all(view.done for view in views)


def describe_conflicts(clashes: Sequence[tuple[Item, Item]]) -> str:
    """What `ReviewStore.conflicts` found, for an error message."""
    shown = first_few([f"{new.id!r} (task {present.task!r})" for new, present in clashes])
    return (
        f"{plural(len(clashes), 'output id')} {'is' if len(clashes) == 1 else 'are'} already in the project "
        f"for other outputs: {shown}. "
        "An id names one output in the whole project: import into another project, or give these "
        "instances ids of their own"
    )
