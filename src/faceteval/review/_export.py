"""Out of a review project: every annotator's final scores, explanations and preferences, and the log."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from faceteval.review._model import OVERALL, CriterionView, Draft, Item, finished
from faceteval.review._store import ReviewStore

__all__ = ["export_actions", "export_scores"]


def export_scores(store: ReviewStore) -> list[dict[str, Any]]:
    """One row per item and annotator who worked on it: their scores, explanations, and the LLM's.

    An output's row has ``kind`` ``output``, the annotator's ``scores`` per criterion and their
    ``overall``, beside the LLM's ``llm_scores`` and ``llm_overall``. A comparison's has ``kind``
    ``comparison``, its ``candidates`` (output and system of each), each criterion's ``scores`` as a
    list (one per candidate, as ``llm_scores``, ``llm_overall``), the facets' ``llm_weights``, and the
    annotator's ``preference`` beside the judge's ``llm_verdict`` (1-based; 0 a tie; None not given).
    Criteria are keyed by the names they were drafted (or added) with, the LLM's and every
    annotator's alike; ``renamed`` gives the names this annotator revised them to.
    """
    drafts: dict[str, dict[str, Draft]] = {}
    for draft in store.drafts():
        drafts.setdefault(draft.item_id, {})[draft.criterion] = draft
    active: dict[str, set[str]] = {}
    logs = (store.sentence_actions(), store.score_actions(), store.candidate_scores(), store.preferences())
    for log in logs:
        for row in log:
            active.setdefault(row["item_id"], set()).add(row["annotator"])
    rows = []
    for item in store.items():
        llm = drafts.get(item.id, {})
        for annotator in sorted(active.get(item.id, ())):
            views, overall = store.item_view(item.id, annotator)
            row = {"id": item.id, "task": item.task, "annotator": annotator, **_explained(views)}
            if item.compares:
                rows.append({**row, **_compared(item, views, store.preference(item.id, annotator), llm)})
            else:
                rows.append({**row, **_scored(item, views, overall, llm)})
    return rows


def _explained(views: Sequence[CriterionView]) -> dict[str, Any]:
    """What an annotator's row holds for every kind of item: their explanations and criteria."""
    return {
        "explanations": {view.name: [s.text for s in view.sentences if s.text is not None] for view in views},
        "criteria": [view.name for view in views],
        "renamed": {view.name: view.title for view in views if view.title != view.name},
    }


def _scored(
    item: Item, views: Sequence[CriterionView], overall: float | None, llm: Mapping[str, Draft]
) -> dict[str, Any]:
    return {
        "kind": "output",
        "system": item.system,
        "done": finished(views, overall),
        "scores": {view.name: view.score for view in views},
        "overall": overall,
        "llm_scores": {name: d.score for name, d in llm.items() if name != OVERALL},
        "llm_overall": llm[OVERALL].score if OVERALL in llm else None,
    }


def _compared(
    item: Item, views: Sequence[CriterionView], preference: int | None, llm: Mapping[str, Draft]
) -> dict[str, Any]:
    overall = llm.get(OVERALL)
    return {
        "kind": "comparison",
        "candidates": [{"output": c.output, "system": c.system} for c in item.candidates],
        "done": finished(views, preference),
        "scores": {view.name: list(view.scores) for view in views},
        "preference": preference,
        "llm_scores": {name: list(d.scores) for name, d in llm.items() if name != OVERALL},
        "llm_weights": {name: d.weight for name, d in llm.items() if name != OVERALL},
        "llm_overall": list(overall.scores) if overall is not None else None,
        "llm_verdict": overall.verdict if overall is not None else None,
    }


def export_actions(store: ReviewStore) -> list[dict[str, Any]]:
    """Every action of every annotator, oldest first: stage-1 criteria actions, sentence actions, scores
    (``candidate`` set on a comparison's), and preferences."""
    rows: list[dict[str, Any]] = []
    for action in store.criteria_actions():
        rows.append({"stage": "criteria", **action})
    for action in store.sentence_actions():
        rows.append({"stage": "sentence", **action})  # a negative ``sentence`` is -id of its ``add``
    for action in store.score_actions():
        rows.append({"stage": "score", "action": "score", **action})
    for action in store.candidate_scores():
        rows.append({"stage": "score", "action": "score", **action})
    for action in store.preferences():
        rows.append({"stage": "preference", "action": "prefer", **action})
    rows.sort(key=lambda row: row["created_at"])
    return rows
