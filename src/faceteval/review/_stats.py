"""Statistics of a review project, after CoEval's analyses (Li et al., 2023, Section 5 and Appendix).

`review_stats` reads a project and returns plain JSON values, per task and per criterion:

- ``actions``: how annotators acted on the LLM's explanation sentences (Table 13): each annotator's
  latest action on each sentence, plus every ``add`` (an added sentence counts once, as ``add``,
  whatever was done to it later); ``rates`` are fractions of ``n``.
- ``criteria_actions`` (per task): the stage-1 actions on the task's criteria (Table 3), each
  annotator's latest per criterion plus every ``add`` (once, whatever was done to it later).
- ``score_changes``: each annotator's score against the LLM's draft score (``improve``, ``decrease``,
  ``unchange``, as CoEval's ``*_score_change.json`` but without the LLM compared with itself).
- ``alpha``: Krippendorff's alpha, interval and ordinal, among the LLM and every annotator
  (``llm_and_annotators``, Fig. 5) and among the annotators alone; units are the items (per task: the
  (item, criterion) pairs of every criterion but the overall score).
- ``pearson``: the mean Pearson correlation over pairs of annotators (Table 10), and the mean over
  annotators of the LLM's correlation with each (``llm_vs_annotators``).
- ``llm_vs_human``: Pearson and Spearman of the LLM's score against the annotators' mean score per
  item (Tables 5-7), with a bootstrap CI when ``n_resamples`` > 0.
- ``distribution``: how often each score was given, by the LLM and by the annotators (Fig. 4, Table 9).
- ``pairwise_alpha`` (per task): interval alpha of every pair of coders (the matrix of Fig. 5).
- ``preferences`` (per task; None without comparisons): how annotators' preferences on comparisons
  agree with the judge's verdicts and with each other, and the judge's verdicts against the humans'
  label of each comparison: Cohen's kappa, and each verdict's TPR and TNR (``_preferences.py``);
- ``labels`` (per task): the labels it has, and how many more its prediction-powered interval and
  calibration need for the project's targets (``_human_labels.py``).

On a comparison each candidate is a unit of its own: its score on a criterion, by the LLM and by each
annotator, counts as an output's does (the overall scores are the LLM's alone: annotators give a
preference instead). A score is the annotator's latest (`ReviewStore.scores`, `candidates_scores`).
Scores and sentence actions on a criterion the annotator deleted in stage 1 are left out, as
`export_scores` leaves them out. Undefined numbers (a constant side, fewer than two items) are None.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from faceteval.metrics import (
    AlphaLevel,
    average_pairwise_pearson,
    correlation,
    correlation_with_ci,
    krippendorff_alpha,
)
from faceteval.review._human_labels import human_labels, label_needs
from faceteval.review._model import CRITERION_ACTIONS, OVERALL, SENTENCE_ACTIONS, ReviewError
from faceteval.review._preferences import preference_stats
from faceteval.review._store import ReviewStore

__all__ = ["CHANGES", "LEVELS", "LLM", "review_stats"]

LLM = "llm"
"""The LLM's name among the coders of ``pairwise_alpha``."""
LEVELS: tuple[AlphaLevel, ...] = ("interval", "ordinal")
CHANGES = ("improve", "decrease", "unchange")
Scores = list[float | None]


Unit = tuple[str, int]
"""What a score is of: ``(item, 0)`` an output, ``(item, k)`` candidate k of a comparison."""


@dataclass(slots=True)
class _Task:
    """One task's scores and actions, as read from the store."""

    items: list[Unit]
    criteria: list[str]
    annotators: list[str]
    llm: dict[tuple[Unit, str], float] = field(default_factory=dict)
    human: dict[tuple[Unit, str, str], float] = field(default_factory=dict)
    actions: dict[str, Counter[str]] = field(default_factory=dict)
    count: int = 0
    """The task's items (a comparison is one)."""

    def llm_row(self, criterion: str) -> Scores:
        return [self.llm.get((unit, criterion)) for unit in self.items]

    def rows(self, criterion: str) -> list[Scores]:
        """One row of scores per annotator, over the task's units."""
        return [[self.human.get((unit, criterion, a)) for unit in self.items] for a in self.annotators]


def review_stats(
    store: ReviewStore, *, tasks: Sequence[str] | None = None, n_resamples: int = 0, seed: int = 0
) -> dict[str, Any]:
    """The project's statistics (see the module docstring), as plain JSON values.

    Args:
        store: The review project.
        tasks: Only these tasks (default: all).
        n_resamples: Bootstrap resamples for the CIs of ``llm_vs_human`` (0: no CI).
        seed: The bootstrap's seed.

    Raises:
        ReviewError: ``tasks`` names a task the project does not have.
    """
    names = [task for task, _ in store.tasks()]
    unknown = sorted(set(tasks or ()) - set(names))
    if unknown:
        raise ReviewError(
            f"no task {', '.join(map(repr, unknown))} in the project; it has {', '.join(names)}"
        )
    all_drafts = store.drafts()
    drafts = {((d.item_id, 0), d.criterion): d.score for d in all_drafts if d.score is not None}
    drafts |= {
        ((d.item_id, k), d.criterion): score
        for d in all_drafts
        for k, score in enumerate(d.scores, start=1)
        if score is not None
    }
    verdicts = {d.item_id: d.verdict for d in all_drafts if d.criterion == OVERALL and d.scores}
    scores = {((i, 0), c, who): score for (i, c, who), score in store.scores().items()}
    scores |= {((i, k), c, who): score for (i, c, k, who), score in store.candidates_scores().items()}
    preferred = store.preferred()
    task_of = {item.id: item.task for item in store.items()}
    actions: dict[str, list[dict[str, Any]]] = {}
    for row in store.sentence_actions():
        actions.setdefault(task_of.get(row["item_id"], ""), []).append(row)
    labels = {label.id: label for label in human_labels(store)}
    settings = store.settings()
    out: dict[str, Any] = {}
    for task in names:
        if tasks is not None and task not in tasks:
            continue
        data = _read_task(store, task, drafts, scores, actions.get(task, []))
        out[task] = _task_stats(store, task, data, n_resamples, seed)
        out[task]["preferences"] = preference_stats(store.items(task), verdicts, preferred)
        out[task]["labels"] = label_needs(store, task, labels, settings).as_dict()
    return {"annotators": store.annotators(), "tasks": out}


def _read_task(
    store: ReviewStore,
    task: str,
    drafts: Mapping[tuple[Unit, str], float],
    scores: Mapping[tuple[Unit, str, str], float],
    sentence_actions: Sequence[Mapping[str, Any]],
) -> _Task:
    listed = store.items(task)
    items: list[Unit] = [
        (item.id, k)
        for item in listed
        for k in (range(1, len(item.candidates) + 1) if item.compares else [0])
    ]
    ids = set(items)
    kept = {a: {c.name for c in store.final_criteria(task, a)} | {OVERALL} for a in store.annotators()}
    llm = {key: score for key, score in drafts.items() if key[0] in ids}
    human = {key: score for key, score in scores.items() if key[0] in ids and key[1] in kept[key[2]]}
    latest: dict[tuple[str, str, str, int], str] = {}
    actions: dict[str, Counter[str]] = {}
    for row in sentence_actions:  # the task's, oldest first
        if row["criterion"] not in kept[row["annotator"]]:  # a criterion the annotator deleted
            continue
        if row["action"] == "add":
            actions.setdefault(row["criterion"], Counter())["add"] += 1
        elif row["sentence"] >= 0:  # an action on an added sentence leaves it counted as its add
            latest[(row["item_id"], row["criterion"], row["annotator"], row["sentence"])] = row["action"]
    for (_, criterion, _, _), action in latest.items():
        actions.setdefault(criterion, Counter())[action] += 1
    named = [c.name for c in store.criteria(task)]
    seen: set[str] = {key[1] for key in llm} | {key[1] for key in human} | set(actions)
    criteria = named + sorted(seen - set(named) - {OVERALL}) + ([OVERALL] if OVERALL in seen else [])
    annotators = sorted({key[2] for key in human} | {row[2] for row in latest})
    return _Task(items, criteria, annotators, llm, human, actions, count=len(listed))


def _task_stats(store: ReviewStore, task: str, data: _Task, n_resamples: int, seed: int) -> dict[str, Any]:
    criteria = {name: _criterion_stats(data, name, n_resamples, seed) for name in data.criteria}
    pooled = [name for name in data.criteria if name != OVERALL]
    llm: Scores = [score for name in pooled for score in data.llm_row(name)]
    by_criterion = [data.rows(name) for name in pooled]
    rows = [[score for part in by_criterion for score in part[k]] for k in range(len(data.annotators))]
    return {
        "items": data.count,
        "annotators": data.annotators,
        "criteria_actions": _criteria_actions(store, task),
        "actions": _shares(sum((data.actions.get(name, Counter()) for name in pooled), Counter())),
        "score_changes": {c: sum(criteria[name]["score_changes"][c] for name in pooled) for c in CHANGES},
        "alpha": _alphas(llm, rows),
        "pearson": _pearsons(llm, rows),
        "pairwise_alpha": _pairwise_alpha([LLM, *data.annotators], [llm, *rows]),
        "criteria": criteria,
    }


def _criterion_stats(data: _Task, criterion: str, n_resamples: int, seed: int) -> dict[str, Any]:
    llm, rows = data.llm_row(criterion), data.rows(criterion)
    means = [_mean(column) for column in zip(*rows, strict=True)] if rows else [None] * len(llm)
    given = [score for row in rows for score in row if score is not None]
    return {
        "actions": _shares(data.actions.get(criterion, Counter())),
        "score_changes": _changes(llm, rows),
        "alpha": _alphas(llm, rows),
        "pearson": _pearsons(llm, rows),
        "llm_vs_human": {
            method: correlation_with_ci(llm, means, method, n_resamples=n_resamples, seed=seed).as_dict()
            for method in ("pearson", "spearman")
        },
        "distribution": {
            "llm": _distribution(s for s in llm if s is not None),
            "human": _distribution(given),
        },
    }


def _shares(counts: Mapping[str, int]) -> dict[str, Any]:
    n = sum(counts.values())
    return {
        "n": n,
        "counts": {action: counts.get(action, 0) for action in SENTENCE_ACTIONS},
        "rates": {action: counts.get(action, 0) / n if n else None for action in SENTENCE_ACTIONS},
    }


def _criteria_actions(store: ReviewStore, task: str) -> dict[str, Any]:
    latest: dict[tuple[str, int], str] = {}
    counts: Counter[str] = Counter()
    for row in store.criteria_actions(task):
        if row["action"] == "add":  # counted once, whatever was done to it later
            counts["add"] += 1
        elif row["criterion_id"] is None:  # an action on an added criterion
            continue
        else:
            latest[(row["annotator"], row["criterion_id"])] = row["action"]
    counts.update(latest.values())
    n = sum(counts.values())
    return {
        "n": n,
        "counts": {action: counts[action] for action in CRITERION_ACTIONS},
        "rates": {action: counts[action] / n if n else None for action in CRITERION_ACTIONS},
    }


def _changes(llm: Scores, rows: Sequence[Scores]) -> dict[str, int]:
    counts = dict.fromkeys(CHANGES, 0)
    for row in rows:
        for draft, score in zip(llm, row, strict=True):
            if draft is not None and score is not None:
                counts["improve" if score > draft else "decrease" if score < draft else "unchange"] += 1
    return counts


def _alphas(llm: Scores, rows: Sequence[Scores]) -> dict[str, dict[str, float | None]]:
    return {
        "llm_and_annotators": {level: krippendorff_alpha([llm, *rows], level) for level in LEVELS},
        "annotators": {level: krippendorff_alpha(rows, level) if rows else None for level in LEVELS},
    }


def _pearsons(llm: Scores, rows: Sequence[Scores]) -> dict[str, float | None]:
    with_llm = [correlation(llm, row, "pearson").value for row in rows]
    defined = [value for value in with_llm if value is not None]
    return {
        "annotators": average_pairwise_pearson(rows),
        "llm_vs_annotators": math.fsum(defined) / len(defined) if defined else None,
    }


def _pairwise_alpha(coders: Sequence[str], rows: Sequence[Scores]) -> dict[str, dict[str, float | None]]:
    matrix: dict[str, dict[str, float | None]] = {coder: {} for coder in coders}
    for (a, row_a), (b, row_b) in itertools.combinations(zip(coders, rows, strict=True), 2):
        matrix[a][b] = matrix[b][a] = krippendorff_alpha([row_a, row_b], "interval")
    return matrix


def _mean(scores: Iterable[float | None]) -> float | None:
    present = [score for score in scores if score is not None]
    return math.fsum(present) / len(present) if present else None


def _distribution(scores: Iterable[float]) -> dict[str, int]:
    counts = Counter(scores)
    return {_value_key(value): counts[value] for value in sorted(counts)}


def _value_key(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
