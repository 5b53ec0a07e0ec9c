"""The toy family's run record: ``faceteval toy-tally``'s, registered through the spec's ``records``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from faceteval.store import OutputKind, RecordKind, RecordSummary, RunRecord

TALLIES = OutputKind("toy tallies JSONL", "jsonl", ("id", "toy_winner"))


class TallySummary(RecordSummary):
    """What a tally counted."""

    tallied: int = 0
    first: int = 0
    """Judgments the first candidate won."""

    def written_items(self) -> int | None:
        return self.tallied


class TallyRecord(RunRecord):
    """The record of ``toy-tally`` (``<out>.run.json``)."""

    command: Literal["toy tally"] = "toy tally"
    summary: TallySummary = Field(default_factory=TallySummary)

    def made_by(self) -> dict[str, Any] | None:
        return {"name": "toy tallying", "params": {}}


RECORD_KINDS = (RecordKind(record=TallyRecord, lines=TALLIES),)
