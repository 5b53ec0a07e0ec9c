"""The report of a judge run: the run, its result, plots, and the items worth a look.

`write_judge_report` reads a judge run (its judgments JSONL, the record beside it and the input the
record names) and writes ``X.report.md`` and ``X.report.html`` beside ``X.jsonl``.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from faceteval._util.text import plural
from faceteval._version import __version__
from faceteval.datasets import HumanLabel
from faceteval.report._format import DASH, count, decimal
from faceteval.report._human import human_section
from faceteval.report._judge_items import item_sections
from faceteval.report._judge_plots import MAX_VALUES, judge_plots
from faceteval.report._judge_run import DEFAULT_ITEMS, JudgeRun, load_judge_run
from faceteval.report._judge_sections import pairwise_sections, pointwise_sections, result_section
from faceteval.report._model import Section, Table, numeric_columns
from faceteval.report._record_section import record_section
from faceteval.report._selective import selective_plot, selective_section
from faceteval.report._write import write_pages

OVERALL = "Overall score"
"""The distribution of the overall scores, beside the facets'."""


def judge_report_paths(judgments: Path) -> tuple[Path, Path]:
    """Where the report of the judge run ``X.jsonl`` goes: ``X.report.md`` and ``X.report.html``.

    Examples:
        >>> [path.name for path in judge_report_paths(Path("runs/dna.jsonl"))]
        ['dna.report.md', 'dna.report.html']
    """
    return judgments.with_name(f"{judgments.stem}.report.md"), judgments.with_name(
        f"{judgments.stem}.report.html"
    )


def write_judge_report(
    judgments: Path,
    *,
    markdown_path: Path | None = None,
    html_path: Path | None = None,
    systems: Sequence[str] | None = None,
    limit: int = DEFAULT_ITEMS,
    labels: Mapping[str, HumanLabel] | None = None,
) -> tuple[Path, Path]:
    """Write the report of the judge run whose judgments are ``judgments`` (by default beside them:
    `judge_report_paths`).

    The run record beside the judgments (``X.run.json``) gives the method, model, options and spend,
    and the result when it holds one; else the result is computed from the judgments and the input
    the record names. ``systems`` names the systems behind the candidates of every instance that
    names none (as ``judge --systems`` did), and the result is then computed with them, as it is with
    ``labels`` (human labels by id in place of the instances' own). Each list of items shows
    ``limit`` at most.

    Returns:
        The paths of the Markdown and the HTML report.

    Raises:
        InputError: The judgments cannot be opened.
    """
    run = load_judge_run(judgments, systems=systems, limit=limit, labels=labels)
    default_markdown, default_html = judge_report_paths(judgments)
    schema = run.record.schema_version if run.record is not None else None
    footer = f"faceteval {__version__}" + (f", run record schema {schema}" if schema is not None else "")
    return write_pages(
        judge_title(run),
        judge_sections(run),
        [*judge_plots(run.result, distributions(run)), *filter(None, [selective_plot(run.record)])],
        footer,
        markdown_path=markdown_path or default_markdown,
        html_path=html_path or default_html,
    )


def judge_title(run: JudgeRun) -> str:
    """``Judge run: j.jsonl (dna, openai:gpt-4o)``, or what of it is known."""
    record = run.record
    about = [
        record.method.name if record and record.method else "",
        record.llm.model if record and record.llm else "",
    ]
    known = ", ".join(part for part in about if part)
    return f"Judge run: {run.path.name}" + (f" ({known})" if known else "")


def judge_sections(run: JudgeRun) -> list[Section]:
    """Every section of a judge run's report, in the order shown."""
    files = {"Judgments": str(run.path), "Input": str(run.inputs) if run.inputs else DASH}
    if run.systems:
        files["Systems"] = f"{', '.join(run.systems)} (of every instance that names none)"
    sections = [record_section(run.record, files, problem=run.record_problem)]
    notes = [note for note in (run.input_problem, _unreadable(run)) if note]
    result = result_section(run.result, stored=run.stored)
    sections.append(Section(result.key, result.title, (*result.notes, *notes), result.tables))
    if (selective := selective_section(run.record, run.result)) is not None:
        sections.append(selective)
    if run.result.pairwise is not None:
        sections += pairwise_sections(run.result.pairwise, run.result.level)
    if run.result.pointwise is not None:
        sections += pointwise_sections(run.result.pointwise, run.result.level)
    if run.result.human is not None:
        sections.append(human_section(run.result.human, run.result.level, rates=run.result.pointwise is None))
    if (shown := distribution_section(distributions(run))) is not None:
        sections.append(shown)
    return sections + item_sections(run.evidence)


def _unreadable(run: JudgeRun) -> str | None:
    if not run.unreadable.lines:
        return None
    return (
        f"{plural(run.unreadable.lines, 'line')} of the judgments could not be read and are left out "
        f"(the first: {run.unreadable.first})."
    )


def distributions(run: JudgeRun) -> dict[str, dict[str, Counter[float]]]:
    """The overall scores' distribution per system, then each facet's (in the result's order)."""
    shown: dict[str, dict[str, Counter[float]]] = {}
    if run.evidence.overall:
        shown[OVERALL] = run.evidence.overall
    return shown | run.evidence.facet_scores


def distribution_section(by_panel: Mapping[str, Mapping[str, Counter[float]]]) -> Section | None:
    """How the scores of each facet (and the overall ones) spread, per system."""
    rows = []
    for name, by_system in by_panel.items():
        for system, counts in sorted(by_system.items()):
            rows.append((name, system, *_spread(counts)))
    if not rows:
        return None
    table = Table(
        ("Scores of", "System", "n", "Min", "Median", "Max", "Each score's count"),
        tuple(rows),
        note=f"Each score's count is listed when there are at most {MAX_VALUES} distinct scores.",
        numeric=(*numeric_columns(2, 4), False),
    )
    return Section("distributions", "Score distributions", (), (table,))


def _spread(counts: Counter[float]) -> tuple[str, str, str, str, str]:
    values = sorted(counts.elements())
    if not values:
        return "0", DASH, DASH, DASH, DASH
    each = (
        ", ".join(f"{value:g}: {n}" for value, n in sorted(counts.items()))
        if len(counts) <= MAX_VALUES
        else DASH
    )
    return (
        count(len(values)),
        decimal(values[0], 2),
        decimal(statistics.median(values), 2),
        decimal(values[-1], 2),
        each,
    )
