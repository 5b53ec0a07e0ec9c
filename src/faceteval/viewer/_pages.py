"""What each page of the viewer shows, worked out for its template: the list of runs, a run (its result
and its table of items), an item."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from faceteval.viewer._filters import Filters
from faceteval.viewer._items import candidates, read_line, trace_of
from faceteval.viewer._opened import OpenedRun
from faceteval.viewer._result import evaluator_sections, headline, result_sections
from faceteval.viewer._runs import Run

__all__ = ["ITEM_TEMPLATES", "item_context", "run_context", "runs_context"]

ITEM_TEMPLATES = {
    "judge": "item_judgment.html",
    "meta-eval": "item_judgment.html",
    "correct": "item_correction.html",
    "bridge": "item_bridged.html",
}
"""The template of an item of each command's runs."""
ROW_TEMPLATES = {
    "judge": "_rows_judgment.html",
    "meta-eval": "_rows_judgment.html",
    "correct": "_rows_correction.html",
    "bridge": "_rows_bridged.html",
}
"""The template of the table of items of each command's runs."""
KINDS = {
    "judge": "judge run",
    "meta-eval": "meta-evaluation",
    "hdeval train": "HD-Eval evaluator",
    "correct": "correct run",
    "bridge": "bridge run",
}
"""What the list of runs calls each command's runs."""


def runs_context(runs: Sequence[Run], problems: Sequence[str], paths: Sequence[Path]) -> dict[str, Any]:
    """The list of runs: each one's kind, command, method, model, start and counts."""
    return {"rows": run_rows(runs), "problems": problems, "paths": [str(Path(p).resolve()) for p in paths]}


def run_rows(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """A row of the list of runs for each of ``runs``."""
    rows = []
    for run in runs:
        record = run.read_record()
        rows.append(
            {
                "run": run,
                "kind": KINDS[run.command],
                "name": shown_path(run.path),
                "record": record,
                "when": record.started_at or _modified(run.record or run.path),
                "counts": headline(record),
                "child": run.parent is not None,
            }
        )
    return rows


def _modified(path: Path) -> str | None:
    """When ``path`` was last written (ISO 8601, UTC, to the second), for a run whose record says not."""
    try:
        moment = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None
    return moment.isoformat(timespec="seconds")


def run_context(
    opened: OpenedRun, filters: Filters, number: int, size: int, children: Sequence[Run] = ()
) -> dict[str, Any]:
    """A run's page: its record, its result, the runs of a sweep (``children``), and the page
    ``number`` of its items that ``filters`` keep."""
    run = opened.run
    context: dict[str, Any] = {
        "run": run,
        "kind": KINDS[run.command],
        "name": shown_path(run.path),
        "record": opened.record,
        "sections": result_sections(opened.record),
        "filters": filters,
        "inputs": shown_path(opened.inputs) if opened.inputs else None,
        "input_problem": opened.input_problem,
        "page": None,
        "children": run_rows(children),
    }
    if run.command == "hdeval train":
        context["sections"] += evaluator_sections(run.path)
    if opened.index is not None:
        page = opened.index.page(filters, number, size)
        context |= {
            "page": page,
            "lines": [read_line(opened, row) for row in page.rows],
            "choices": opened.index.choices(),
            "size": size,
            "rows_template": ROW_TEMPLATES[run.command],
        }
    return context


def item_context(opened: OpenedRun, line: int, filters: Filters) -> dict[str, Any] | None:
    """An item's page (None when ``line`` is no item): every field of its line, its candidates side by
    side, its trace, and the items before and after it that ``filters`` keep."""
    index = opened.index
    assert index is not None
    row = index.row(line)
    if row is None:
        return None
    read = read_line(opened, row, instance=True)
    previous, following = index.neighbours(line, filters)
    trace = read.judgment.trace if read.judgment is not None else trace_of((read.data or {}).get("trace"))
    return {
        "template": ITEM_TEMPLATES[opened.run.command],
        "run": opened.run,
        "name": shown_path(opened.run.path),
        "line": read,
        "candidates": candidates(read) if read.judgment is not None else [],
        "trace": trace,
        "filters": filters,
        "previous": previous,
        "next": following,
    }


def shown_path(path: Path) -> str:
    """``path`` as the pages show it: from the working directory when it is below it."""
    try:
        return (
            os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd().resolve()) else str(path)
        )
    except (OSError, ValueError):
        return str(path)
