"""HD-Eval's run record (``hdeval train``: an evaluator's ``evaluator.json``) and the kinds of file its
workflows write.

Registered through the family's spec (``records``), so that the store reads it back, ``cost`` and the
viewer find its evaluators.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, JsonValue

from faceteval.store import OutputKind, RecordKind, RecordSummary, RunRecord
from faceteval.store.internal import Refused

Data = dict[str, Any]

EVALUATOR_FILE = "evaluator.json"
"""The file that makes a directory an HD-Eval evaluator (its record)."""
TREE = OutputKind("a criteria tree", "yaml", ("task", "criteria"))
EVALUATOR = OutputKind(
    "an HD-Eval evaluator file", "json", ("format", "version", "features"), command="hdeval train"
)
AGGREGATOR = OutputKind("a saved aggregator (skops)", "zip", ("schema.json",))
CRITERION_SCORES = OutputKind("criterion scores JSONL", "jsonl", ("id", "split", "features", "targets"))
EVALUATOR_SUMMARY = OutputKind("an HD-Eval evaluator summary", "json", ("held_out", "split", "tree"))
EXPERIMENTS = OutputKind(
    "HD-Eval experiment results",
    "json",
    (),
    ("ablations", "aggregators", "data", "criteria", "importance", "shap"),
)
SCORED = OutputKind("scored outputs JSONL", "jsonl", ("id", "status"), ("contributions", "missing_criteria"))


class TrainSummary(RecordSummary):
    """What ``hdeval train`` made: an evaluator, as `faceteval.workflows.hdeval` loads it.

    Its targets, features and background are taken as they were written, and checked by the
    evaluator that reads them against each other and its files (each problem named by its field).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=True)

    targets: JsonValue = None
    """The human score aspects it predicts: a non-empty list of distinct names."""
    features: JsonValue = None
    """Tree node ids in the aggregator's column order: a non-empty list of distinct names."""
    background: JsonValue = None
    """Mean training score of each feature (the reference point of each contribution): a number each."""
    aggregator: str | None = None
    task: str | None = None
    benchmark: str | None = None
    source: str | None = None
    """Where the criterion scores came from: the model, or recorded scores."""
    model: JsonValue = None
    """The model (``provider:model``) whose criterion scores it learned; None for recorded scores (an
    evaluator written before it named one has it as its ``source``)."""
    group_by: str | None = None
    system_by: str | None = None
    level: str | None = None
    """The level results are read at (``sample``, ``summary``)."""


class TrainRecord(RunRecord):
    """The record of ``hdeval train``: an evaluator directory's ``evaluator.json``."""

    command: Literal["hdeval train"] = "hdeval train"
    summary: TrainSummary = Field(default_factory=TrainSummary)

    def made_by(self) -> dict[str, Any] | None:
        """HD-Eval, with its aggregator."""
        aggregator = self.summary.aggregator
        return {"name": "hdeval", "params": {"aggregator": aggregator} if aggregator else {}}


TRAIN_SUMMARY = (
    "targets",
    "features",
    "background",
    "aggregator",
    "task",
    "benchmark",
    "source",
    "model",
    "group_by",
    "system_by",
    "level",
)


def migrate_train(data: Data) -> Data:
    """An HD-Eval ``evaluator.json`` of its own format (``format``, ``version``, ``faceteval``)."""
    if data.get("format") != "faceteval-hdeval-evaluator":
        raise Refused("format", f"not an HD-Eval evaluator file (format {data.get('format')!r})")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > 1:
        raise Refused("version", f"evaluator format version {version!r}; this faceteval reads up to 1")
    out: Data = {"schema_version": None, "command": "hdeval train"}
    if "faceteval" in data:
        out["faceteval_version"] = data["faceteval"]
    extra = [key for key in data if key not in (*TRAIN_SUMMARY, "format", "version", "faceteval")]
    out["summary"] = {key: data[key] for key in (*TRAIN_SUMMARY, *extra) if key in data}
    return out


RECORD_KINDS = (RecordKind(record=TrainRecord, migrate=migrate_train, folder=(EVALUATOR_FILE, EVALUATOR)),)
"""The family's run records, as its spec registers them."""
