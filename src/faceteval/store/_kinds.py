"""The kinds of run record the store reads back: its own (``judge``, ``meta-eval``) and those method
families register.

A family's `faceteval.methods.MethodSpec` names, in ``records``, where its kinds are (``"module:attr"``,
a sequence of `RecordKind`); the method registry passes them on with `register_record_kinds`, and they
are imported on the first question about a kind. The store names no family: asked about a command it
does not know, it loads the method registry once (built-in families and plugins), then answers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from faceteval._util.files import decode_json
from faceteval.errors import ConfigError
from faceteval.store._record import RunRecord
from faceteval.store._targets import OutputKind

Migration = Callable[[dict[str, Any]], dict[str, Any]]
"""How a record of schema 1 (or one that names no schema) becomes one of this schema."""

METHOD_REGISTRY = "faceteval.methods:method_specs"
"""What registers every family's record kinds when called (the method registry, with its plugins)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordKind:
    """A command's run records, as the store reads them back and the viewer and ``cost`` find them.

    Attributes:
        record: Its model: a `RunRecord` whose ``command`` field defaults to the command's name.
        migrate: How one of schema 1 (or unversioned) becomes one of this schema; None: refused.
        lines: What the command writes beside its record (``<out>.jsonl`` beside ``<out>.run.json``),
            how the viewer and ``cost`` find its runs; None when it writes no such file.
        folder: A file whose presence makes a directory one of its runs (and holds its record), with
            how to tell it (``("evaluator.json", EVALUATOR)``); None: none.
        costed: Whether ``faceteval cost`` lists its runs.
    """

    record: type[RunRecord]
    migrate: Migration | None = None
    lines: OutputKind | None = None
    folder: tuple[str, OutputKind] | None = None
    costed: bool = True

    @property
    def command(self) -> str:
        """The command whose records it models (``correct``)."""
        default = self.record.model_fields["command"].default
        if not isinstance(default, str):
            raise ConfigError(f"{self.record.__name__}: its command field has no default command name")
        return default


_KINDS: dict[str, RecordKind] = {}
_PENDING: list[str] = []
_discovered = False


def register_record_kind(kind: RecordKind) -> None:
    """Add ``kind`` (registering it again does nothing).

    Raises:
        ConfigError: ``kind`` is not a `RecordKind`, or another kind has its command.
    """
    if not isinstance(kind, RecordKind):
        raise ConfigError(f"register_record_kind takes a RecordKind, got {type(kind).__name__}")
    known = _KINDS.get(kind.command)
    if known is not None and known != kind:
        raise ConfigError(f"a run record kind of the command {kind.command!r} is registered already")
    _KINDS[kind.command] = kind


def register_record_kinds(target: str) -> None:
    """Add the kinds ``target`` (``"module:attr"``, a sequence of `RecordKind`) names, when first asked."""
    if target not in _PENDING:
        _PENDING.append(target)


def record_kinds() -> list[RecordKind]:
    """Every kind the store reads: its own first, then the families' in the order registered."""
    _discover()
    return list(_KINDS.values())


def record_kind(command: str) -> RecordKind:
    """The kind of the records of ``command``.

    Raises:
        ConfigError: No registered kind models that command's records.
    """
    kind = _KINDS.get(command)
    if kind is None:
        _discover()
        kind = _KINDS.get(command)
    if kind is None:
        raise ConfigError(f"no kind of run record is registered for the command {command!r}")
    return kind


def find_record_kind(command: object) -> RecordKind | None:
    """The kind of ``command``'s records if one is registered (a file may name any command), else None."""
    if not isinstance(command, str):
        return None
    try:
        return record_kind(command)
    except ConfigError:
        return None


def record_module_name(name: str) -> Any:
    """A name of the module that defines a registered kind's record (``CorrectRecord``, its summary,
    its parts), for code that imported it from `faceteval.store` before the families held them.

    Raises:
        AttributeError: No such module defines ``name``.
    """
    if not name.startswith("_"):  # a dunder an introspecting tool looks for loads no registry
        for kind in record_kinds():
            module = importlib.import_module(kind.record.__module__)
            if hasattr(module, name):
                return getattr(module, name)
    raise AttributeError(f"module 'faceteval.store' has no attribute {name!r}")


def _discover() -> None:
    """Load the method registry once (so that every family registers its kinds), then what it named."""
    global _discovered
    if not _discovered:
        _discovered = True
        module, _, attribute = METHOD_REGISTRY.partition(":")
        getattr(importlib.import_module(module), attribute)()
    while _PENDING:
        target = _PENDING.pop(0)
        for kind in _load(target):
            register_record_kind(kind)


def _load(target: str) -> Iterable[RecordKind]:
    module, _, attribute = target.partition(":")
    loaded = getattr(importlib.import_module(module), attribute)
    return [loaded] if isinstance(loaded, RecordKind) else list(loaded)


class RunRecords:
    """Any command's run record, told apart by its ``command`` (what `RUN_RECORDS` reads)."""

    def validate_python(self, data: object) -> RunRecord:
        """``data`` (a mapping) as the record of the command it names.

        Raises:
            ValidationError: It is not a record of a registered kind, or a field is not what it says.
        """
        command = data.get("command") if isinstance(data, Mapping) else None
        kind = find_record_kind(command)
        if kind is None:
            raise ValidationError.from_exception_data(
                "RunRecord",
                [{"type": "literal_error", "loc": ("command",), "input": command,
                  "ctx": {"expected": ", ".join(repr(k.command) for k in record_kinds())}}],
            )  # fmt: skip
        return kind.record.model_validate(data)

    def validate_json(self, data: str | bytes) -> RunRecord:
        """`validate_python` of the JSON ``data``.

        Raises:
            ValueError: It is not JSON (or not UTF-8); ValidationError as `validate_python`.
        """
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return self.validate_python(decode_json(text))


RUN_RECORDS = RunRecords()
"""Reads any registered command's run record, told apart by its ``command``."""
