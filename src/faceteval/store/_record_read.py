"""Reading a run record back, whatever version of faceteval wrote it.

Records of schema 1 (each command had its own shape) and those that named no schema version (an
HD-Eval ``evaluator.json`` with its own ``format``, records written by hand) are moved into the
current shape by one migration per command (`MIGRATIONS`), then validated by the command's model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from faceteval._util.files import read_json_object
from faceteval.errors import InputError
from faceteval.store._record import RECORD_SCHEMA, RunRecord
from faceteval.store._record_kinds import (
    BridgeRunRecord,
    CorrectRecord,
    GenerationRecord,
    JudgeRecord,
    MetaEvalRecord,
    TrainRecord,
)
from faceteval.store._runfiles import record_path_for

R = TypeVar("R", bound=RunRecord)
Data = dict[str, Any]

HEADER = ("faceteval_version", "started_at", "finished_at", "interrupted", "stopped_by")
"""The header fields a schema-1 record had under the same names (its ``command`` was the argv)."""
SPEND = ("calls", "cached", "retries", "input_tokens", "output_tokens", "cost_usd", "seconds")
"""What schema 1 kept of the LLM use in a ``judge`` or ``correct`` summary (``spent`` of ``bridge``)."""


def read_record(path: Path, kind: type[R]) -> R:
    """The run record at ``path``, of the command ``kind`` records, in the current schema.

    Raises:
        InputError: The file cannot be read, is not JSON, is another command's record, was written
            by a newer faceteval, or a field is not what the schema says (named).
    """
    return parse_record(read_json_object(path), kind, source=str(path)).located(path)


def read_run(path: str | Path) -> JudgeRecord:
    """The run record of a ``judge`` run (or of the judging of a meta-evaluation), with its result
    (``.summary.result``, a `faceteval.results.JudgeResult`; None in a record written before results
    were recorded). ``path`` is the judgments file (``j.jsonl``, whose record ``j.run.json`` is beside
    it) or the record itself (``*.run.json``).

    Raises:
        InputError: There is no record beside the judgments, or it cannot be read (a field named).

    Examples:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "j.run.json").write_text(JudgeRecord(output="j.jsonl").to_json())
        >>> read_run(folder / "j.jsonl").output, read_run(folder / "j.run.json").summary.result
        ('j.jsonl', None)
    """
    path = Path(path)
    record = path if path.name.endswith(".run.json") else record_path_for(path)
    if record != path and not record.is_file() and path.exists():
        problem = f"no run record beside it ({record.name}): was it written by faceteval judge --out?"
        raise InputError(str(path), None, None, problem)
    return read_record(record, JudgeRecord)


def parse_record(data: Mapping[str, Any], kind: type[R], *, source: str) -> R:
    """``data`` as a record of ``kind`` (migrated from an older schema); ``source`` names it in errors.

    Examples:
        >>> old = {"schema_version": 1, "input": "p.jsonl", "summary": {"judgments": {"ok": 2}, "calls": 3}}
        >>> record = parse_record(old, JudgeRecord, source="p.run.json")
        >>> record.inputs["input"].path, record.summary.judgments, record.spend.calls
        ('p.jsonl', {'ok': 2}, 3)
    """
    command = command_of(kind)
    version = data.get("schema_version")
    if version is None or version == 1:
        try:
            data = MIGRATIONS[command](dict(data))
        except Refused as exc:
            raise InputError(source, None, exc.field, exc.problem) from None
    elif not isinstance(version, int) or isinstance(version, bool):
        raise InputError(source, None, "schema_version", f"expected a whole number, got {version!r}")
    elif version > RECORD_SCHEMA:
        raise InputError(
            source,
            None,
            "schema_version",
            f"written by a newer faceteval (schema {version}); this one reads up to {RECORD_SCHEMA}",
        )
    elif data.get("command") != command:
        found = data.get("command")
        raise InputError(source, None, "command", f"a run record of {found!r}, not of {command!r}")
    try:
        return kind.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or None
        raise InputError(source, None, where, error["msg"]) from None


class Refused(ValueError):
    """An old record that no migration reads (a field names what is wrong)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field
        self.problem = problem


def command_of(kind: type[RunRecord]) -> str:
    """The command whose records ``kind`` models.

    Examples:
        >>> command_of(MetaEvalRecord)
        'meta-eval'
    """
    default = kind.model_fields["command"].default
    assert isinstance(default, str), kind
    return default


def _header(data: Data, command: str) -> Data:
    """The header of a schema-1 (or unversioned) record, in the current names."""
    out: Data = {"schema_version": data.get("schema_version"), "command": command}
    out |= {key: data[key] for key in HEADER if key in data}
    argv = data.get("command")
    if isinstance(argv, list):
        out["argv"] = argv
    return out


def _common(data: Data) -> Data:
    """The sections schema 1 kept under the same names: LLM, options, prompts, outputs."""
    return {key: data[key] for key in ("llm", "options", "prompts", "written", "output") if key in data}


def _spend(counts: Any) -> Data | None:
    if not isinstance(counts, dict) or not any(key in counts for key in SPEND):
        return None
    return {key: counts[key] for key in SPEND if key in counts}


def _apart(counts: Any, keys: tuple[str, ...]) -> Any:
    """``counts`` without ``keys`` (left as it is when it is not a mapping, to fail validation)."""
    return {k: v for k, v in counts.items() if k not in keys} if isinstance(counts, dict) else counts


def _judge(data: Data) -> Data:
    """A ``judge`` record of schema 1: its input as ``input``/``input_path``/``input_sha256``, and its LLM
    use in ``summary``."""
    out = _header(data, "judge") | _common(data)
    given = {"path": "input", "absolute": "input_path", "sha256": "input_sha256"}
    if any(key in data for key in given.values()):
        out["inputs"] = {"input": {part: data.get(key) for part, key in given.items()}}
    if "method" in data:
        out["method"] = data["method"]
    summary = data.get("summary", {})
    out["spend"] = _spend(summary)
    out["summary"] = _apart(summary, SPEND)
    return out


def _correct(data: Data) -> Data:
    """A ``correct`` record of schema 1: its inputs by name, the model and threshold at the top (as in
    ``llm`` and ``options``), its gain beside the summary."""
    out = _header(data, "correct") | _common(data)
    out["inputs"] = {role: {"path": data[role]} for role in ("judgments", "input") if role in data}
    if "llm" not in data and isinstance(data.get("model"), str):
        out["llm"] = {"model": data["model"]}
    summary = data.get("summary", {})
    out["spend"] = _spend(summary)
    out["summary"] = _apart(summary, SPEND)
    if isinstance(out["summary"], dict) and data.get("improvement") is not None:
        out["summary"]["improvement"] = data["improvement"]
    return out


def _bridge(data: Data) -> Data:
    """A ``bridge`` record of schema 1 (``save_bridge``'s had no header): what was bridged at the top,
    its LLM use in ``spent``."""
    out = _header(data, "bridge") | _common(data)
    out["options"] = {key: data[key] for key in ("benchmark", "judge", "limit") if key in data}
    out["spend"] = _spend(data.get("spent"))
    summary = data.get("summary", {})
    if isinstance(summary, dict):
        summary = summary | {key: data[key] for key in ("sources", "files") if key in data}
    out["summary"] = summary
    return out


METHOD_EXTRAS = ("model", "swap")
"""What a schema-1 summary's ``method`` held beside its name and parameters."""


def _meta_eval(data: Data) -> Data:
    """A meta-evaluation ``summary.json`` of schema 1 (or unversioned): its numbers at the top, and the
    model and ``swap`` in its ``method``."""
    out = _header(data, "meta-eval")
    if "written" in data:
        out["written"] = data["written"]
    method = data.get("method")
    if isinstance(method, dict):
        out["method"] = _apart(method, METHOD_EXTRAS)
        if isinstance(method.get("model"), str):
            out["llm"] = {"model": method["model"]}
        if "swap" in method:
            out["options"] = {"swap": method["swap"]}
    elif method is not None:
        out["method"] = method
    out["summary"] = {k: v for k, v in data.items() if k not in ("schema_version", "method", "written")}
    return out


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


def _train(data: Data) -> Data:
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


def _generation(data: Data) -> Data:
    """A ``generation.json`` of schema 1: the model and the template at the top."""
    out = _header(data, "criteria generate")
    if isinstance(data.get("model"), str):
        out["llm"] = {"model": data["model"]}
    template = data.get("template")
    if isinstance(template, dict) and isinstance(template.get("name"), str):
        out["prompts"] = {template["name"]: template.get("sha256")}
    keys = ("task", "example", "temperature", "samples", "sets", "usage", "failures")
    out["summary"] = {key: data[key] for key in keys if key in data}
    return out


MIGRATIONS: dict[str, Callable[[Data], Data]] = {
    command_of(JudgeRecord): _judge,
    command_of(CorrectRecord): _correct,
    command_of(BridgeRunRecord): _bridge,
    command_of(MetaEvalRecord): _meta_eval,
    command_of(TrainRecord): _train,
    command_of(GenerationRecord): _generation,
}
"""How each command's records of schema 1 (and unversioned ones) become records of this schema."""
