"""What a run's page shows of its result: the sections made from its record.

A judge run's result (`faceteval.results.JudgeResult`, stored in its record: win rates with
confidence intervals, a Bradley-Terry ranking, each facet's means and how often it decided the
verdict) has a view of its own (`result_view`, shown by ``_result.html``). Everything else, and a
result that is not of that model, is shown as it is (`block_of`), so a page shows whatever its record
holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval._util.files import read_json_object
from faceteval.errors import FacetevalError
from faceteval.report.internal import guarantee_notes
from faceteval.viewer._judge_result import ResultView, result_view
from faceteval.viewer._record import RecordView
from faceteval.viewer._runs import EVALUATOR_SUMMARY
from faceteval.viewer._summary import Block, Text, block_of

__all__ = ["Section", "evaluator_sections", "headline", "result_sections"]

_METRICS = ("agreement", "agreement_without_ties", "cohen_kappa", "consistency", "positional_agreement")
"""A meta-evaluation's numbers shown first, in this order."""


@dataclass(frozen=True, slots=True)
class Section:
    """A titled part of a run's page: a block shown as it is, or a judge run's result (``view``)."""

    title: str
    block: Block
    id: str
    view: ResultView | None = None


def result_sections(record: RecordView) -> list[Section]:
    """The sections of ``record``: its result, its summary, and its LLM use."""
    sections = []
    if record.result is not None:
        view = result_view(record.result)
        block = Text("") if view is not None else block_of(record.result)
        sections.append(Section("Result", block, "result", view))
    if (selective := _selective(record)) is not None:
        sections.append(selective)
    summary = dict(record.summary)
    if record.command == "meta-eval":
        first = {key: summary.pop(key) for key in _METRICS if summary.get(key) is not None}
        if first:
            sections.append(Section("Agreement with the human labels", block_of(first), "agreement"))
    summary.pop("result", None)
    if summary:
        sections.append(Section("Summary", block_of(summary), "summary"))
    if record.spend:
        sections.append(Section("LLM use", block_of(dict(record.spend)), "spend"))
    if record.header:
        sections.append(Section("Run", block_of(record.header), "header"))
    if record.problem is not None:
        sections.insert(0, Section("Run record", Text(record.problem), "record-problem"))
    return sections


def _selective(record: RecordView) -> Section | None:
    """A run with ``--calibration`` or ``--cascade``: its guarantee, abstentions, each cascade judge, and
    the coverage-agreement curve each threshold was chosen on (as the report states them)."""
    options = record.options
    calibration, cascade = options.get("calibration"), options.get("cascade")
    if not isinstance(calibration, Mapping) and not isinstance(cascade, Mapping):
        return None
    result: Any = record.result if isinstance(record.result, Mapping) else {}
    statuses: Any = result.get("statuses")
    shown: dict[str, Any] = {"guarantee": " ".join(guarantee_notes(options))}
    shown["abstained"] = statuses.get("abstained", 0) if isinstance(statuses, Mapping) else 0
    if isinstance(cascade, Mapping):
        stages = [dict(stage) for stage in cascade.get("stages") or () if isinstance(stage, Mapping)]
        shown["judges"] = [{k: v for k, v in stage.items() if k != "curve"} for stage in stages]
        shown |= {f"coverage and agreement ({stage.get('judge')})": stage.get("curve") for stage in stages}
    if isinstance(calibration, Mapping):
        shown["threshold"] = {k: v for k, v in calibration.items() if k != "curve"}
        shown["coverage and agreement on the calibration data"] = calibration.get("curve")
    return Section("Selective judging", block_of(shown), "selective")


def evaluator_sections(folder: Path) -> list[Section]:
    """The sections of an HD-Eval evaluator's training summary (``summary.json``): its held-out
    metrics, its tree with each criterion's importance, and the rest."""
    try:
        summary = read_json_object(folder / EVALUATOR_SUMMARY)
    except FacetevalError as exc:
        return [Section("Training summary", Text(str(exc)), "training")]
    sections = []
    if "held_out" in summary:
        sections.append(Section("Held-out metrics", block_of(summary.pop("held_out")), "metrics"))
    tree = summary.pop("tree", None)
    if isinstance(tree, list):
        sections.append(Section("Criteria tree and importance", block_of(_tree_rows(tree)), "tree"))
    if summary:
        sections.append(Section("Training", block_of(summary), "training"))
    return sections


def _tree_rows(tree: list[Any]) -> list[Mapping[str, Any]]:
    """The tree's nodes as rows: a node's name indented by its layer, then what is known of it."""
    rows: list[Mapping[str, Any]] = []
    for node in tree:
        if not isinstance(node, Mapping):
            continue
        depth = node.get("layer", 1) if isinstance(node.get("layer"), int) else 1
        name = "\u2003" * (depth - 1) + str(node.get("name", node.get("id", "?")))
        rows.append({"criterion": name, **{k: v for k, v in node.items() if k not in ("name", "id")}})
    return rows


def headline(record: RecordView) -> list[str]:
    """What a run did, in a few words for the list of runs (its counts)."""
    summary = record.summary
    if record.command == "judge":
        counts = summary.get("judgments")
        parts = [f"{n:,} {status}" for status, n in counts.items()] if isinstance(counts, Mapping) else []
        agreed, disagreed = summary.get("orders_agreed"), summary.get("orders_disagreed")
        if agreed or disagreed:
            parts.append(f"orders agreed {agreed or 0:,}, disagreed {disagreed or 0:,}")
        return parts
    if record.command == "meta-eval":
        parts = [f"n = {summary['n']:,}"] if isinstance(summary.get("n"), int) else []
        if isinstance(status := summary.get("status"), Mapping):
            parts += [f"{n:,} {name}" for name, n in status.items() if n]
        if summary.get("agreement") is not None:
            parts.append(f"agreement {_short(summary['agreement'])}")
        return parts
    keys = {
        "correct": ("responses", "corrected", "kept", "parse_errors", "errors"),
        "bridge": ("records", "kept", "inconsistent", "parse_errors", "errors"),
        "hdeval train": ("targets", "aggregator", "benchmark"),
    }[record.command]
    return [
        f"{key.replace('_', ' ')}: {_short(summary[key])}" for key in keys if summary.get(key) is not None
    ]


def _short(value: Any) -> str:
    block = block_of(value)
    return block.text if isinstance(block, Text) else "…"
