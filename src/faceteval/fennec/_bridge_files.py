"""Writing a bridging run: the records, the kept ones as training chats, and the run's description.

A run over ``<benchmark>`` writes ``<benchmark>.jsonl`` (every `BridgeRecord`, kept or not),
``<benchmark>.sft.jsonl`` (each kept record as a chat in TRL SFTTrainer format: the bridging prompt
with the recovered criteria and guideline, answered by the recorded judgment) and
``<benchmark>.run.json`` (what was run, the prompts' hashes, the counts of `BridgeSummary` and the
usage).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from faceteval._version import __version__
from faceteval.core import Usage
from faceteval.fennec._bridge import TEMPLATES, BridgeRecord, bridging_messages
from faceteval.prompts import load_template

RUN_SCHEMA = 1


def sft_example(record: BridgeRecord) -> dict[str, list[dict[str, str]]]:
    """A kept record as a chat (TRL SFTTrainer format): the bridging prompt, then the recorded judgment.

    Raises:
        ValueError: The record is not kept (failed, or inconsistent).
    """
    if not record.kept or record.criteria_text is None or record.guideline is None:
        raise ValueError(f"{record.id}: only kept records are training examples (status {record.status})")
    prompt = bridging_messages(record, record.criteria_text, record.guideline)
    messages = [m.to_dict() for m in prompt]
    return {"messages": [*messages, {"role": "assistant", "content": record.judgment}]}


@dataclass(frozen=True, slots=True)
class BridgeSummary:
    """Counts and usage of a bridging run.

    Attributes:
        records: Records written.
        kept: Consistent records (the training examples).
        inconsistent: Records whose regenerated judgment disagrees with the recorded one.
        parse_errors: Records with a reply that could not be read, even after a re-ask.
        errors: Records whose calls failed.
        skipped: Recorded outputs without a readable verdict or score (no call made).
        usage: Calls (cached included), tokens and cost.
    """

    records: int
    kept: int
    inconsistent: int
    parse_errors: int
    errors: int
    skipped: int
    usage: Usage

    def to_dict(self) -> dict[str, Any]:
        """As JSON-ready data."""
        return {**{k: v for k, v in asdict(self).items() if k != "usage"}, "usage": self.usage.model_dump()}


def summarize(records: Sequence[BridgeRecord]) -> BridgeSummary:
    """Count what became of ``records``."""
    usage = Usage()
    for record in records:
        usage = usage + record.usage
    return BridgeSummary(
        records=len(records),
        kept=sum(r.kept for r in records),
        inconsistent=sum(r.status == "ok" and r.consistent is False for r in records),
        parse_errors=sum(r.status == "parse_error" for r in records),
        errors=sum(r.status == "error" for r in records),
        skipped=sum(r.status == "skipped" for r in records),
        usage=usage,
    )


@dataclass(frozen=True, slots=True)
class BridgeFiles:
    """Where a bridging run was written."""

    records: Path
    """``<benchmark>.jsonl``: every record."""
    sft: Path
    """``<benchmark>.sft.jsonl``: the kept records as chats."""
    run: Path
    """``<benchmark>.run.json``: what was run, the counts and the usage."""


def bridge_files(out: str | Path, benchmark: str) -> BridgeFiles:
    """The files of ``benchmark``'s bridging run in ``out``.

    Examples:
        >>> bridge_files("bridged", "pandalm").sft.as_posix()
        'bridged/pandalm.sft.jsonl'
    """
    base = Path(out)
    return BridgeFiles(
        base / f"{benchmark}.jsonl", base / f"{benchmark}.sft.jsonl", base / f"{benchmark}.run.json"
    )


def save_bridge(
    records: Sequence[BridgeRecord],
    out: str | Path,
    *,
    benchmark: str,
    judge: str,
    llm: Mapping[str, Any],
    limit: int | None = None,
) -> BridgeFiles:
    """Write every record, the kept ones as chats, and the run's description into ``out``.

    ``llm`` describes the model (`LLM.describe`).

    Raises:
        OSError: A file cannot be written.
    """
    files = bridge_files(out, benchmark)
    files.records.parent.mkdir(parents=True, exist_ok=True)
    lines = [record.model_dump_json() for record in records]
    files.records.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    chats = [json.dumps(sft_example(r), ensure_ascii=False) for r in records if r.kept]
    files.sft.write_text("".join(f"{chat}\n" for chat in chats), encoding="utf-8")
    run = {
        "schema_version": RUN_SCHEMA,
        "faceteval_version": __version__,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "benchmark": benchmark,
        "judge": f"recorded:{judge}",
        "limit": limit,
        "llm": dict(llm),
        "prompts": {name: load_template(name).sha256 for name in TEMPLATES},
        "files": {"records": files.records.name, "sft": files.sft.name},
        "summary": summarize(records).to_dict(),
    }
    files.run.write_text(json.dumps(run, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return files
