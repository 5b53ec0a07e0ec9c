"""Reading a run record back, whatever version of faceteval wrote it.

Records of schema 1 (each command had its own shape) and those that named no schema version (an
HD-Eval ``evaluator.json`` with its own ``format``, records written by hand) are moved into the
current shape by the migration of the command's `RecordKind` (the families' kinds bring their own,
written with `old_header`, `old_sections`, `old_spend` and `without`), then validated by its model.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from faceteval._util.files import read_json_object
from faceteval.errors import InputError
from faceteval.store._kinds import RecordKind, find_record_kind, register_record_kind
from faceteval.store._record import RECORD_SCHEMA, RunRecord
from faceteval.store._record_kinds import JudgeRecord, MetaEvalRecord
from faceteval.store._runfiles import record_path_for
from faceteval.store._targets import JUDGMENTS

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
        registered = find_record_kind(command)
        if registered is None or registered.migrate is None:
            problem = f"a {command!r} record of schema {version}, which this faceteval does not read"
            raise InputError(source, None, "schema_version", problem)
        try:
            data = registered.migrate(dict(data))
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


def old_header(data: Data, command: str) -> Data:
    """The header of a schema-1 (or unversioned) record, in the current names."""
    out: Data = {"schema_version": data.get("schema_version"), "command": command}
    out |= {key: data[key] for key in HEADER if key in data}
    argv = data.get("command")
    if isinstance(argv, list):
        out["argv"] = argv
    return out


def old_sections(data: Data) -> Data:
    """The sections schema 1 kept under the same names: LLM, options, prompts, outputs."""
    return {key: data[key] for key in ("llm", "options", "prompts", "written", "output") if key in data}


def old_spend(counts: Any) -> Data | None:
    if not isinstance(counts, dict) or not any(key in counts for key in SPEND):
        return None
    return {key: counts[key] for key in SPEND if key in counts}


def without(counts: Any, keys: tuple[str, ...]) -> Any:
    """``counts`` without ``keys`` (left as it is when it is not a mapping, to fail validation)."""
    return {k: v for k, v in counts.items() if k not in keys} if isinstance(counts, dict) else counts


def _judge(data: Data) -> Data:
    """A ``judge`` record of schema 1: its input as ``input``/``input_path``/``input_sha256``, and its LLM
    use in ``summary``."""
    out = old_header(data, "judge") | old_sections(data)
    given = {"path": "input", "absolute": "input_path", "sha256": "input_sha256"}
    if any(key in data for key in given.values()):
        out["inputs"] = {"input": {part: data.get(key) for part, key in given.items()}}
    if "method" in data:
        out["method"] = data["method"]
    summary = data.get("summary", {})
    out["spend"] = old_spend(summary)
    out["summary"] = without(summary, SPEND)
    return out


METHOD_EXTRAS = ("model", "swap")
"""What a schema-1 summary's ``method`` held beside its name and parameters."""


def _meta_eval(data: Data) -> Data:
    """A meta-evaluation ``summary.json`` of schema 1 (or unversioned): its numbers at the top, and the
    model and ``swap`` in its ``method``."""
    out = old_header(data, "meta-eval")
    if "written" in data:
        out["written"] = data["written"]
    method = data.get("method")
    if isinstance(method, dict):
        out["method"] = without(method, METHOD_EXTRAS)
        if isinstance(method.get("model"), str):
            out["llm"] = {"model": method["model"]}
        if "swap" in method:
            out["options"] = {"swap": method["swap"]}
    elif method is not None:
        out["method"] = method
    out["summary"] = {k: v for k, v in data.items() if k not in ("schema_version", "method", "written")}
    return out


register_record_kind(RecordKind(record=JudgeRecord, migrate=_judge, lines=JUDGMENTS))
register_record_kind(RecordKind(record=MetaEvalRecord, migrate=_meta_eval, costed=False))
