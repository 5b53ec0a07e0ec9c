"""Writing a bridging run: the records, the kept ones as training chats, and the run's description.

A run over ``<benchmark>`` writes ``<benchmark>.jsonl`` (every `BridgeRecord`, kept or not),
``<benchmark>.sft.jsonl`` (each kept record as a chat in TRL SFTTrainer format: the bridging prompt
with the recovered criteria and guideline, answered by the recorded judgment; a chat already written
is not written again) and ``<benchmark>.run.json`` (its run record, `faceteval.store.BridgeRunRecord`:
what was run, the prompts' hashes, the counts of `BridgeSummary` and the usage, and each file's line
count and SHA-256). `BridgeWriter` writes the
records and chats one by one as they finish, so a run stopped midway keeps what it finished; they are
put in place when the run ends (a crash leaves the earlier files as they were).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from faceteval.core import Usage
from faceteval.errors import StoreError
from faceteval.prompts import Prompts, Templates
from faceteval.prompts.internal import current_prompts, prompts_of, recorded_prompts
from faceteval.store import LLMRecord, RunFiles
from faceteval.store.internal import header
from faceteval.workflows.fennec._bridge import TEMPLATES, BridgeRecord, bridging_messages
from faceteval.workflows.fennec._records import BridgeRunRecord, BridgeRunSummary
from faceteval.workflows.fennec._sft_model import Repeats, Sample


def sft_sample(record: BridgeRecord, prompts: Prompts | None = None) -> Sample:
    """A kept record as a training sample: the bridging prompt (as ``prompts`` render it; default:
    those in use), then the recorded judgment.

    Raises:
        ValueError: The record is not kept (failed, or inconsistent).
    """
    if not record.kept or record.criteria_text is None or record.guideline is None:
        raise ValueError(f"{record.id}: only kept records are training examples (status {record.status})")
    prompt = bridging_messages(record, record.criteria_text, record.guideline, prompts)
    return Sample((*((m.role, m.content) for m in prompt), ("assistant", record.judgment)))


def sft_example(record: BridgeRecord) -> dict[str, list[dict[str, str]]]:
    """A kept record as a chat (TRL SFTTrainer format): the bridging prompt, then the recorded judgment.

    Raises:
        ValueError: The record is not kept (failed, or inconsistent).
    """
    return sft_sample(record).to_record()


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
        duplicates: Kept records whose chat repeats one already written (PandaLM, for one, records
            the same judgment of the same pair under several ids): left out of the training chats.
    """

    records: int
    kept: int
    inconsistent: int
    parse_errors: int
    errors: int
    skipped: int
    usage: Usage
    duplicates: int = 0

    @property
    def chats(self) -> int:
        """Training chats written: the kept records but the repeats."""
        return self.kept - self.duplicates


class BridgeTally:
    """Counts records as they come, and tells which kept ones give a chat not seen before."""

    def __init__(self, prompts: Prompts | None = None) -> None:
        self.prompts = prompts
        self.records = 0
        self.outcomes: Counter[str] = Counter()  # kept, inconsistent, or the status that failed or skipped
        self.usage = Usage()
        self.repeats = Repeats()

    def add(self, record: BridgeRecord) -> Sample | None:
        """Count ``record``; its training sample when it is kept and its chat is new, else None."""
        self.records += 1
        self.usage = self.usage + record.usage
        if record.status == "ok":
            self.outcomes["kept" if record.kept else "inconsistent"] += 1
        else:
            self.outcomes[record.status] += 1
        if not record.kept:
            return None
        sample = sft_sample(record, self.prompts)
        return sample if self.repeats.first(sample.messages) else None

    def summary(self) -> BridgeSummary:
        """The counts so far."""
        return BridgeSummary(
            records=self.records,
            kept=self.outcomes["kept"],
            inconsistent=self.outcomes["inconsistent"],
            parse_errors=self.outcomes["parse_error"],
            errors=self.outcomes["error"],
            skipped=self.outcomes["skipped"],
            usage=self.usage,
            duplicates=self.repeats.count,
        )


def summarize(records: Iterable[BridgeRecord]) -> BridgeSummary:
    """Count what became of ``records`` (in this order: a repeated chat's first record is the one kept)."""
    tally = BridgeTally()
    for record in records:
        tally.add(record)
    return tally.summary()


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


class BridgeWriter:
    """Writes a bridging run's records and new chats one by one, as they finish, then its run record.

    The files are written under partial names beside them (`faceteval.store.RunFiles`) and put in
    place by `finish`, with the run record; leaving a ``with`` block without it leaves the earlier
    files as they were. A record and its chat are written together or not at all. `summary` counts
    what was written so far.

    Raises:
        StoreError: A file cannot be written (a full disk is named as such).
    """

    def __init__(self, out: str | Path, benchmark: str, prompts: Prompts | None = None) -> None:
        self.files = bridge_files(out, benchmark)
        self.prompts = prompts or current_prompts()
        self.tally = BridgeTally(self.prompts)
        self._run = RunFiles([self.files.records, self.files.sft], self.files.run)
        self._records = self._run[self.files.records]
        self._sft = self._run[self.files.sft]

    def __enter__(self) -> BridgeWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def write(self, record: BridgeRecord) -> None:
        """Write ``record``, and its chat when it is kept and the chat is not already written."""
        chat = sft_sample(record, self.prompts) if record.kept else None
        new = chat is not None and chat.messages not in self.tally.repeats.seen
        mark = self._records.mark()
        self._records.write(record.model_dump_json() + "\n")
        if new and chat is not None:
            try:
                self._sft.write(json.dumps(chat.to_record(), ensure_ascii=False) + "\n")
            except StoreError:
                self._records.rewind(mark)
                raise
        self.tally.add(record)

    def summary(self) -> BridgeSummary:
        """What was written so far."""
        return self.tally.summary()

    def finish(self, run: BridgeRunRecord) -> Path:
        """Put the records and chats in place, then write ``run`` as the run record; returns its path.

        Raises:
            StoreError: A file could not be written (no record describing other files is left).
        """
        return self._run.finish(run)

    def close(self) -> None:
        """Remove what `finish` did not put in place (the earlier files are left as they were)."""
        self._run.discard()


def bridge_record(
    summary: BridgeSummary,
    files: BridgeFiles,
    *,
    benchmark: str,
    judge: str,
    llm: Mapping[str, Any],
    limit: int | None = None,
    sources: int | None = None,
    prompts: Prompts | None = None,
) -> BridgeRunRecord:
    """What the run record of a bridging run says but its header and spend: what was bridged, with
    which LLM and prompts, and the counts (``sources``: what the run would have bridged)."""
    counts = {k: v for k, v in asdict(summary).items() if k != "usage"}
    return BridgeRunRecord(
        output=str(files.records.parent),
        llm=LLMRecord.of(dict(llm)),
        options={"benchmark": benchmark, "judge": f"recorded:{judge}", "limit": limit},
        **recorded_prompts(TEMPLATES, prompts=prompts),
        summary=BridgeRunSummary(
            **({} if sources is None else {"sources": sources}),
            **counts,
            usage=summary.usage,
            files={"records": files.records.name, "sft": files.sft.name},
        ),
    )


def save_bridge(
    records: Iterable[BridgeRecord],
    out: str | Path,
    *,
    benchmark: str,
    judge: str,
    llm: Mapping[str, Any],
    limit: int | None = None,
    templates: Templates | None = None,
) -> BridgeFiles:
    """Write every record, the kept ones as chats (each distinct chat once), and the run's description.

    ``llm`` describes the model (`LLM.describe`); ``templates`` are those the records were bridged
    with (`bridge`'s), which the chats are rendered with and the description names.

    Raises:
        StoreError: A file cannot be written.
    """
    started = datetime.now(UTC)
    prompts = prompts_of(templates)
    with BridgeWriter(out, benchmark, prompts) as writer:
        for record in records:
            writer.write(record)
        files = writer.files
        run = bridge_record(
            writer.summary(), files, benchmark=benchmark, judge=judge, llm=llm, limit=limit, prompts=prompts
        )
        writer.finish(run.model_copy(update=header("bridge", started)))
    return files
