"""The reports of Fennec's ``correct`` and ``bridge`` runs (what ``faceteval report`` writes for them).

A correction run's report: the run, its counts, the gain of the corrections when they were re-judged
(``--rejudge``), and what changed: each corrected response beside its original, and each correction
that failed. A bridging run's: the run, how many recorded judgments became consistent training
records, and what was recovered for each (its criteria and guideline), and what was not kept.

The record beside the output (``X.run.json``) gives the counts; the output's lines give the items,
read one at a time and kept only while a list has room.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from faceteval._util.files import read_jsonl
from faceteval._version import __version__
from faceteval.errors import FacetevalError, InputError
from faceteval.report import Section, Table, count
from faceteval.report.internal import (
    DASH,
    DEFAULT_ITEMS,
    decimal,
    numeric_columns,
    record_section,
    write_pages,
)
from faceteval.store import RunRecord, read_record, record_path_for
from faceteval.workflows.fennec._bridge import BridgeRecord
from faceteval.workflows.fennec._correct import Correction
from faceteval.workflows.fennec._records import BridgeRunRecord, CorrectRecord

R = TypeVar("R", bound=RunRecord)
TEXT_CHARS = 240
"""How much of a response, correction, guideline or error a row shows."""
_STATUS = {"parse_error": "parse error", "ok": "ok (inconsistent)"}


def report_paths(output: Path) -> tuple[Path, Path]:
    """Where the report of the run whose output is ``X.jsonl`` goes: ``X.report.md``, ``X.report.html``."""
    return output.with_name(f"{output.stem}.report.md"), output.with_name(f"{output.stem}.report.html")


def write_correct_report(
    output: Path, *, markdown_path: Path | None = None, html_path: Path | None = None
) -> tuple[Path, Path]:
    """Write the report of the ``correct`` run whose corrections are ``output``.

    Raises:
        InputError: Its record cannot be read.
    """
    record = _record(output, CorrectRecord)
    lines = _Lines.of(output, Correction, group=lambda c: None if c.status == "kept" else c.status)
    files = {"Corrections": str(output), **_inputs(record)}
    sections = [record_section(record, files), _correct_counts(record), *_gain(record), *_changed(lines)]
    return _write(f"Correction run: {output.name}", sections, record, output, markdown_path, html_path)


def write_bridge_report(
    output: Path, *, markdown_path: Path | None = None, html_path: Path | None = None
) -> tuple[Path, Path]:
    """Write the report of the ``bridge`` run whose records are ``output``.

    Raises:
        InputError: Its record cannot be read.
    """
    record = _record(output, BridgeRunRecord)
    lines = _Lines.of(
        output,
        BridgeRecord,
        group=lambda r: "kept" if r.kept else "inconsistent" if r.status == "ok" else r.status,
    )
    files = {"Records": str(output), **{f"File: {k}": v for k, v in record.summary.files.items()}}
    sections = [
        record_section(record, files),
        _bridge_counts(record),
        *_recovered(lines),
    ]
    return _write(f"Bridging run: {output.name}", sections, record, output, markdown_path, html_path)


def _record(output: Path, kind: type[R]) -> R:
    path = record_path_for(output)
    if not path.is_file():
        raise InputError(str(path), None, None, f"no such file: the run record of {output} is needed")
    return read_record(path, kind)


def _inputs(record: RunRecord) -> dict[str, str]:
    return {role.capitalize(): entry.path for role, entry in record.inputs.items() if entry.path}


def _write(
    title: str,
    sections: list[Section],
    record: RunRecord,
    output: Path,
    markdown_path: Path | None,
    html_path: Path | None,
) -> tuple[Path, Path]:
    default_markdown, default_html = report_paths(output)
    footer = f"faceteval {__version__}, run record schema {record.schema_version}"
    return write_pages(
        title,
        sections,
        (),
        footer,
        markdown_path=markdown_path or default_markdown,
        html_path=html_path or default_html,
    )


@dataclass(slots=True)
class _Lines:
    """The first lines of an output that a report lists (at most `DEFAULT_ITEMS` of a group), by group."""

    kept: dict[str, list[Any]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    problem: str | None = None
    """Why the lines could not all be read, when they could not."""

    @classmethod
    def of(cls, path: Path, model: type[BaseModel], group: Callable[[Any], str | None]) -> _Lines:
        """The lines of ``path`` (each a ``model``), by the group ``group`` puts each in (None: none)."""
        lines = cls()
        try:
            for item in _items(path, model):
                if (name := group(item)) is not None:
                    lines.totals[name] = lines.totals.get(name, 0) + 1
                    listed = lines.kept.setdefault(name, [])
                    if len(listed) < DEFAULT_ITEMS:
                        listed.append(item)
        except FacetevalError as exc:
            lines.problem = f"Not every line could be read: {exc}"
        return lines

    def shown(self, group: str) -> str:
        """How many of a group are listed, of how many."""
        total, listed = self.totals.get(group, 0), len(self.kept.get(group, []))
        if total <= listed:
            return f"{count(total)} in all."
        return f"The first {count(listed)} of {count(total)}."


def _items(path: Path, model: type[BaseModel]) -> Iterator[Any]:
    for number, data in read_jsonl(path):
        try:
            yield model.model_validate(data)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or None
            raise InputError(str(path), number, where, error["msg"]) from None


def _cut(text: str | None) -> str:
    if not text:
        return DASH
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1].rstrip() + "…"


def _counts_table(rows: list[tuple[str, int]]) -> Table:
    return Table(("", "Count"), tuple((name, count(n)) for name, n in rows), numeric=(False, True))


def _correct_counts(record: CorrectRecord) -> Section:
    s = record.summary
    rows = [
        ("Judgments used (ok)", s.judgments),
        ("Judgments skipped (failed)", s.skipped_judgments),
        ("Responses", s.responses),
        ("Below the threshold", s.below_threshold),
        ("Kept", s.kept),
        ("Corrected", s.corrected),
        ("Parse errors", s.parse_errors),
        ("Errors", s.errors),
    ]
    threshold = record.options.get("threshold")
    note = (
        f"A response whose mean criterion score is below {threshold} is rewritten from its judgments; "
        "the others are kept as they were."
    )
    return Section("counts", "Counts", (note,), (_counts_table(rows),))


def _gain(record: CorrectRecord) -> list[Section]:
    s, gain = record.summary, record.summary.improvement
    if gain is None:
        return []
    ci = f"[{decimal(gain.ci[0], 2)}, {decimal(gain.ci[1], 2)}]" if gain.ci and len(gain.ci) == 2 else DASH
    row = (
        count(gain.responses),
        decimal(gain.before, 2),
        decimal(gain.after, 2),
        decimal(gain.gain, 2),
        ci,
        count(gain.wins),
        count(gain.ties),
        count(gain.losses),
    )
    columns = (
        "Responses",
        "Before",
        "After",
        "Gain",
        "Gain CI",
        "Corrected better",
        "Tie",
        "Original better",
    )
    tables = [Table(columns, (row,), numeric=numeric_columns(0, 8))]
    if s.rejudged:
        tables.append(_counts_table([(status, n) for status, n in s.rejudged.items()]))
    note = "Each corrected response judged against its original (both orders): mean 1-5 criterion scores."
    return [Section("gain", "Gain of the corrections", (note,), tuple(tables))]


def _changed(lines: _Lines) -> list[Section]:
    sections = []
    corrected = lines.kept.get("corrected", [])
    if corrected:
        rows = tuple(
            (f"{c.id} #{c.candidate}", decimal(c.score, 2), _cut(c.original), _cut(c.correction))
            for c in corrected
        )
        table = Table(
            ("Response", "Score", "Original", "Correction"),
            rows,
            note=lines.shown("corrected"),
            prose=True,
            numeric=(False, True, False, False),
        )
        sections.append(Section("changed", "What changed", (), (table,)))
    failed = [c for status in ("parse_error", "error") for c in lines.kept.get(status, [])]
    if failed:
        failures = tuple(
            (f"{c.id} #{c.candidate}", _STATUS.get(c.status, c.status), _cut(c.error or c.raw))
            for c in failed
        )
        table = Table(("Response", "Status", "Why"), failures, prose=True)
        sections.append(Section("failed", "Corrections that failed", (), (table,)))
    if lines.problem:
        sections.append(Section("unread", "Lines not read", (lines.problem,)))
    return sections


def _bridge_counts(record: BridgeRunRecord) -> Section:
    s = record.summary
    rows = [
        ("Recorded judgments to bridge", s.sources if s.sources is not None else s.records),
        ("Records written", s.records),
        ("Kept: consistent (the training examples)", s.kept),
        ("Inconsistent (regenerated judgment disagrees)", s.inconsistent),
        ("Parse errors", s.parse_errors),
        ("Errors", s.errors),
        ("Skipped (no readable recorded verdict)", s.skipped),
        ("Duplicates among the kept", s.duplicates),
    ]
    options = record.options
    note = (
        f"Judge {options.get('judge', DASH)} on {options.get('benchmark', DASH)}: for each recorded "
        "judgment, criteria and a scoring guideline are recovered, and the judgment regenerated from "
        "them; a record is kept when the regenerated judgment agrees with the recorded one."
    )
    return Section("counts", "Counts", (note,), (_counts_table(rows),))


def _recovered(lines: _Lines) -> list[Section]:
    sections = []
    if kept := lines.kept.get("kept", []):
        rows = tuple(
            (
                r.id,
                _recorded(r.verdict, r.score),
                _recorded(r.regenerated_verdict, r.regenerated_score),
                "; ".join(c.name for c in r.criteria) or DASH,
                _cut(r.guideline),
            )
            for r in kept
        )
        columns = ("Record", "Recorded", "Regenerated", "Criteria recovered", "Guideline recovered")
        table = Table(columns, rows, note=lines.shown("kept"), prose=True)
        sections.append(Section("recovered", "What was recovered", (), (table,)))
    other = [r for group, listed in lines.kept.items() if group != "kept" for r in listed]
    if other:
        rows = tuple(
            (
                r.id,
                _STATUS.get(r.status, r.status),
                _recorded(r.verdict, r.score),
                _recorded(r.regenerated_verdict, r.regenerated_score),
                _cut(r.error or r.raw),
            )
            for r in other
        )
        table = Table(("Record", "Status", "Recorded", "Regenerated", "Why"), rows, prose=True)
        sections.append(Section("not-kept", "Not kept", (), (table,)))
    if lines.problem:
        sections.append(Section("unread", "Lines not read", (lines.problem,)))
    return sections


def _recorded(verdict: int | None, score: float | None) -> str:
    if verdict is not None:
        return "tie" if verdict == 0 else f"response {verdict}"
    return decimal(score, 1) if score is not None else DASH
