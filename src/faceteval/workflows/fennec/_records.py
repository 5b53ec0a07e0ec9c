"""Fennec's run records (``correct``, ``bridge``) and the kinds of file its workflows write.

Registered through the family's spec (``records``), so that the store reads them back, ``cost`` and
the viewer find their runs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from faceteval.core import Usage
from faceteval.store import OutputKind, RecordKind, RecordPart, RecordSummary, RunRecord
from faceteval.store.internal import SPEND, old_header, old_sections, old_spend, without

Data = dict[str, Any]

CORRECTIONS = OutputKind("corrections JSONL", "jsonl", ("id", "candidate", "status"))
BRIDGE_RECORDS = OutputKind("bridged records JSONL", "jsonl", ("id", "benchmark", "status"))
CHATS = OutputKind("training chats JSONL", "jsonl", ("messages",))
SFT_STATS = OutputKind("SFT statistics", "json", ("sets", "total"))


class CorrectionGain(RecordPart):
    """What correction gained, re-judged against the originals (cf. Fennec's Table 4)."""

    responses: int
    """Re-judged corrected responses counted."""
    before: float | None = None
    """Mean score of their originals (1-5)."""
    after: float | None = None
    """Mean score of their corrections."""
    gain: float | None = None
    """Mean of ``after - before`` per response."""
    ci: list[float] | None = None
    """The gain's confidence interval (Student's t), None with fewer than two responses."""
    confidence: float | None = None
    wins: int = 0
    ties: int = 0
    losses: int = 0


class CorrectSummary(RecordSummary):
    """What a ``correct`` run did."""

    judgments: int = 0
    """Judgments read and used (ok)."""
    skipped_judgments: int = 0
    """Failed judgments, skipped."""
    responses: int = 0
    """Responses written (kept or corrected)."""
    below_threshold: int = 0
    kept: int = 0
    corrected: int = 0
    parse_errors: int = 0
    errors: int = 0
    rejudged: dict[str, int] = Field(default_factory=dict)
    """Corrections re-judged against their originals (``--rejudge``), by status."""
    improvement: CorrectionGain | None = None
    """The gain of the corrections, with ``--rejudge``."""

    def written_items(self) -> int | None:
        """Responses written."""
        return self.responses


class CorrectRecord(RunRecord):
    """The record of a ``correct`` run (``<out>.run.json``). ``inputs``: ``judgments`` and the judged
    ``input``; ``options``: ``threshold``, ``rejudge``, ``trace``."""

    command: Literal["correct"] = "correct"
    summary: CorrectSummary = Field(default_factory=CorrectSummary)

    def made_by(self) -> dict[str, Any] | None:
        """Fennec's correction, with its threshold."""
        return {"name": "fennec correction", "params": {"threshold": self.options.get("threshold")}}


class BridgeRunSummary(RecordSummary):
    """What a ``bridge`` run did."""

    sources: int | None = None
    """Recorded outputs to bridge (what the run would have written had it not stopped)."""
    records: int = 0
    kept: int = 0
    """Consistent records: the training examples."""
    inconsistent: int = 0
    parse_errors: int = 0
    errors: int = 0
    skipped: int = 0
    """Recorded outputs without a readable verdict (no call made)."""
    duplicates: int = 0
    """Kept records whose chat repeats one already written."""
    usage: Usage = Field(default_factory=Usage)
    """The records' calls (cached included), tokens and cost."""
    files: dict[str, str] = Field(default_factory=dict)
    """The file names: ``records`` and ``sft``."""

    def written_items(self) -> int | None:
        """Records written."""
        return self.records


class BridgeRunRecord(RunRecord):
    """The record of a ``bridge`` run (``<benchmark>.run.json``). ``options``: ``benchmark``, ``judge``
    (``recorded:<name>``), ``limit``."""

    command: Literal["bridge"] = "bridge"
    summary: BridgeRunSummary = Field(default_factory=BridgeRunSummary)

    def made_by(self) -> dict[str, Any] | None:
        """Fennec's bridging, with what it was run with."""
        return {"name": "fennec bridging", "params": dict(self.options)}


def migrate_correct(data: Data) -> Data:
    """A ``correct`` record of schema 1: its inputs by name, the model and threshold at the top (as in
    ``llm`` and ``options``), its gain beside the summary."""
    out = old_header(data, "correct") | old_sections(data)
    out["inputs"] = {role: {"path": data[role]} for role in ("judgments", "input") if role in data}
    if "llm" not in data and isinstance(data.get("model"), str):
        out["llm"] = {"model": data["model"]}
    summary = data.get("summary", {})
    out["spend"] = old_spend(summary)
    out["summary"] = without(summary, SPEND)
    if isinstance(out["summary"], dict) and data.get("improvement") is not None:
        out["summary"]["improvement"] = data["improvement"]
    return out


def migrate_bridge(data: Data) -> Data:
    """A ``bridge`` record of schema 1 (``save_bridge``'s had no header): what was bridged at the top,
    its LLM use in ``spent``."""
    out = old_header(data, "bridge") | old_sections(data)
    out["options"] = {key: data[key] for key in ("benchmark", "judge", "limit") if key in data}
    out["spend"] = old_spend(data.get("spent"))
    summary = data.get("summary", {})
    if isinstance(summary, dict):
        summary = summary | {key: data[key] for key in ("sources", "files") if key in data}
    out["summary"] = summary
    return out


RECORD_KINDS = (
    RecordKind(record=CorrectRecord, migrate=migrate_correct, lines=CORRECTIONS),
    RecordKind(record=BridgeRunRecord, migrate=migrate_bridge, lines=BRIDGE_RECORDS),
)
"""The family's run records, as its spec registers them."""
