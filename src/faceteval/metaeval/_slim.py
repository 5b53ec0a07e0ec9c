"""Judgments read for measuring, without what measuring does not read: memory flat in their traces.

A judgment's trace (every prompt and reply, tens of kB) is what makes a judgments file big. The
summary reads two things of it: the usage of the calls actually made (``usage.made``) and the models
named (self-preference). `read_slim` reads a judgments file line by line and keeps each judgment
without its trace and explanations, with those two facts (`TraceFacts`) and its line number beside
it; `full_lines` reads the kept judgments back whole, in the order asked, to write a run's
``judgments.jsonl`` exactly as the whole judgments would have been written.

What is kept is packed (`Packed`): each judgment (and each instance of a target read slim,
`SlimInstances`) is one record of plain values in a shared buffer, built again as a model each time
it is read. A million judgments are a few hundred megabytes, not the gigabytes their objects would be;
measuring reads them in passes and keeps columns of plain values, not the objects.
"""

from __future__ import annotations

import codecs
import copy
import marshal
import pickle
from abc import abstractmethod
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, TypeVar, overload

from pydantic import BaseModel

from faceteval.core import FacetScore, Instance, Judgment, OrderResult, PanelMember, Usage, usage_of
from faceteval.datasets.internal import instance_from_line, judgment_from_line, read_numbered_judgments
from faceteval.errors import InputError


@dataclass(frozen=True, slots=True)
class TraceFacts:
    """What measuring reads of a judgment's trace, kept when the trace is not."""

    made: Usage | None
    """The usage of the calls it made (not answered from the cache); None if its trace does not
    account for its calls (``--no-trace``)."""
    models: frozenset[str]
    """The models its trace names."""
    line: int = 0
    """Its line in the judgments file it was read from (0: not read from a file)."""


def trace_facts(judgment: Judgment, line: int = 0) -> TraceFacts:
    """What measuring reads of ``judgment``'s trace.

    Examples:
        >>> trace_facts(Judgment(id="1", method="direct", status="ok")).made
        Usage(calls=0, cached_calls=0, input_tokens=0, output_tokens=0, cost_usd=0.0)
    """
    own = [entry for entry in judgment.trace if not entry.reused]
    made = None
    if len(own) == judgment.usage.calls:
        made = usage_of(entry for entry in own if not entry.cached and not entry.planned)
        made = judgment.usage if made == judgment.usage else made  # no cached call: one object kept
    models = frozenset(entry.model for entry in judgment.trace if entry.model)
    return TraceFacts(made, models, line)


_JUDGMENT_FIELDS = {
    "id", "method", "status", "error", "verdict", "scores", "facets", "consistent", "orders", "panel",
    "panel_vote", "usage", "confidence", "confidence_estimator", "confidence_missing", "decided_by",
    "score_modes",
}  # fmt: skip
_ORDER_FIELDS = {"order", "verdict", "scores", "facets", "score_modes"}
_FACET_FIELDS = {"name", "weight", "scores", "score_modes"}
"""The fields a slim judgment, order and facet are given: one set each, shared by every one built (a
set per object would be a sixth of a slim judgment's size)."""
_USAGE_FIELDS = tuple(Usage.model_fields)
_USAGE_SET = set(_USAGE_FIELDS)
M = TypeVar("M", bound=BaseModel)
_SET = object.__setattr__


def _model(cls: type[M], fields_set: set[str], values: dict[str, Any]) -> M:
    """The model ``cls`` of ``values`` (every field, in the order the model declares them), not
    validated: what `BaseModel.model_construct` builds, in a fifth of its time (it looks up the
    default of every field not given; a packed item's decoders give them all)."""
    model = cls.__new__(cls)
    _SET(model, "__dict__", values)
    _SET(model, "__pydantic_fields_set__", fields_set)
    _SET(model, "__pydantic_extra__", None)
    _SET(model, "__pydantic_private__", None)
    return model


_MARSHAL, _PICKLE = 0, 1
"""How a record is encoded: `marshal` (plain values), or `pickle` (values marshal cannot encode, such as
a date in an instance's metadata read from Parquet)."""

T = TypeVar("T")


class Packed(Sequence[T]):
    """Items kept as encoded records in one buffer, each decoded when it is read (its objects live only
    as long as the caller keeps them): a few hundred bytes an item instead of a few kilobytes of objects.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        """The file the items were read from (`whole` reads them again whole from it)."""
        self._data = bytearray()
        self._starts = array("Q")
        self._ends = array("Q")
        self._names: list[str] = []
        self._codes: dict[str, int] = {}

    def _code(self, name: str) -> int:
        """The number ``name`` is kept as (names repeat across items: methods, facets, models)."""
        if (code := self._codes.get(name)) is None:
            code = self._codes[name] = len(self._names)
            self._names.append(name)
        return code

    def _add(self, values: tuple[Any, ...]) -> None:
        try:
            record = bytes([_MARSHAL]) + marshal.dumps(values)
        except ValueError:
            record = bytes([_PICKLE]) + pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL)
        self._starts.append(len(self._data))
        self._data += record
        self._ends.append(len(self._data))

    def _values(self, index: int) -> tuple[Any, ...]:
        start, end = self._starts[index], self._ends[index]
        payload = self._data[start + 1 : end]
        values: tuple[Any, ...]
        values = marshal.loads(payload) if self._data[start] == _MARSHAL else pickle.loads(payload)
        return values

    @abstractmethod
    def add(self, item: T, line: int = 0) -> None:
        """Keep ``item``, read from ``line`` of the file (`path`; 0: not read from one)."""

    @abstractmethod
    def _decode(self, values: tuple[Any, ...]) -> T:
        """The item built again from its record's ``values``."""

    @abstractmethod
    def _parse(self, path: Path, line: int, text: str) -> T:
        """The whole item on ``line`` of ``path``."""

    def line_at(self, index: int) -> int:
        """The line of `path` the item at ``index`` was read from (0: not read from a file)."""
        line: int = self._values(index)[-1]
        return line

    def whole(self, indices: Sequence[int]) -> list[T]:
        """The items at ``indices`` read again whole from their file (`path`), or as they are kept
        when not read from one.

        Raises:
            InputError: A line is no longer such an item (the file changed since it was read).
        """
        lines = [self.line_at(index) for index in indices]
        if self.path is None or not lines or not all(lines):
            return [self[index] for index in indices]
        path = self.path
        return [self._parse(path, line, text) for line, text in raw_lines(path, lines, last=max(lines))]

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return self.take(range(len(self))[index])
        return self._decode(self._values(range(len(self))[index]))

    def __iter__(self) -> Iterator[T]:
        return (self._decode(self._values(index)) for index in range(len(self)))

    def take(self, indices: Iterable[int]) -> Self:
        """The items at ``indices``, in that order, sharing this one's records."""
        taken = copy.copy(self)
        chosen = list(indices)
        taken._starts = array("Q", (self._starts[index] for index in chosen))
        taken._ends = array("Q", (self._ends[index] for index in chosen))
        return taken

    def _facets(self, facets: Sequence[FacetScore]) -> tuple[Any, ...]:
        return tuple((self._code(f.name), f.weight, f.scores, f.score_modes) for f in facets)

    def _facet_scores(self, facets: tuple[Any, ...]) -> list[FacetScore]:
        names = self._names
        return [
            _model(FacetScore, _FACET_FIELDS, {"name": names[name], "weight": weight, "scores": scores,
                   "explanation": None, "description": None, "guideline": None, "explanations": None,
                   "score_modes": modes})
            for name, weight, scores, modes in facets
        ]  # fmt: skip


class SlimJudgments(Packed[Judgment]):
    """The judgments of a file (`read_slim`), each kept with what measuring reads of it only: no trace,
    explanations, ranks or input hash, and the facts measuring reads of its trace (`facts_at`)."""

    def add(self, item: Judgment, line: int = 0) -> None:
        judgment = item
        found = trace_facts(judgment, line)
        usage = judgment.usage
        self._add(
            (
                judgment.id,
                self._code(judgment.method),
                judgment.status,
                judgment.error,
                judgment.verdict,
                judgment.scores,
                self._facets(judgment.facets),
                judgment.consistent,
                tuple(
                    (order.order, order.verdict, order.scores, self._facets(order.facets), order.score_modes)
                    for order in judgment.orders
                ),
                tuple(member.model_dump() for member in judgment.panel),
                judgment.panel_vote,
                tuple(getattr(usage, name) for name in _USAGE_FIELDS),
                judgment.confidence,
                judgment.confidence_estimator,
                judgment.confidence_missing,
                judgment.decided_by,
                judgment.score_modes,
                None if found.made is None else tuple(getattr(found.made, name) for name in _USAGE_FIELDS),
                tuple(sorted(self._code(model) for model in found.models)),
                line,
            )
        )

    def _decode(self, values: tuple[Any, ...]) -> Judgment:
        (ident, method, status, error, verdict, scores, facets, consistent, orders, panel, vote, usage,
         confidence, estimator, missing, decided_by, modes, *_) = values  # fmt: skip
        return _model(Judgment, _JUDGMENT_FIELDS, {
            "id": ident, "method": self._names[method], "status": status, "error": error,
            "verdict": verdict, "scores": scores, "ranks": None, "facets": self._facet_scores(facets),
            "explanation": None, "consistent": consistent,
            "orders": [
                _model(OrderResult, _ORDER_FIELDS, {
                    "order": order, "verdict": order_verdict, "scores": order_scores,
                    "facets": self._facet_scores(order_facets), "explanation": None,
                    "score_modes": order_modes,
                })
                for order, order_verdict, order_scores, order_facets, order_modes in orders
            ],
            "panel": [PanelMember.model_validate(member) for member in panel], "panel_vote": vote,
            "usage": _usage(usage), "confidence": confidence, "confidence_estimator": estimator,
            "decided_by": decided_by, "confidence_missing": missing, "score_modes": modes,
            "input_hash": None,
            "trace": [],
        })  # fmt: skip

    def _parse(self, path: Path, line: int, text: str) -> Judgment:
        return judgment_from_line(path, line, text)

    def facts_at(self, index: int) -> TraceFacts:
        """What measuring reads of the trace of the judgment at ``index``."""
        *_, made, models, line = self._values(index)
        return TraceFacts(
            None if made is None else _usage(made), frozenset(self._names[model] for model in models), line
        )

    def ids(self) -> Iterator[str]:
        """The id of each judgment, in order (without building the judgments)."""
        return (self._values(index)[0] for index in range(len(self)))


def _usage(values: Sequence[Any]) -> Usage:
    return _model(Usage, _USAGE_SET, dict(zip(_USAGE_FIELDS, values, strict=True)))


_INSTANCE_FIELDS = {"id", "query", "candidates", "label", "scores", "category", "metadata", "systems"}
_TEXTS = ("query", "task", "reference")
"""The texts a slim instance may keep (to be grouped by)."""


class SlimInstances(Packed[Instance]):
    """Instances kept with what measuring reads of them only: their id, label, scores, category,
    metadata, systems, and the lengths of their candidates (length bias), without their texts.

    Each candidate is read back as a string of spaces as long as its text; the query, reference,
    criteria and task are dropped, but for those of ``texts`` (``query``, ``task``, ``reference``) kept to
    group the instances by (``--group-by query``).

    Examples:
        >>> kept = SlimInstances.of([Instance(id="1", query="q?", candidates=["yes", "no"], label=1)])
        >>> [len(text) for text in kept[0].candidates], kept[0].label, kept[0].query
        ([3, 2], 1, '')
    """

    def __init__(self, path: Path | None = None, *, texts: Iterable[str] = ()) -> None:
        super().__init__(path)
        self.texts = tuple(name for name in _TEXTS if name in set(texts))
        """The texts kept of each instance: of ``query``, ``task`` and ``reference``."""

    @classmethod
    def of(cls, instances: Iterable[Instance], *, texts: Iterable[str] = ()) -> SlimInstances:
        kept = cls(texts=texts)
        for instance in instances:
            kept.add(instance)
        return kept

    def add(self, item: Instance, line: int = 0) -> None:
        instance = item
        self._add(
            (
                instance.id,
                tuple(map(len, instance.candidates)),
                instance.label,
                instance.scores,
                instance.category,
                instance.metadata,
                instance.systems,
                tuple(getattr(instance, name) for name in self.texts),
                line,
            )
        )

    def _parse(self, path: Path, line: int, text: str) -> Instance:
        read = instance_from_line(path, line, text)
        if isinstance(read, InputError):
            raise read
        return read

    def _decode(self, values: tuple[Any, ...]) -> Instance:
        ident, lengths, label, scores, category, metadata, systems, texts, _ = values
        kept = dict(zip(self.texts, texts, strict=True))
        return _model(Instance, _INSTANCE_FIELDS, {
            "id": ident, "query": kept.get("query", ""),
            "candidates": tuple(" " * length for length in lengths),
            "reference": kept.get("reference"), "criteria": None, "task": kept.get("task"),
            "category": category, "label": label, "scores": scores, "metadata": metadata, "systems": systems,
        })  # fmt: skip


def read_slim(path: Path) -> SlimJudgments:
    """The judgments of the Judgment JSONL file ``path``, read line by line and kept slim.

    Raises:
        InputError: A line is not a judgment (as `faceteval.datasets.read_judgments` says).
    """
    judgments = SlimJudgments(path)
    for line, judgment in read_numbered_judgments(path):
        judgments.add(judgment, line)
    return judgments


def full_lines(path: Path, lines: Iterable[int]) -> Iterator[str]:
    """Each judgment on ``lines`` (numbered from 1) of ``path``, read again whole, as JSON.

    Raises:
        InputError: A line is no longer a judgment (the file changed since it was read).
    """
    for number, text in raw_lines(path, lines):
        yield judgment_from_line(path, number, text).model_dump_json()


def raw_lines(path: Path, lines: Iterable[int], *, last: int | None = None) -> Iterator[tuple[int, str]]:
    """Each of ``lines`` (numbered from 1) of ``path`` with its text, in the order asked (none after
    ``last``, when given: the file is read no further)."""
    offsets = _line_offsets(path, last)
    with path.open("rb") as handle:
        for number in lines:
            handle.seek(offsets[number - 1])
            raw = handle.readline()
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            yield number, raw.decode("utf-8")


def _line_offsets(path: Path, last: int | None = None) -> array[int]:
    """Where each line of ``path`` (up to line ``last``) starts: 8 bytes a line."""
    offsets = array("q")
    position = 0
    with path.open("rb") as handle:
        for raw in handle:
            offsets.append(position)
            position += len(raw)
            if len(offsets) == last:
                break
    return offsets
