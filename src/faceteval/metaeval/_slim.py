"""Judgments read for measuring, without what measuring does not read: memory flat in their traces.

A judgment's trace (every prompt and reply, tens of kB) is what makes a judgments file big. The
summary reads two things of it: the usage of the calls actually made (``usage.made``) and the models
named (self-preference). `read_slim` reads a judgments file line by line and keeps each judgment
without its trace and explanations, with those two facts (`TraceFacts`) and its line number beside
it; `full_lines` reads the kept judgments back whole, in the order asked, to write a run's
``judgments.jsonl`` exactly as the whole judgments would have been written.
"""

from __future__ import annotations

import codecs
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval.core import FacetScore, Instance, Judgment, OrderResult, Usage, usage_of
from faceteval.datasets import judgment_from_line, read_numbered_judgments


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
    "panel_vote", "usage", "confidence", "score_modes",
}  # fmt: skip
_ORDER_FIELDS = {"order", "verdict", "scores", "facets", "score_modes"}
_FACET_FIELDS = {"name", "weight", "scores", "score_modes"}
"""The fields a slim judgment, order and facet are given: one set each, shared by every one built (a
set per object would be a sixth of a slim judgment's size)."""


def slim(judgment: Judgment) -> Judgment:
    """``judgment`` with what measuring reads only: no trace, explanations, ranks or input hash; names
    shared between judgments (`sys.intern`). Built without validating again (it was validated read)."""
    return Judgment.model_construct(
        _JUDGMENT_FIELDS,
        id=judgment.id,
        method=sys.intern(judgment.method),
        status=judgment.status,
        error=judgment.error,
        verdict=judgment.verdict,
        scores=_floats(judgment.scores),
        facets=_slim_facets(judgment.facets),
        consistent=judgment.consistent,
        orders=_EMPTY
        if not judgment.orders
        else [
            OrderResult.model_construct(
                _ORDER_FIELDS,
                order=order.order,
                verdict=order.verdict,
                scores=_floats(order.scores),
                facets=_slim_facets(order.facets),
                score_modes=order.score_modes,
            )
            for order in judgment.orders
        ],
        panel=judgment.panel or _EMPTY,
        panel_vote=judgment.panel_vote,
        usage=judgment.usage,
        confidence=_float(judgment.confidence),
        score_modes=judgment.score_modes,
        trace=_EMPTY,
    )


def _slim_facets(facets: Sequence[FacetScore]) -> list[FacetScore]:
    if not facets:
        return _EMPTY
    return [
        FacetScore.model_construct(
            _FACET_FIELDS,
            name=sys.intern(facet.name),
            weight=_float(facet.weight),
            scores=_floats(facet.scores),
            score_modes=facet.score_modes,
        )
        for facet in facets
    ]


_EMPTY: list[Any] = []
"""The one empty list of every slim judgment's empty trace, facets, orders and panel (measuring only
reads them)."""
_FLOATS: dict[float, float] = {}
"""One float object per value read (scores and weights take few values: 24 bytes each saved)."""
FLOATS_KEPT = 65_536
"""At most this many values are shared (scores of continuous values are then kept as they are)."""


def _float(value: Any) -> Any:
    """``value``, the float shared for it when there is one (not for 0: -0.0 equals it but prints apart).

    Examples:
        >>> _float(float("8.5")) is _float(float("8.5"))
        True
    """
    if type(value) is not float or value == 0:
        return value
    if len(_FLOATS) >= FLOATS_KEPT:
        return _FLOATS.get(value, value)
    return _FLOATS.setdefault(value, value)


def _floats(values: list[Any] | None) -> Any:
    """``values`` (scores, possibly None; of a model's field typed as it is) with each float shared."""
    return None if values is None else [_float(value) for value in values]


_INSTANCE_FIELDS = {"id", "query", "candidates", "label", "scores", "category", "metadata", "systems"}
_SPACES: dict[int, str] = {}
"""One string of spaces per length: what a slim instance's candidates are (`slim_instance`)."""
_NO_METADATA: dict[str, object] = {}


def slim_instance(instance: Instance) -> Instance:
    """``instance`` with what measuring reads only: its id, label, scores, category, metadata,
    systems, and the lengths of its candidates (length bias), without their texts.

    Each candidate is a string of spaces as long as the text, one per length shared by every slim
    instance; the query, reference, criteria and task are dropped. Built without validating again.

    Examples:
        >>> kept = slim_instance(Instance(id="1", query="q?", candidates=["yes", "no"], label=1))
        >>> [len(text) for text in kept.candidates], kept.label, kept.query
        ([3, 2], 1, '')
    """
    return Instance.model_construct(
        _INSTANCE_FIELDS,
        id=instance.id,
        query="",
        candidates=tuple(_SPACES.setdefault(len(text), " " * len(text)) for text in instance.candidates),
        label=instance.label,
        scores=instance.scores,
        category=sys.intern(instance.category) if instance.category is not None else None,
        metadata=instance.metadata or _NO_METADATA,
        systems=_shared_systems(instance.systems),
    )


_SYSTEMS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _shared_systems(systems: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """``systems``, one tuple kept per combination of names (few: the systems compared)."""
    if systems is None:
        return None
    return _SYSTEMS.setdefault(systems, tuple(map(sys.intern, systems)))


@dataclass(frozen=True, slots=True)
class SlimJudgments:
    """The judgments of a file, slim (`slim`), with what measuring reads of their traces by id."""

    judgments: tuple[Judgment, ...]
    facts: Mapping[str, TraceFacts]


def read_slim(path: Path) -> SlimJudgments:
    """The judgments of the Judgment JSONL file ``path``, read line by line and kept slim.

    A judgment id read twice keeps the facts of its first line (`join` refuses the file then).

    Raises:
        InputError: A line is not a judgment (as `faceteval.datasets.read_judgments` says).
    """
    judgments: list[Judgment] = []
    facts: dict[str, TraceFacts] = {}
    shared: dict[frozenset[str], frozenset[str]] = {}
    for line, judgment in read_numbered_judgments(path):
        found = trace_facts(judgment, line)
        models = shared.setdefault(found.models, found.models)
        facts.setdefault(judgment.id, TraceFacts(found.made, models, line))
        judgments.append(slim(judgment))
    return SlimJudgments(tuple(judgments), facts)


def full_lines(path: Path, lines: Iterable[int]) -> Iterator[str]:
    """Each judgment on ``lines`` (numbered from 1) of ``path``, read again whole, as JSON.

    Raises:
        InputError: A line is no longer a judgment (the file changed since it was read).
    """
    offsets = _line_offsets(path)
    with path.open("rb") as handle:
        for number in lines:
            handle.seek(offsets[number - 1])
            raw = handle.readline()
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            yield judgment_from_line(path, number, raw.decode("utf-8")).model_dump_json()


def _line_offsets(path: Path) -> array[int]:
    """Where each line of ``path`` starts (8 bytes a line)."""
    offsets = array("q")
    position = 0
    with path.open("rb") as handle:
        for raw in handle:
            offsets.append(position)
            position += len(raw)
    return offsets
