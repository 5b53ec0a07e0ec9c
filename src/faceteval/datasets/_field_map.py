"""Field maps: which column of a labelled file feeds each `Instance` field, and how a map is resolved
against the columns a file has (`resolve`).

A `FieldMap` says which source column (CSV) or key (JSON) feeds each `Instance` field. A field left
unmapped takes its canonical name when the file has it, else one of these aliases when exactly one of
them is present (two or more is an error that asks for a mapping):

| field          | aliases                                                                       |
|----------------|-------------------------------------------------------------------------------|
| ``query``      | ``instruction``, ``input``, ``question``, ``prompt``                          |
| ``candidates`` | ``output_1``, ``output_2`` (+ ``output_3``...); ``response_a``, ``response_b``; |
|                | ``output_a``, ``output_b``                                                    |
| ``label``      | ``winner``, ``preference``                                                    |

``id``, ``reference``, ``criteria``, ``task``, ``category``, ``systems`` and ``scores`` (an object column)
are read under their canonical names only. Columns no field uses are carried into ``metadata`` unless
``metadata`` lists the columns to carry; a ``metadata`` column holding an object is merged into it.

Labels: with a label map, exactly its values (as text) are accepted. Without one, numbers count
candidates from ``label_base`` (1: ``1``, ``2``..., ``0`` = tie; 0: ``0``, ``1``...), and the words of
`DEFAULT_LABEL_WORDS` are understood (``A``/``B``, ``model_a``/``model_b``, ``tie``...). An empty
cell or null is no label; an empty or null score leaves that aspect out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

QUERY_ALIASES = ("instruction", "input", "question", "prompt")
CANDIDATE_ALIASES = (("output_1", "output_2"), ("response_a", "response_b"), ("output_a", "output_b"))
LABEL_ALIASES = ("winner", "preference")
DEFAULT_LABEL_WORDS: Mapping[str, int] = dict(
    a=1,
    b=2,
    model_a=1,
    model_b=2,
    response_a=1,
    response_b=2,
    output_1=1,
    output_2=2,
    output_a=1,
    output_b=2,
    tie=0,
)
"""Label words understood without a label map (case-insensitive)."""

ALL_ASPECTS = "*"
"""The ``scores`` key naming one column that holds an ``{aspect: score}`` object."""

TEXT_FIELDS = ("reference", "task", "category")
FIELDS = (
    "id", "query", "candidates", "reference", "criteria", "category", "task", "label", "scores", "systems"
)  # fmt: skip


class FieldMap(BaseModel):
    """Which source column feeds each `Instance` field; None takes the default (see the module docs).

    Examples:
        >>> FieldMap(query="instruction", candidates=["output_1", "output_2"], label="winner").candidates
        ('output_1', 'output_2')
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    """The id column; without one, an instance's id is its line number."""
    query: str | None = None
    candidates: tuple[str, ...] | None = None
    """Several columns (one candidate each), or one column holding a list (CSV: a JSON list) or one text."""
    reference: str | None = None
    criteria: str | None = None
    """One column holding a list of criteria (CSV: a JSON list) or one criterion name."""
    category: str | None = None
    task: str | None = None
    label: str | None = None
    scores: dict[str, str] | None = None
    """Aspect -> numeric column; the key ``*`` names one column holding an ``{aspect: score}`` object."""
    label_map: dict[str, Annotated[int, Field(ge=0)]] | None = None
    """Source label value (as text) -> label (1-based candidate, 0 tie); values not in it are errors."""
    label_base: Literal[0, 1] = 1
    """Numbering of numeric labels read without a label map: 1 (0 = tie) or 0 (first candidate = 0)."""
    metadata: tuple[str, ...] | None = None
    """The columns to carry into ``metadata``; None carries every column no field uses."""
    systems: tuple[str, ...] | None = None
    """The system behind each candidate: one column each (``model_a,model_b``), or one column holding a
    list (CSV: a JSON list); `Instance.systems`."""

    @field_validator("candidates", "metadata", "systems", mode="before")
    @classmethod
    def _one_as_tuple(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("candidates", "systems")
    @classmethod
    def _some_candidates(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None and not value:
            raise ValueError("must name at least one column, or be left out")
        return value


DEFAULT_FIELD_MAP = FieldMap()


# --- resolving a field map against the columns a file has -------------------------------------


class FieldProblem(Exception):
    """A bad value or column: becomes an `InputError` at the current line."""

    def __init__(self, column: str | None, problem: str) -> None:
        super().__init__(problem)
        self.column = column
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Plan:
    """The concrete columns one layout of the file is read from."""

    columns: Mapping[str, str | None]
    """Instance field -> source column (candidates and scores aside)."""
    candidates: tuple[str, ...]
    scores: Mapping[str, str]
    metadata: tuple[str, ...]
    explicit: tuple[str, ...]
    """Columns the field map names: they must be present."""
    systems: tuple[str, ...] = ()
    """The columns naming the systems behind the candidates (none: the instances name none)."""

    def source(self, field: str | None) -> str | None:
        """The source column behind an Instance field's dotted path (for error messages)."""
        if field is None:
            return None
        head, _, rest = field.partition(".")
        if head == "candidates" and rest.isdigit() and len(self.candidates) > 1:
            return self.candidates[int(rest)]
        if head == "candidates":
            return self.candidates[0]
        if head == "systems" and self.systems:
            return self.systems[int(rest)] if rest.isdigit() and len(self.systems) > 1 else self.systems[0]
        if head == "scores":
            return self.scores.get(rest) or self.scores.get(ALL_ASPECTS) or field
        return self.columns.get(head) or field


def resolve(fields: FieldMap, columns: Sequence[str]) -> Plan:
    """The columns ``fields`` reads from a file with ``columns``; a missing or ambiguous default raises
    `FieldProblem`."""
    present = set(columns)
    query = fields.query or _default("query", QUERY_ALIASES, present, required=True)
    label = fields.label or _default("label", LABEL_ALIASES, present, required=False)
    mapped = {"query": query, "label": label}
    for name in ("id", "criteria", *TEXT_FIELDS):
        mapped[name] = getattr(fields, name) or (name if name in present else None)
    candidates = fields.candidates or _default_candidates(present)
    if fields.scores is not None:
        scores: Mapping[str, str] = fields.scores
    else:
        scores = {ALL_ASPECTS: "scores"} if "scores" in present else {}
    systems = fields.systems or (("systems",) if "systems" in present else ())
    used = {c for c in mapped.values() if c} | set(candidates) | set(scores.values()) | set(systems)
    metadata = tuple(c for c in columns if c not in used) if fields.metadata is None else fields.metadata
    return Plan(mapped, candidates, scores, metadata, named_columns(fields), systems)


def named_columns(fields: FieldMap) -> tuple[str, ...]:
    """The columns ``fields`` names (a file must have them)."""
    lists = ("candidates", "scores", "systems")
    named = [getattr(fields, name) for name in FIELDS if name not in lists]
    named += [*(fields.candidates or ()), *(fields.scores or {}).values(), *(fields.metadata or ())]
    named += [*(fields.systems or ())]
    return tuple(dict.fromkeys(c for c in named if c is not None))


def _default(field: str, aliases: Sequence[str], present: set[str], *, required: bool) -> str | None:
    if field in present:
        return field
    found = [alias for alias in aliases if alias in present]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        listed = " and ".join(repr(c) for c in found)
        raise FieldProblem(
            field, f"ambiguous: the columns {listed} could each be the {field}; map one with {field}=COLUMN"
        )
    if required:
        raise FieldProblem(
            field, f"missing: no {field!r} column (nor {', '.join(aliases)}); map one with {field}=COLUMN"
        )
    return None


def _default_candidates(present: set[str]) -> tuple[str, ...]:
    if "candidates" in present:
        return ("candidates",)
    groups = [_extend(group, present) for group in CANDIDATE_ALIASES if set(group) <= present]
    if len(groups) == 1:
        return groups[0]
    if groups:
        listed = " and ".join(",".join(group) for group in groups)
        raise FieldProblem(
            "candidates", f"ambiguous: both {listed} could be the candidates; map one with candidates=A,B"
        )
    aliases = " or ".join(",".join(group) for group in CANDIDATE_ALIASES)
    raise FieldProblem(
        "candidates", f"missing: no 'candidates' column (nor {aliases}); map them with candidates=A,B"
    )


def _extend(group: tuple[str, ...], present: set[str]) -> tuple[str, ...]:
    """``output_1, output_2`` grows to ``output_3``... while those columns exist."""
    prefix, _, number = group[-1].rpartition("_")
    if not number.isdigit():
        return group
    extra = []
    n = int(number) + 1
    while f"{prefix}_{n}" in present:
        extra.append(f"{prefix}_{n}")
        n += 1
    return (*group, *extra)
