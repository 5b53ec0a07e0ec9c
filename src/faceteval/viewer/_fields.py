"""What the index keeps of each line: the few fields the filters need, read from the line's JSON.

A judgments line is read as `faceteval.core.Judgment` (what every command reads a judgment as); one
that is not a judgment is a bad line, kept with what is wrong with it as the shared reader words it
(file, line and field). Corrections and bridged records are read for their id, status and the
criteria they name; an instance of the input for its id, human label and systems.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from faceteval.core import Judgment
from faceteval.datasets.internal import judgment_from_line
from faceteval.errors import InputError
from faceteval.viewer._record import Command

__all__ = ["BAD_LINE", "InputFields", "LineFields", "input_fields", "line_fields", "systems_of"]

BAD_LINE = "bad line"
"""The status of a line that is not an item of its run (not JSON, not a judgment ...)."""


@dataclass(frozen=True, slots=True)
class LineFields:
    """What the filters need of one line of a run.

    Attributes:
        id: The item's id (None on a bad line).
        status: ``ok`` / ``parse_error`` / ``error`` (a correction's ``kept``, ``corrected`` ...), or
            `BAD_LINE`.
        problem: What is wrong with a bad line.
        verdict: The winner (1-based), 0 for a tie.
        consistent: Whether the orders agreed (under ``--swap``).
        facets: The facets (criteria) it scores.
    """

    id: str | None
    status: str
    problem: str | None = None
    verdict: int | None = None
    consistent: bool | None = None
    facets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class InputFields:
    """What the filters need of one instance: its id, its human label, its candidates' systems."""

    id: str
    label: int | None
    systems: tuple[str, ...]


def line_fields(command: Command, path: Path, line_no: int, raw: bytes) -> LineFields:
    """The fields of line ``line_no`` (its bytes ``raw``) of a ``command`` run's JSONL ``path``.

    Examples:
        >>> line = b'{"id": "q1", "method": "dna", "status": "ok", "verdict": 2}'
        >>> line_fields("judge", Path("j.jsonl"), 1, line).verdict
        2
        >>> line_fields("judge", Path("j.jsonl"), 2, b'{"id": "q2"}').problem
        "j.jsonl:2: field 'method': Field required; field 'status': Field required"
    """
    if command in ("judge", "meta-eval"):
        return _judgment(path, line_no, raw)
    try:
        data = from_json(raw)
    except ValueError as exc:
        return _bad(InputError(str(path), line_no, None, f"not valid JSON: {exc}"))
    if not isinstance(data, dict):
        return _bad(
            InputError(str(path), line_no, None, f"expected a JSON object, got {type(data).__name__}")
        )
    for name in ("id", "status"):
        if not isinstance(data.get(name), str):
            return _bad(InputError(str(path), line_no, name, "missing, or not a text"))
    if command == "correct":
        named = [j.get("criterion") for j in _dicts(data.get("judgments"))]
        return LineFields(data["id"], data["status"], facets=_texts(named))
    named = [c.get("name") for c in _dicts(data.get("criteria"))]
    verdict = data.get("verdict")
    return LineFields(
        data["id"],
        data["status"],
        verdict=verdict if isinstance(verdict, int) and not isinstance(verdict, bool) else None,
        consistent=data.get("consistent") if isinstance(data.get("consistent"), bool) else None,
        facets=_texts(named),
    )


def _judgment(path: Path, line_no: int, raw: bytes) -> LineFields:
    try:
        judgment = Judgment.model_validate_json(raw)
    except ValueError:  # ValidationError among them: the shared reader says what is wrong, as it words it
        try:
            judgment = judgment_from_line(path, line_no, raw.decode("utf-8"))
        except InputError as exc:
            return _bad(exc)
        except UnicodeDecodeError as exc:
            return _bad(InputError(str(path), line_no, None, f"not UTF-8 text ({exc.reason})"))
    return LineFields(
        judgment.id,
        judgment.status,
        verdict=judgment.verdict,
        consistent=judgment.consistent,
        facets=tuple(dict.fromkeys(facet.name for facet in judgment.facets)),
    )


def _bad(error: InputError) -> LineFields:
    return LineFields(None, BAD_LINE, str(error))


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _texts(values: Sequence[Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if isinstance(v, str)))


def input_fields(line_no: int, raw: bytes, run_systems: Sequence[str] = ()) -> InputFields | None:
    """The fields of the instance on line ``line_no`` (its bytes ``raw``), or None when the line is not
    an instance object. A line without ``id`` takes its line number, as `read_instances` gives it.

    Examples:
        >>> input_fields(3, b'{"query": "q", "candidates": ["a", "b"], "label": 2, "systems": ["x", "y"]}')
        InputFields(id='3', label=2, systems=('x', 'y'))
    """
    try:
        data = from_json(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    given = data.get("id", line_no)
    if isinstance(given, bool) or not isinstance(given, str | int):
        return None
    label = data.get("label")
    label = label if isinstance(label, int) and not isinstance(label, bool) else None
    return InputFields(str(given), label, systems_of(data, run_systems))


def systems_of(instance: Mapping[str, Any], run_systems: Sequence[str] = ()) -> tuple[str, ...]:
    """The systems behind an instance's candidates, in candidate order: its ``systems`` (or
    ``metadata.systems``; a pair's ``metadata.model_a`` and ``model_b``, as MT-Bench and Chatbot Arena
    name them; a single output's ``metadata.system``), else those the run names for every instance
    (``--systems A,B``); empty when none is named.

    Examples:
        >>> systems_of({"metadata": {"system": "turbo"}}), systems_of({}, ["A", "B"])
        (('turbo',), ('A', 'B'))
        >>> systems_of({"metadata": {"model_a": "gpt-4", "model_b": "claude-v1"}})
        ('gpt-4', 'claude-v1')
    """
    metadata = instance.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    pair = [metadata.get("model_a"), metadata.get("model_b")]
    for found in (instance.get("systems"), metadata.get("systems"), pair, [metadata.get("system")]):
        if isinstance(found, list) and found and all(isinstance(s, str) for s in found):
            return tuple(found)
    return tuple(run_systems)
