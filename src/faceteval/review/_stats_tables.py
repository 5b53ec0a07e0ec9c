"""`review_stats`' numbers as plain-text tables, for the terminal and for Markdown."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from faceteval.report import Table, count
from faceteval.report.internal import DASH, decimal, numeric_columns, percent, table_lines
from faceteval.review._model import CRITERION_ACTIONS, OVERALL, SENTENCE_ACTIONS
from faceteval.review._stats import CHANGES, LEVELS

__all__ = ["render_stats_markdown", "stats_tables"]


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
        _preferences_table(tasks),
        _preference_by_annotator_table(tasks),
        _judge_vs_human_table(tasks),
        _labels_table(tasks),
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


def _preferences_table(tasks: Mapping[str, Any]) -> Table:
    rows = []
    for task, data in tasks.items():
        numbers = data.get("preferences")
        if not numbers:
            continue
        judge, among = numbers["with_judge"], numbers["among_annotators"]
        rows.append(
            (
                task,
                count(numbers["items"]),
                count(numbers["preferences"]),
                _agreed(judge["agree"], judge["n"]),
                decimal(judge["cohen_kappa"]),
                _agreed(judge["without_ties"]["agree"], judge["without_ties"]["n"]),
                _agreed(among["agree"], among["pairs"]),
                decimal(numbers["alpha"]["annotators"]),
                decimal(numbers["alpha"]["judge_and_annotators"]),
            )
        )
    columns = (
        "Task",
        "Comparisons",
        "Preferences",
        "Agree with judge",
        "κ with judge",
        "Agree with judge, no ties",
        "Annotator pairs agree",
        "α annotators",
        "α judge + annotators",
    )
    note = (
        "Annotators' preferences (a response, or a tie) against the judge's verdict: raw agreement with "
        "its counts and Cohen's κ; among annotators: agreement over every pair who judged an item, and "
        "Krippendorff's α (nominal)."
    )
    return Table(columns, tuple(rows), "Preferences on comparisons", note, numeric_columns(1, 8))


def _preference_by_annotator_table(tasks: Mapping[str, Any]) -> Table:
    rows = tuple(
        (task, who, count(n["n"]), _agreed(n["agree"], n["n"]), decimal(n["cohen_kappa"]))
        for task, data in tasks.items()
        if data.get("preferences")
        for who, n in data["preferences"]["with_judge"]["by_annotator"].items()
    )
    columns = ("Task", "Annotator", "Preferences", "Agree with judge", "κ with judge")
    return Table(columns, rows, "Preferences against the judge, per annotator", None, numeric_columns(2, 3))


def _agreed(agree: int, n: int) -> str:
    """``agree`` of ``n`` as a percentage with its counts: ``75.0% (3/4)``."""
    return f"{percent(agree / n if n else None)} ({agree:,}/{n:,})"


def _judge_vs_human_table(tasks: Mapping[str, Any]) -> Table:
    rows = []
    for task, data in tasks.items():
        numbers = (data.get("preferences") or {}).get("judge_vs_human")
        if not numbers or not numbers["items"]:
            continue
        for verdict, n in numbers["per_verdict"].items():
            rows.append(
                (
                    task,
                    verdict,
                    count(n["humans"]),
                    _agreed(n["judge_too"], n["humans"]),
                    _agreed(n["judge_not"], n["others"]),
                    decimal(numbers["cohen_kappa"]),
                )
            )
    columns = ("Task", "Verdict", "Humans gave it", "TPR", "TNR", "κ, items")
    note = (
        "Per comparison, the judge's verdict against the humans' label (their most common preference; a "
        "tie when two are): TPR, of the items humans gave the verdict, the share the judge gave it too; "
        "TNR, of the others, the share it did not either; Cohen's κ over the items."
    )
    return Table(columns, tuple(rows), "Judge vs humans, per verdict", note, numeric_columns(2, 4))


def _labels_table(tasks: Mapping[str, Any]) -> Table:
    rows = []
    notes = []
    for task, data in tasks.items():
        n = data.get("labels")
        if not n:
            continue
        estimate = n["estimate"] or {}
        ci = estimate.get("ci")
        rows.append(
            (
                task,
                count(n["labels"]),
                count(n["labelled"]),
                count(n["random_sample"]),
                decimal(estimate.get("value")),
                DASH if not ci else f"[{decimal(ci[0])}, {decimal(ci[1])}]",
                count(n["more_for_width"]),
                count(n["more_for_guarantee"]),
            )
        )
        notes.append(f"{task}: " + " ".join(n["summary"]))
    columns = (
        "Task",
        "Labels",
        "Items labelled",
        "Random sample",
        "PPI estimate",
        "95% CI",
        "More for the width",
        "More for calibration",
    )
    title = "Human labels and how many more"
    return Table(columns, tuple(rows), title, " ".join(notes), numeric_columns(1, 7))
