"""Reading a run's record: the one place the viewer reads run records, of every command and schema.

A record is read into the shape of the typed run record (one schema for every command: ``command``,
``argv``, times, ``method``, ``llm``, ``options``, ``inputs``, ``spend``, ``summary``, ``written``), so
that the pages read one shape whatever wrote it. Records of schema 1 (each command its own shape) and
the files that stand for a record (a meta-evaluation's ``summary.json``, an HD-Eval ``evaluator.json``)
are moved into it here. When `faceteval.store` reads typed records itself, `read_record` is the
function to change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from faceteval._util.files import read_json_object
from faceteval.errors import FacetevalError

__all__ = ["COMMANDS", "Command", "RecordView", "read_record"]

Command = Literal["judge", "meta-eval", "hdeval train", "correct", "bridge"]
"""The commands whose runs the viewer shows."""
COMMANDS: tuple[Command, ...] = ("judge", "meta-eval", "hdeval train", "correct", "bridge")

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
        return {key: self.data[key] for key in shown if self.data.get(key) not in (None, [], {})}


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
        data = read_json_object(path)
    except FacetevalError as exc:
        return RecordView(command, path, {}, str(exc))
    if isinstance(data.get("command"), str):  # the typed record: already in shape
        return RecordView(command, path, data)
    return RecordView(command, path, _MOVES[command](data))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _header(data: Mapping[str, Any], command: Command) -> dict[str, Any]:
    out: dict[str, Any] = {"schema_version": data.get("schema_version"), "command": command}
    out |= {key: data[key] for key in _HEADER if key in data}
    if isinstance(data.get("command"), list):
        out["argv"] = data["command"]
    return out | {key: data[key] for key in ("llm", "options", "prompts", "written", "output") if key in data}


def _split_spend(summary: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A schema-1 summary without its LLM use, and that use."""
    counts = dict(summary) if isinstance(summary, Mapping) else {}
    return {k: v for k, v in counts.items() if k not in _SPEND}, {k: counts[k] for k in _SPEND if k in counts}


def _judge(data: Mapping[str, Any]) -> dict[str, Any]:
    out = _header(data, "judge")
    out["inputs"] = {"input": {"path": data.get("input"), "absolute": data.get("input_path")}}
    if "method" in data:
        out["method"] = data["method"]
    out["summary"], out["spend"] = _split_spend(data.get("summary"))
    return out


def _correct(data: Mapping[str, Any]) -> dict[str, Any]:
    out = _header(data, "correct")
    out["inputs"] = {role: {"path": data[role]} for role in ("judgments", "input") if role in data}
    if "llm" not in data and isinstance(data.get("model"), str):
        out["llm"] = {"model": data["model"]}
    out["method"] = {"name": "fennec correction", "params": {"threshold": data.get("threshold")}}
    out["summary"], out["spend"] = _split_spend(data.get("summary"))
    if data.get("improvement") is not None:
        out["summary"]["improvement"] = data["improvement"]
    return out


def _bridge(data: Mapping[str, Any]) -> dict[str, Any]:
    out = _header(data, "bridge")
    out["options"] = {key: data[key] for key in ("benchmark", "judge", "limit") if key in data}
    out["method"] = {"name": "fennec bridging", "params": dict(out["options"])}
    out["spend"] = _split_spend(data.get("spent"))[1]
    summary = dict(_mapping(data.get("summary")))
    out["summary"] = summary | {key: data[key] for key in ("sources", "files") if key in data}
    return out


def _meta_eval(data: Mapping[str, Any]) -> dict[str, Any]:
    out = _header(data, "meta-eval")
    method = data.get("method")
    if isinstance(method, Mapping):
        out["method"] = {key: method[key] for key in ("name", "params") if key in method}
        if isinstance(method.get("model"), str):
            out["llm"] = {"model": method["model"]}
        if "swap" in method:
            out["options"] = {"swap": method["swap"]}
    out["summary"] = {k: v for k, v in data.items() if k not in ("schema_version", "method", "written")}
    return out


def _train(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"schema_version": None, "command": "hdeval train"}
    if "faceteval" in data:
        out["faceteval_version"] = data["faceteval"]
    if isinstance(data.get("aggregator"), str):
        out["method"] = {"name": "hdeval", "params": {"aggregator": data["aggregator"]}}
    extra = [key for key in data if key not in (*_TRAIN, "format", "version", "faceteval")]
    out["summary"] = {key: data[key] for key in (*_TRAIN, *extra) if key in data}
    return out


_MOVES = {
    "judge": _judge,
    "correct": _correct,
    "bridge": _bridge,
    "meta-eval": _meta_eval,
    "hdeval train": _train,
}
