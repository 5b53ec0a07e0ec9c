"""What an instance is known by beyond its own fields: an id made of several fields (``--id a,b``),
the system behind its candidates read from one (``--system-by``), and the groups it belongs to
(``--group-by``).

Each is named by a *key*: an instance field (`KEY_FIELDS`: ``id``, ``query``, ``task``, ``category``,
``reference``, ``systems``) or, for any other name, a key of its ``metadata`` (where a file's columns
that no field uses are carried). A field wins over a metadata key of the same name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from faceteval.core import Instance
from faceteval.datasets._field_map import FieldProblem
from faceteval.errors import ConfigError

KEY_FIELDS = ("id", "query", "task", "category", "reference", "systems")
"""The instance fields a key may name; any other name is a metadata key."""
ID_SEPARATOR = "|"
"""What joins the fields of a composite id (``--id doc,system``: ``d7|gpt-4o``); a value holding it is
refused, so that two different rows never make one id."""


@dataclass(frozen=True, slots=True)
class Keys:
    """How a reader makes an instance's id and systems from its fields (`faceteval.datasets.Reading`'s
    ``id_fields`` and ``system_by``); the default does nothing."""

    id_fields: tuple[str, ...] | None = None
    system_by: str | None = None

    def apply(self, record: dict[str, Any], row: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The instance fields ``record`` (before validation) with its id and systems made by these keys.

        A key is looked up as a field, then a metadata key, then a column of the source ``row`` (so
        that a column another field reads, such as ``systems=system``, can still make the id). The
        systems come from ``system_by`` only when the record names none of its own.

        Raises:
            FieldProblem: A field of the id is missing, is not a text or whole number, or holds
                `ID_SEPARATOR`; the ``system_by`` value is not a name or a list of names.
        """
        if self.id_fields:
            record = {**record, "id": composite_id(record, self.id_fields, row)}
        if self.system_by is not None and record.get("systems") is None:
            value = record_value(record, self.system_by, row)
            if value is not None and value != "":
                record = {**record, "systems": _system_names(self.system_by, value)}
        return record


NO_KEYS = Keys()


def composite_id(
    record: Mapping[str, Any], names: Sequence[str], row: Mapping[str, Any] | None = None
) -> str:
    """The id of ``record`` made of the values of ``names`` (`record_value`), joined by `ID_SEPARATOR`.

    Raises:
        FieldProblem: A value is missing, not a text or whole number, or holds the separator.

    Examples:
        >>> composite_id({"query": "q", "metadata": {"doc": "d7", "system": "a"}}, ["doc", "system"])
        'd7|a'
    """
    parts = []
    made_of = ",".join(names)
    for name in names:
        value = record_value(record, name, row)
        if value is None or value == "":
            raise FieldProblem(name, f"missing: the id is made of {made_of} (--id)")
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise FieldProblem(name, f"expected a text or a whole number for the id, got {_kind(value)}")
        text = str(value)
        if ID_SEPARATOR in text:
            raise FieldProblem(
                name,
                f"{text!r} holds {ID_SEPARATOR!r}, which joins the fields of the id ({made_of}): a "
                "composite id must not be read two ways",
            )
        parts.append(text)
    return ID_SEPARATOR.join(parts)


def record_value(record: Mapping[str, Any], name: str, row: Mapping[str, Any] | None = None) -> Any:
    """The value ``name`` keys in an instance's fields (a field, else a metadata key, else the source
    ``row``'s column of that name); None if absent."""
    if name in KEY_FIELDS:
        return record.get(name)
    metadata = record.get("metadata")
    if isinstance(metadata, Mapping) and (value := metadata.get(name)) is not None:
        return value
    return None if row is None else row.get(name)


def field_value(instance: Instance, name: str) -> Any:
    """The value ``name`` keys in ``instance`` (a field, else a metadata key); None if absent.

    Examples:
        >>> pair = Instance(id="1", query="q", candidates=["a", "b"], category="math", metadata={"doc": 7})
        >>> field_value(pair, "category"), field_value(pair, "doc"), field_value(pair, "topic")
        ('math', 7, None)
    """
    if name in KEY_FIELDS:
        return getattr(instance, name)
    return instance.metadata.get(name)


def key_text(value: Any) -> str | None:
    """A key's value as the text groups are told apart by (None stays None: the instance has no value).

    Examples:
        >>> key_text("d7"), key_text(7), key_text(["a", "b"]), key_text(None)
        ('d7', '7', '["a","b"]', None)
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, bool | int | float | list | dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def group_key(instance: Instance, name: str) -> str | None:
    """The group ``instance`` belongs to by ``name`` (its value as text); None when it has none."""
    return key_text(field_value(instance, name))


def system_key(instance: Instance, system_by: str | None) -> str | None:
    """The system behind a single output: the instance's own ``systems``, else the value of ``system_by``
    (None when neither names one, or the instance has several candidates and names them in neither)."""
    if instance.systems is not None and len(instance.systems) == 1:
        return instance.systems[0]
    if system_by is None:
        return None
    value = field_value(instance, system_by)
    if isinstance(value, list | tuple) and len(value) == 1:
        value = value[0]
    return key_text(value)


def check_key(
    instances: Iterable[Instance], name: str, purpose: str = "group by", *, systems: bool = False
) -> None:
    """Refuse a key that no instance has a value of (reading ``instances`` until one has it); ``purpose``
    says what it was for (``group by``, ``read the systems from``). With ``systems`` (the key names
    the instances' systems), instances that all name their own systems need none.

    Raises:
        ConfigError: No instance has it; the message names the fields and metadata keys they have.
    """
    fields: set[str] = set()
    keys: dict[str, None] = {}
    needed = False
    for instance in instances:
        if field_value(instance, name) is not None:
            return
        needed |= not systems or instance.systems is None
        fields.update(f for f in KEY_FIELDS if getattr(instance, f) is not None)
        keys.update(dict.fromkeys(k for k in instance.metadata if k not in KEY_FIELDS))
    if not needed:
        return  # nothing to group (the run says so itself), or every instance names its systems
    available = [f for f in KEY_FIELDS if f in fields] + sorted(keys)
    raise ConfigError(
        f"cannot {purpose} {name!r}: no instance has a field or metadata key {name!r}; the instances "
        f"have: {', '.join(available) or 'none'}"
    )


def _system_names(name: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise FieldProblem(name, f"expected a system's name, or a list of one per candidate, got {_kind(value)}")


def _kind(value: Any) -> str:
    names = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "text"}
    names |= {list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)
