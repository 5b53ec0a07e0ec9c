"""Reading a run's record: the one place the viewer reads run records, of every command and schema.

A record is read through the typed run record (`faceteval.store.read_record`: one schema for every
command, ``command``, ``argv``, times, ``method``, ``llm``, ``options``, ``inputs``, ``spend``,
``summary``, ``written``; an older record through its migration), so that the pages read one shape
whatever wrote it. A record the store cannot read is shown with the reason, not raised.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faceteval import store
from faceteval.errors import FacetevalError
from faceteval.store.internal import redacted

__all__ = ["Command", "RecordView", "read_record"]

Command = str
"""A command whose runs the viewer shows: one with a registered kind of run record
(`faceteval.store.record_kinds`: ``judge``, ``meta-eval``, and what the method families register)."""

_SPEND = ("calls", "cached", "retries", "input_tokens", "output_tokens", "cost_usd", "seconds")
_HEADER = ("faceteval_version", "started_at", "finished_at", "interrupted", "stopped_by")
_TRAIN = ("targets", "features", "background", "aggregator", "task", "benchmark", "source", "level")


@dataclass(frozen=True, slots=True)
class RecordView:
    """A run record as the pages read it.

    Attributes:
        command: The command that wrote it.
        path: The file it was read from; None when the run has none.
        data: The record in the typed record's shape (an empty mapping when there is none).
        problem: Why the record could not be read, when it could not.
    """

    command: Command
    path: Path | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    problem: str | None = None

    @property
    def method(self) -> str | None:
        """The method's registry name."""
        method = self.data.get("method")
        return method.get("name") if isinstance(method, Mapping) else None

    @property
    def params(self) -> Mapping[str, Any]:
        """The method's parameters."""
        method = self.data.get("method")
        params = method.get("params") if isinstance(method, Mapping) else None
        return params if isinstance(params, Mapping) else {}

    @property
    def model(self) -> str | None:
        """The LLM asked, as ``provider:model``."""
        llm = self.data.get("llm")
        return llm.get("model") if isinstance(llm, Mapping) else None

    @property
    def started_at(self) -> str | None:
        """When the run started (ISO 8601)."""
        return _text(self.data.get("started_at"))

    @property
    def options(self) -> Mapping[str, Any]:
        """The options that change what was done."""
        return _mapping(self.data.get("options"))

    @property
    def summary(self) -> Mapping[str, Any]:
        """What the command did, in its own terms."""
        return _mapping(self.data.get("summary"))

    @property
    def spend(self) -> Mapping[str, Any]:
        """The run's LLM use (calls, tokens, cost, seconds)."""
        return _mapping(self.data.get("spend"))

    @property
    def result(self) -> Any:
        """The run's result (a judge run's win rates, rankings and facet means), when the record holds one."""
        return self.data.get("result", self.summary.get("result"))

    @property
    def header(self) -> dict[str, Any]:
        """The rest of the record worth a line each: versions, command line, times, how it ended."""
        shown = ("faceteval_version", "argv", "started_at", "finished_at", "interrupted", "stopped_by")
        header = {key: self.data[key] for key in shown if self.data.get(key) not in (None, [], {})}
        if isinstance(header.get("argv"), list):  # an older record may hold an --api-key's value
            header["argv"] = redacted([str(arg) for arg in header["argv"]])
        return header


def read_record(path: Path, command: Command) -> RecordView:
    """The record of a ``command`` run in the file ``path`` (``X.run.json``, ``summary.json``,
    ``evaluator.json``); a file that cannot be read gives a view saying why, not an error.

    Examples:
        >>> import json, tempfile
        >>> path = Path(tempfile.mkdtemp()) / "j.run.json"
        >>> _ = path.write_text(json.dumps({"schema_version": 1, "command": ["faceteval", "judge"],
        ...     "method": {"name": "dna", "params": {}}, "llm": {"model": "openai:m"},
        ...     "summary": {"judgments": {"ok": 2}, "calls": 4}}))
        >>> view = read_record(path, "judge")
        >>> view.method, view.model, view.summary["judgments"], view.spend["calls"]
        ('dna', 'openai:m', {'ok': 2}, 4)
        >>> read_record(path.with_name("missing.run.json"), "judge").problem is not None
        True
    """
    try:
        record = store.read_record(path, store.record_kind(command).record)
    except FacetevalError as exc:
        return RecordView(command, path, {}, str(exc))
    data = record.model_dump(mode="json", exclude_unset=True)  # what the file holds, in the record's shape
    if data.get("method") is None and (method := record.made_by()) is not None:
        data["method"] = method
    return RecordView(command, path, data)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
