"""What `faceteval hdeval` prints: the held-out results of a trained evaluator."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from faceteval._cli.kit import Console, escape
from faceteval._util.text import plural

console = Console(highlight=False, soft_wrap=True, emoji=False)


def show_held_out(summary: dict[str, Any]) -> None:
    """The held-out correlations of a trained evaluator's ``summary``, as a table at its headline level
    (HD-Eval's, per output), then one at each other level it has (per source document, per system)."""
    level = summary["level"]
    others = sorted(
        {other for rows in summary["held_out"].values() for levels in rows.values() for other in levels}
        - {level}
    )
    _show_level(summary, level)
    for other in others:
        _show_level(summary, other)
    if summary["split"]["left_out"]:
        console.print(
            f"{plural(summary['split']['left_out'], 'instance')} left out: a criterion score could not be "
            "read"
        )


LEVELS = {
    "sample": "per output",
    "summary": "within each source document, then averaged",
    "system": "over the systems' mean scores",
}
"""What each level of a held-out correlation correlates."""


def _show_level(summary: dict[str, Any], level: str) -> None:
    from faceteval.workflows.hdeval._results import SCORERS

    about = LEVELS.get(level)
    if level == "summary" and (group_by := summary.get("group_by")):
        about = f"within each {escape(str(group_by))}, then averaged"
    table = Table(
        title=f"Held-out correlation with human scores ({level} level{f': {about}' if about else ''}; "
        f"{plural(summary['split']['test'], 'test output')})",
        title_justify="left",
    )
    for column in ("target", "scorer", "pearson", "spearman", "kendall"):
        table.add_column(column, justify="left" if column in ("target", "scorer") else "right")
    for target, rows in summary["held_out"].items():
        for scorer, levels in rows.items():
            if level not in levels:
                continue
            cells = levels[level]
            table.add_row(
                escape(target),
                escape(SCORERS.get(scorer, scorer)),
                *(_cell(cells.get(m, {})) for m in ("pearson", "spearman", "kendall")),
            )
    console.print(table)


def _cell(entry: dict[str, Any]) -> str:
    value = entry.get("value")
    if value is None:
        return "n/a"
    ci = entry.get("ci")
    return f"{value:.3f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
