"""Rows of any source (a file's lines or records, a table's rows, a dataset's examples) as Instances.

Every reader hands its rows here as ``(number, record)`` pairs: `read_rows` applies a preset's
preparation (`faceteval.datasets._presets`), resolves the field map against each layout of keys
(`faceteval.datasets._field_map.resolve`), and builds each row's `Instance`, or an `InputError` that
names the source, the row and the source column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from faceteval.core import Instance
from faceteval.datasets._field_map import FieldMap, FieldProblem, Plan, resolve
from faceteval.datasets._field_values import raw_id, row_fields
from faceteval.datasets._jsonl import _describe
from faceteval.datasets._keys import NO_KEYS, Keys
from faceteval.errors import InputError

Unit = Literal["line", "record", "row"]
"""What a source's numbers count: lines of a text file (JSONL, CSV), records of a JSON array, rows of a
table or dataset (Parquet, a DataFrame, a Hugging Face dataset, an iterable of dicts)."""

Prepare = Callable[[Mapping[str, Any], bool], dict[str, Any]]
"""A preset's preparation of one raw row (``cells``: its values are CSV text): the canonical fields it
makes of it, put over the row; raises `FieldProblem`."""

MAX_PLANS = 256


@dataclass(slots=True)
class RowContext:
    """One source being read: its name, how its rows are mapped, and the ids seen so far."""

    name: str
    fields: FieldMap
    unit: Unit = "line"
    prepare: Prepare | None = None
    """The preset's preparation of each row, before the field map reads it."""
    keep: frozenset[str] = frozenset()
    """With a preset: the raw columns kept beside its fields (the rest of the raw row is left out)."""
    systems: tuple[str, ...] | None = None
    """The systems behind the candidates of every instance that names none (after ``keys.system_by``)."""
    keys: Keys = NO_KEYS
    """How ids and systems are made of the row's fields (``--id``, ``--system-by``)."""
    seen: dict[str, int] = field(default_factory=dict)

    def error(
        self, number: int, column: str | None, problem: str, record_id: str | None = None
    ) -> InputError:
        """An `InputError` at row ``number`` (said in words for records and rows, as a line is not one)."""
        text = problem if self.unit == "line" else f"{self.unit} {number}: {problem}"
        return InputError(self.name, number, column, text, record_id=record_id)


def read_rows(
    ctx: RowContext, records: Iterator[tuple[int, Mapping[str, Any] | InputError]], *, cells: bool = False
) -> Iterator[Instance | InputError]:
    """The instance of each ``(number, record)``, or what is wrong with it; ``cells``: CSV text values."""
    plans: dict[tuple[str, ...], Plan | FieldProblem] = {}
    for number, record in records:
        if isinstance(record, InputError):
            yield record
            continue
        if ctx.prepare is not None:
            try:
                prepared = ctx.prepare(record, cells)
                record = {**{k: v for k, v in record.items() if k in ctx.keep}, **prepared}
            except FieldProblem as problem:
                yield ctx.error(number, problem.column, problem.problem, raw_id(record, None))
                continue
        key = tuple(record)
        if key not in plans:
            if len(plans) > MAX_PLANS:
                plans.clear()
            try:
                plans[key] = resolve(ctx.fields, key)
            except FieldProblem as problem:
                plans[key] = problem
        plan = plans[key]
        if isinstance(plan, FieldProblem):
            yield ctx.error(number, plan.column, plan.problem, raw_id(record, None))
        else:
            yield read_row(ctx, number, record, plan, cells=cells)


def read_row(
    ctx: RowContext, number: int, row: Mapping[str, Any], plan: Plan, *, cells: bool
) -> Instance | InputError:
    """One row as an Instance; ``cells`` says values are CSV text (empty = absent)."""
    record_id = None if ctx.keys.id_fields else raw_id(row, plan.columns["id"])
    given = False
    try:
        fields = ctx.keys.apply(row_fields(row, plan, ctx.fields, number, cells=cells), row)
        if ctx.systems is not None and fields.get("systems") is None:
            fields["systems"], given = list(ctx.systems), True
        instance = Instance.model_validate(fields)
    except FieldProblem as problem:
        return ctx.error(number, problem.column, problem.problem, record_id)
    except ValidationError as exc:
        field_path, problem_text = _describe(exc)
        if given and field_path == "systems":
            problem_text += ", as given for every instance that names no systems"
            return ctx.error(number, "systems", problem_text, record_id)
        column = plan.source(field_path)
        if field_path == "systems" and not plan.systems and ctx.keys.system_by is not None:
            column = ctx.keys.system_by
        return ctx.error(number, column, problem_text, record_id)
    if instance.id in ctx.seen:
        first = ctx.seen[instance.id]
        problem_text = f"duplicate id {instance.id!r} (first on {ctx.unit} {first})"
        column = ",".join(ctx.keys.id_fields) if ctx.keys.id_fields else plan.columns["id"] or "id"
        return ctx.error(number, column, problem_text, record_id)
    ctx.seen[instance.id] = number
    return instance


def column_problem(ctx: RowContext, columns: Sequence[str], *, line: int | None = None) -> InputError | None:
    """What is wrong with a table's columns before any row is read: a column the field map names and
    the table lacks, or a field it cannot find (None: nothing). ``line`` is the header's (CSV). Not for
    a preset's tables: the preset reads its own columns, row by row."""
    if ctx.prepare is not None:
        return None
    try:
        plan = resolve(ctx.fields, columns)
    except FieldProblem as problem:
        return InputError(ctx.name, line, problem.column, problem.problem)
    for column in plan.explicit:
        if column not in columns:
            listed = ", ".join(columns)
            where = "the header has" if line is not None else "the columns are"
            return InputError(ctx.name, line, column, f"no such column; {where}: {listed}")
    return None
