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

A score is the annotator's latest (`ReviewStore.scores`). Scores and sentence actions on a criterion
the annotator deleted in stage 1 are left out, as `export_scores` leaves them out. Undefined numbers
(a constant side, fewer than two items) are None.
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
from faceteval.report import DASH, Table, count, decimal, numeric_columns, percent, table_lines
from faceteval.review._model import CRITERION_ACTIONS, OVERALL, SENTENCE_ACTIONS, ReviewError
from faceteval.review._store import ReviewStore

__all__ = ["LLM", "render_stats_markdown", "review_stats", "stats_tables"]

LLM = "llm"
"""The LLM's name among the coders of ``pairwise_alpha``."""
LEVELS: tuple[AlphaLevel, ...] = ("interval", "ordinal")
CHANGES = ("improve", "decrease", "unchange")
Scores = list[float | None]


@dataclass(slots=True)
class _Task:
    """One task's scores and actions, as read from the store."""

    items: list[str]
    criteria: list[str]
    annotators: list[str]
    llm: dict[tuple[str, str], float] = field(default_factory=dict)
    human: dict[tuple[str, str, str], float] = field(default_factory=dict)
    actions: dict[str, Counter[str]] = field(default_factory=dict)

    def llm_row(self, criterion: str) -> Scores:
        return [self.llm.get((item, criterion)) for item in self.items]

    def rows(self, criterion: str) -> list[Scores]:
        """One row of scores per annotator, over the task's items."""
        return [[self.human.get((item, criterion, a)) for item in self.items] for a in self.annotators]


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
    drafts = {(d.item_id, d.criterion): d.score for d in store.drafts() if d.score is not None}
    scores = store.scores()
    task_of = {item.id: item.task for item in store.items()}
    actions: dict[str, list[dict[str, Any]]] = {}
    for row in store.sentence_actions():
        actions.setdefault(task_of.get(row["item_id"], ""), []).append(row)
    out: dict[str, Any] = {}
    for task in names:
        if tasks is not None and task not in tasks:
            continue
        data = _read_task(store, task, drafts, scores, actions.get(task, []))
        out[task] = _task_stats(store, task, data, n_resamples, seed)
    return {"annotators": store.annotators(), "tasks": out}


def _read_task(
    store: ReviewStore,
    task: str,
    drafts: Mapping[tuple[str, str], float],
    scores: Mapping[tuple[str, str, str], float],
    sentence_actions: Sequence[Mapping[str, Any]],
) -> _Task:
    items = [item.id for item in store.items(task)]
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
    seen = {key[1] for key in itertools.chain(llm, human)} | set(actions)
    criteria = named + sorted(seen - set(named) - {OVERALL}) + ([OVERALL] if OVERALL in seen else [])
    annotators = sorted({key[2] for key in human} | {row[2] for row in latest})
    return _Task(items, criteria, annotators, llm, human, actions)


def _task_stats(store: ReviewStore, task: str, data: _Task, n_resamples: int, seed: int) -> dict[str, Any]:
    criteria = {name: _criterion_stats(data, name, n_resamples, seed) for name in data.criteria}
    pooled = [name for name in data.criteria if name != OVERALL]
    llm: Scores = [score for name in pooled for score in data.llm_row(name)]
    by_criterion = [data.rows(name) for name in pooled]
    rows = [[score for part in by_criterion for score in part[k]] for k in range(len(data.annotators))]
    return {
        "items": len(data.items),
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


# -- tables ---------------------------------------------------------------------------------------


def stats_tables(stats: Mapping[str, Any]) -> list[Table]:
    """`review_stats`' numbers as plain-text tables, for the terminal and for Markdown."""
    tasks: Mapping[str, Any] = stats.get("tasks", {})
    tables = [
        _actions_table(tasks),
        _criteria_actions_table(tasks),
        _changes_table(tasks),
        _agreement_table(tasks),
        _correlation_table(tasks),
        _distribution_table(tasks),
    ]
    tables += [_pairwise_table(task, data["pairwise_alpha"]) for task, data in tasks.items()]
    return [table for table in tables if table.rows]


def render_stats_markdown(stats: Mapping[str, Any]) -> str:
    """`review_stats`' numbers as a Markdown document."""
    lines = ["# Review statistics", ""]
    for table in stats_tables(stats):
        lines += table_lines(table)
    return "\n".join(lines)


def _rows(tasks: Mapping[str, Any], *, pooled: bool = True) -> Iterable[tuple[str, str, Mapping[str, Any]]]:
    """``(task, criterion label, numbers)`` per criterion, then the task's pooled numbers."""
    for task, data in tasks.items():
        for name, numbers in data["criteria"].items():
            yield task, name if name != OVERALL else "(overall)", numbers
        if pooled:
            yield task, "(all criteria)", data


def _actions_table(tasks: Mapping[str, Any]) -> Table:
    rows = tuple(
        (task, name, count(n["actions"]["n"]), *(percent(n["actions"]["rates"][a]) for a in SENTENCE_ACTIONS))
        for task, name, n in _rows(tasks)
        if n["actions"]["n"]
    )
    columns = ("Task", "Criterion", "Actions", *(a.capitalize() for a in SENTENCE_ACTIONS))
    note = (
        "Latest action per annotator and sentence of the LLM's explanation, and every add (CoEval Table 13)."
    )
    return Table(columns, rows, "Sentence actions", note, numeric_columns(2, 5))


def _criteria_actions_table(tasks: Mapping[str, Any]) -> Table:
    rows = tuple(
        (
            task,
            count(d["criteria_actions"]["n"]),
            *(count(d["criteria_actions"]["counts"][a]) for a in CRITERION_ACTIONS),
        )
        for task, d in tasks.items()
        if d["criteria_actions"]["n"]
    )
    columns = ("Task", "Actions", *(a.capitalize() for a in CRITERION_ACTIONS))
    return Table(columns, rows, "Criteria actions (stage 1, CoEval Table 3)", None, numeric_columns(1, 5))


def _changes_table(tasks: Mapping[str, Any]) -> Table:
    rows = []
    for task, name, numbers in _rows(tasks):
        changes = numbers["score_changes"]
        total = sum(changes.values())
        if total:
            rows.append(
                (
                    task,
                    name,
                    count(total),
                    *(f"{changes[c]:,} ({percent(changes[c] / total)})" for c in CHANGES),
                )
            )
    columns = ("Task", "Criterion", "Scores", "Improve", "Decrease", "Unchange")
    return Table(columns, tuple(rows), "Score changes, LLM → annotator", None, numeric_columns(2, 4))


def _agreement_table(tasks: Mapping[str, Any]) -> Table:
    rows = tuple(
        (
            task,
            name,
            *(
                decimal(n["alpha"][group][level])
                for group in ("llm_and_annotators", "annotators")
                for level in LEVELS
            ),
            decimal(n["pearson"]["annotators"]),
            decimal(n["pearson"]["llm_vs_annotators"]),
        )
        for task, name, n in _rows(tasks)
    )
    columns = (
        "Task",
        "Criterion",
        "α interval, LLM + annotators",
        "α ordinal, LLM + annotators",
        "α interval, annotators",
        "α ordinal, annotators",
        "Mean r, annotator pairs",
        "Mean r, LLM vs annotator",
    )
    note = "Krippendorff's α (CoEval Fig. 5); mean pairwise Pearson r (CoEval Table 10)."
    return Table(columns, rows, "Agreement", note, numeric_columns(2, 6))


def _correlation_table(tasks: Mapping[str, Any]) -> Table:
    rows = []
    for task, name, numbers in _rows(tasks, pooled=False):
        result = numbers["llm_vs_human"]
        rows.append(
            (
                task,
                name,
                count(result["pearson"]["n"]),
                *(cell for method in ("pearson", "spearman") for cell in _with_ci(result[method])),
            )
        )
    columns = ("Task", "Criterion", "n", "Pearson", "95% CI", "Spearman", "95% CI")
    title = "LLM score vs mean annotator score (CoEval Tables 5-7)"
    return Table(columns, tuple(rows), title, None, numeric_columns(2, 5))


def _with_ci(result: Mapping[str, Any]) -> tuple[str, str]:
    ci = result.get("ci")
    return decimal(result["value"]), DASH if not ci else f"[{decimal(ci[0])}, {decimal(ci[1])}]"


def _distribution_table(tasks: Mapping[str, Any]) -> Table:
    values = sorted(
        {
            v
            for _, _, n in _rows(tasks, pooled=False)
            for who in ("llm", "human")
            for v in n["distribution"][who]
        },
        key=float,
    )
    rows = []
    for task, name, numbers in _rows(tasks, pooled=False):
        for who, label in (("llm", "LLM"), ("human", "annotators")):
            counts = numbers["distribution"][who]
            total = sum(counts.values())
            if total:
                rows.append(
                    (task, name, label, count(total), *(percent(counts.get(v, 0) / total) for v in values))
                )
    title = "Score distribution (CoEval Fig. 4, Table 9)"
    return Table(
        ("Task", "Criterion", "By", "Scores", *values),
        tuple(rows),
        title,
        None,
        numeric_columns(3, 1 + len(values)),
    )


def _pairwise_table(task: str, matrix: Mapping[str, Mapping[str, float | None]]) -> Table:
    coders = list(matrix)
    rows = tuple(
        (coder, *("1.000" if coder == other else decimal(matrix[coder].get(other)) for other in coders))
        for coder in coders
    )
    title = f"Pairwise α (interval), {task}: every criterion pooled (CoEval Fig. 5)"
    return Table(("", *coders), rows if len(coders) > 1 else (), title, None, numeric_columns(1, len(coders)))
