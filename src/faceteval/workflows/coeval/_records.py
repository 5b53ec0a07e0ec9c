"""CoEval's run record (``criteria generate``: a directory's ``generation.json``) and the kinds of file
its workflows write.

Registered through the family's spec (``records``), so that the store reads it back.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from faceteval.core import Usage
from faceteval.store import OutputKind, RecordKind, RecordPart, RecordSummary, RunRecord
from faceteval.store.internal import old_header

Data = dict[str, Any]

CRITERIA_SET = OutputKind("a criteria file", "text", ("criteria",))
GENERATION = OutputKind(
    "a criteria generation summary", "json", ("schema_version", "task", "sets"), command="criteria generate"
)
CONSISTENCY = OutputKind("criteria consistency scores", "json", ("cc", "icc", "per_sample"))


class Demonstration(RecordPart):
    """The example shown with the task."""

    input: str
    output: str


class GeneratedSet(RecordPart):
    """One criteria set of a generation."""

    index: int
    """0: the temperature-0 set; 1..N: the samples."""
    temperature: float
    status: str
    file: str | None = None
    """Its criteria file, relative to the directory (None when it failed)."""
    criteria: int = 0
    usage: Usage = Field(default_factory=Usage)
    sha256: str | None = None
    """Its file's SHA-256 as written (edits since are refused unless forced)."""


class GenerationFailure(RecordPart):
    """A set that could not be generated, with its raw replies."""

    index: int
    status: str
    error: str | None = None
    replies: list[str] = Field(default_factory=list)


class GenerationSummary(RecordSummary):
    """What ``criteria generate`` made."""

    task: str = ""
    example: Demonstration | None = None
    temperature: float | None = None
    """The samples' temperature."""
    samples: int = 0
    sets: list[GeneratedSet] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    failures: list[GenerationFailure] = Field(default_factory=list)


class GenerationRecord(RunRecord):
    """The record of ``criteria generate``: the directory's ``generation.json``."""

    command: Literal["criteria generate"] = "criteria generate"
    summary: GenerationSummary = Field(default_factory=GenerationSummary)


def migrate_generation(data: Data) -> Data:
    """A ``generation.json`` of schema 1: the model and the template at the top."""
    out = old_header(data, "criteria generate")
    if isinstance(data.get("model"), str):
        out["llm"] = {"model": data["model"]}
    template = data.get("template")
    if isinstance(template, dict) and isinstance(template.get("name"), str):
        out["prompts"] = {template["name"]: template.get("sha256")}
    keys = ("task", "example", "temperature", "samples", "sets", "usage", "failures")
    out["summary"] = {key: data[key] for key in keys if key in data}
    return out


RECORD_KINDS = (RecordKind(record=GenerationRecord, migrate=migrate_generation, costed=False),)
"""The family's run records, as its spec registers them."""
