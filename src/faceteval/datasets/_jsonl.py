"""Reading canonical instance JSONL, one line at a time, with errors that name file, line and field."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from faceteval._util.files import UnreadableJSON, decode_json
from faceteval.core import Instance, Judgment
from faceteval.datasets._field_map import FieldProblem
from faceteval.datasets._keys import NO_KEYS, Keys
from faceteval.errors import InputError

MAX_PROBLEMS_PER_LINE = 3


def canonical_instances(
    name: str, systems: Sequence[str] | None, keys: Keys = NO_KEYS
) -> Iterator[Instance | InputError]:
    """The instances of the canonical instance JSONL file ``name``, streamed; a bad line yields an
    `InputError` in its place.

    ``systems`` names the system behind each candidate of the instances that do not name their own
    (`Instance.systems`, then ``keys.system_by``); an instance with another number of candidates is
    an error on its line. ``keys.id_fields`` makes each id of those fields (`Keys`).

    Blank lines are skipped, and so is a byte-order mark. Lines end at line feeds only (a carriage
    return is JSON whitespace). A record without ``id`` gets its line number as id. A repeated id is
    an error on the later line, as is a line that is not UTF-8 text. The file is read lazily, so a
    file of any size streams.

    Raises:
        InputError: The file cannot be opened, or its first line is neither UTF-8 nor the start of
            a JSON object (the file is not JSON Lines: a spreadsheet, a compressed file), when the
            first instance is read.
    """
    return _instances(name, systems, keys)


def _instances(name: str, systems: Sequence[str] | None, keys: Keys) -> Iterator[Instance | InputError]:
    seen: dict[str, tuple[int, bool]] = {}  # id -> (line, whether it is the line number)
    first = True
    for line_no, line in _lines(name):
        if isinstance(line, UnicodeDecodeError):
            if first and not line.object.lstrip().startswith(b"{"):  # binary, or another encoding
                raise InputError(name, line_no, None, f"{_not_text(line)}: is it a JSON Lines file?")
            first = False
            yield InputError(name, line_no, None, _not_text(line))
        elif line.strip():
            item = _read_line(name, line_no, line, seen, systems, keys)
            if first and isinstance(item, InputError):
                _refuse_json_document(name, line_no, line)
            if isinstance(item, InputError) and item.record_id is not None:
                # Its error judgment takes the line's id: one id, one judgment in the output, so an
                # id taken already leaves it line-N, and a later line may not take it again.
                if item.record_id in seen:
                    item.record_id = None
                else:
                    seen[item.record_id] = (line_no, False)
            first = False
            yield item


def _lines(path: str) -> Iterator[tuple[int, str | UnicodeDecodeError]]:
    """Each line of a UTF-8 file, numbered from 1, or why it is not text; a leading BOM is left out.

    Lines are split at line feeds only, as JSON Lines is: a carriage return inside a line is JSON
    whitespace, and one before the line feed (CRLF) stays on the line.

    Raises:
        InputError: The file cannot be opened or read.
    """
    try:
        handle = Path(path).open("rb")  # noqa: SIM115  (closed by the with below; a generator)
    except OSError as exc:
        raise InputError(path, None, None, f"cannot open: {exc.strerror or exc}") from exc
    with handle:
        line_no = 0
        try:
            for line_no, raw in enumerate(handle, start=1):
                if line_no == 1:
                    raw = raw.removeprefix(codecs.BOM_UTF8)
                try:
                    yield line_no, raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    yield line_no, exc
        except OSError as exc:
            raise InputError(path, line_no + 1, None, f"cannot read: {exc.strerror or exc}") from exc


def _not_text(error: UnicodeDecodeError) -> str:
    return f"not UTF-8 text ({error.reason} at byte {error.start + 1} of the line)"


def _refuse_json_document(path: str, line_no: int, line: str) -> None:
    """Stop at the first line of a JSON array, or of an object spread over lines: not JSON Lines.

    One error for the file, rather than one per line of it.
    """
    text = line.strip()
    if text.startswith("["):
        what = "a JSON array"
    elif text == "{":
        what = "a JSON object spread over several lines"
    else:
        return  # a line with a mistake in it: its own error says which
    raise InputError(
        path,
        line_no,
        None,
        f"the file is {what}, not JSON Lines (one instance object per line); convert it "
        f"(an array: jq -c '.[]' {path}), or name it .json: a .json file may hold an array",
    )


def _read_line(
    path: str,
    line_no: int,
    line: str,
    seen: dict[str, tuple[int, bool]],
    systems: Sequence[str] | None = None,
    keys: Keys = NO_KEYS,
) -> Instance | InputError:
    try:
        record = decode_json(line)
    except json.JSONDecodeError as exc:
        return InputError(path, line_no, None, f"not valid JSON: {exc.msg} (column {exc.colno})")
    except UnreadableJSON as exc:
        known = isinstance(exc.value, dict) and exc.field != "id"
        return InputError(
            path, line_no, exc.field, exc.problem, record_id=_record_id(exc.value) if known else None
        )
    if not isinstance(record, dict):
        return InputError(path, line_no, None, f"expected a JSON object, got {type(record).__name__}")
    record_id = None if keys.id_fields else _record_id(record)
    implicit = "id" not in record and not keys.id_fields
    if implicit:
        record = {"id": str(line_no), **record}
    try:
        record = keys.apply(record)
    except FieldProblem as keyed:
        return InputError(path, line_no, keyed.column, keyed.problem, record_id=record_id)
    given = systems is not None and record.get("systems") is None
    if given:
        record = {**record, "systems": list(systems or ())}
    try:
        instance = Instance.model_validate(record)
    except ValidationError as exc:
        field, problem = _describe(exc)
        if given and field == "systems":
            problem += ", as given for every instance that names no systems"
        return InputError(path, line_no, field, problem, record_id=record_id)
    if instance.id in seen:
        first, first_implicit = seen[instance.id]
        if implicit or first_implicit:  # a line number taken as id: say so, it is not in the file
            unnamed = line_no if implicit else first
            problem = (
                f"id {instance.id!r} is used twice: line {unnamed} has no id and takes its line number, "
                f"which line {line_no if unnamed == first else first} gives as its id; "
                "give every line an id, or none"
            )
            return InputError(path, line_no, None if implicit else "id", problem)
        # No record_id: its error judgment is written as line-N, so that ids in the output stay unique.
        column = ",".join(keys.id_fields) if keys.id_fields else "id"
        return InputError(path, line_no, column, f"duplicate id {instance.id!r} (first on line {first})")
    seen[instance.id] = (line_no, implicit)
    return instance


def _record_id(record: dict[str, Any]) -> str | None:
    value = record.get("id")
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def _in_json_terms(message: str) -> str:
    """A validation message about the file's JSON, not the model's Python types ("a valid tuple")."""
    return (
        message.replace("a valid tuple", "a list")
        .replace("Tuple should", "The list should")
        .replace(" after validation", "")
        .replace("a valid dictionary", "an object")
        .replace("an object or instance of Criterion", "a criterion: a name, or an object with a 'name'")
    )


def _describe(error: ValidationError) -> tuple[str | None, str]:
    """The first offending field (dotted path) and the problems in words."""
    problems = error.errors(include_url=False)
    # A list whose items were refused is also "too short" (pydantic counts the items it kept): that
    # says nothing more, and "not 0" of a list of two would mislead.
    problems = [
        p
        for p in problems
        if not (
            p["type"] == "too_short"
            and any(q["loc"][: len(p["loc"])] == p["loc"] != q["loc"] for q in problems)
        )
    ]
    fields = [".".join(str(part) for part in p["loc"]) or None for p in problems]
    messages = []
    for problem, field in list(zip(problems, fields, strict=True))[:MAX_PROBLEMS_PER_LINE]:
        message = _in_json_terms(problem["msg"].removeprefix("Value error, "))
        if problem["type"] == "extra_forbidden":
            message = "unknown field (put extra data under 'metadata')"
        messages.append(message if field == fields[0] else f"field '{field}': {message}")
    if len(problems) > MAX_PROBLEMS_PER_LINE:
        messages.append(f"and {len(problems) - MAX_PROBLEMS_PER_LINE} more")
    return fields[0], "; ".join(messages)


def read_judgments(path: str | Path) -> Iterator[Judgment]:
    """Judgments from a Judgment JSONL file (what ``faceteval judge`` writes), streamed.

    A score must be a finite number: NaN or infinity (which Python's JSON writes, and no JSON
    reader should) is refused, as is a line nesting too deep (see `UnreadableJSON`).

    Raises:
        InputError: A line is not a judgment; the error names the file, line and field.
    """
    return (judgment for _, judgment in read_numbered_judgments(path))


def read_numbered_judgments(path: str | Path) -> Iterator[tuple[int, Judgment]]:
    """``(line number, judgment)`` for each judgment of a Judgment JSONL file, as `read_judgments`."""
    name = str(path)
    for line_no, line in _lines(name):
        if isinstance(line, UnicodeDecodeError):
            raise InputError(name, line_no, None, _not_text(line)) from line
        if line.strip():
            yield line_no, judgment_from_line(name, line_no, line)


def judgment_from_line(path: str | Path, line_no: int, line: str) -> Judgment:
    """The judgment on line ``line_no`` of the Judgment JSONL file ``path``, as `read_judgments` reads it.

    Raises:
        InputError: The line is not a judgment, naming the file, line and field.
    """
    name = str(path)
    try:
        record = decode_json(line)
    except json.JSONDecodeError as exc:
        raise InputError(name, line_no, None, f"not valid JSON: {exc.msg} (column {exc.colno})") from exc
    except UnreadableJSON as exc:
        raise InputError(name, line_no, exc.field, exc.problem) from None
    try:
        return Judgment.model_validate(record)
    except ValidationError as exc:
        field, problem = _describe(exc)
        raise InputError(name, line_no, field, problem) from exc


def instance_from_line(path: str | Path, line_no: int, line: str) -> Instance | InputError:
    """The instance on line ``line_no`` of the instance JSONL file ``path``, as `read_instances` reads
    it (a line without ``id`` takes its line number), or what is wrong with it. One line alone cannot
    tell a repeated id: `read_instances` can."""
    return _read_line(str(path), line_no, line, {})
