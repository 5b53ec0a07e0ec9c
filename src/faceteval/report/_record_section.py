"""The first section of a run's report: what ran (command, files, method, model, options) and its spend."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from faceteval.report._model import Section, Table
from faceteval.report._spend import SPEND_COLUMNS, method_of, spend_cells
from faceteval.store import RunRecord
from faceteval.store.internal import redacted

_SHOWN_CONFIG = ("temperature", "max_tokens", "seed", "top_p", "sample")


def record_section(
    record: RunRecord | None, files: Mapping[str, str], *, problem: str | None = None
) -> Section:
    """The run: its command, ``files`` (a label each: ``Judgments``, ``Input`` ...), method and its
    parameters, model, options, times and how it ended; then what its LLM use cost.

    ``problem`` says why there is no record, when there is none.

    Examples:
        >>> from faceteval.store import JudgeRecord, MethodRecord, SpendRecord
        >>> record = JudgeRecord(method=MethodRecord(name="dna", params={"aspects": 3}),
        ...                      options={"swap": True}, spend=SpendRecord(calls=4))
        >>> section = record_section(record, {"Judgments": "j.jsonl"})
        >>> [row for row in section.tables[0].rows if row[0] in ("Method", "Options")]
        [('Method', 'dna (aspects: 3)'), ('Options', 'swap: true')]
        >>> section.tables[1].rows[0][:2]
        ('4', '0')
    """
    rows = [(label, path) for label, path in files.items()]
    notes: tuple[str, ...] = (problem,) if problem else ()
    if record is None:
        return Section("run", "Run", notes, (Table(("Field", "Value"), tuple(rows), prose=True),))
    rows.append(("Command", record.command))
    params = _pairs(record.method.params) if record.method is not None else ""
    rows.append(("Method", method_of(record) + (f" ({params})" if params else "")))
    if record.llm is not None:
        rows.append(("Model", record.llm.model))
        config = {key: value for key, value in (record.llm.config or {}).items() if key in _SHOWN_CONFIG}
        if text := _pairs(config):
            rows.append(("Generation", text))
    if text := _pairs(record.options):
        rows.append(("Options", text))
    rows += _header(record)
    spend = Table(SPEND_COLUMNS, (spend_cells(record.spend),), title="LLM use", numeric=(True,) * 7)
    if record.spend is None:
        notes += ("The record holds no LLM use: the run called no LLM, or was written before records did.",)
    return Section("run", "Run", notes, (Table(("Field", "Value"), tuple(rows), prose=True), spend))


def _header(record: RunRecord) -> list[tuple[str, str]]:
    rows = []
    if record.started_at:
        rows.append(("Started", record.started_at))
    if record.finished_at:
        rows.append(("Finished", record.finished_at))
    if record.interrupted:
        rows.append(("Ended", "interrupted (what was finished is written)"))
    if record.stopped_by:
        rows.append(("Stopped by", record.stopped_by))
    if record.argv:
        rows.append(("Command line", " ".join(redacted(record.argv))))
    version = record.faceteval_version or "unknown"
    rows.append(("Written by", f"faceteval {version}, run record schema {record.schema_version or 'none'}"))
    return rows


def _pairs(values: Mapping[str, Any]) -> str:
    """``key: value`` pairs, values as JSON (strings bare), None values left out."""
    shown = [
        f"{key}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
        for key, value in values.items()
        if value is not None
    ]
    return "; ".join(shown)
