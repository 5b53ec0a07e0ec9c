"""Reading JSON, JSONL and hand-written YAML-or-JSON files, with errors that name the file, the line and
the field.

Each refuses what nothing reading the value could handle (see `UnreadableJSON`); `faceteval._util.records`
reads a file's objects field by field on top of these.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from faceteval._util.documents import (
    MAX_DEPTH,
    compose_yaml,
    deep_problem,
    load_yaml,
    not_utf8,
    read_text,
    refuse_repeats,
    too_deep,
    value_problem,
)
from faceteval.errors import InputError

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def read_document(path: str | Path) -> tuple[Any, yaml.Node | None]:
    """A YAML or JSON file people write by hand: its data, and its YAML nodes (for line numbers).

    A ``.json`` file must be JSON (YAML would accept mistakes such as a trailing comma). A key
    that a mapping repeats is refused: YAML keeps only the last, which silently drops the rest.
    YAML is read safely (`faceteval._util.documents.load_yaml`): anchors and aliases, and nesting more
    than `MAX_DEPTH` deep, are refused before anything is built.

    Raises:
        InputError: The file cannot be read, is not UTF-8, is not valid, uses an alias, nests too
            deep, or repeats a key (with its line).
    """
    name = str(path)
    text = read_text(path)
    if Path(path).suffix.lower() == ".json":
        return _json_document(name, text)
    return load_yaml(text, name)


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict, refusing a key given twice (JSON would keep the last)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return found


def _json_document(name: str, text: str) -> tuple[Any, yaml.Node | None]:
    """A JSON file's data, read as JSON; its YAML nodes give line numbers when YAML can read it (no tabs)."""
    try:
        document = compose_yaml(text)
    except yaml.YAMLError:
        document = None
    try:
        data = decode_json(text, object_pairs_hook=_no_repeats)
    except json.JSONDecodeError as exc:
        raise InputError(name, exc.lineno, None, f"not valid JSON: {exc.msg} (column {exc.colno})") from exc
    except _RepeatedKey as exc:
        refuse_repeats(name, document)  # with its lines, when there are nodes to tell them
        raise InputError(name, None, exc.key, f"the key {exc.key!r} is given twice") from exc
    except UnreadableJSON as exc:
        raise InputError(name, None, exc.field, exc.problem) from None
    return data, document


class UnreadableJSON(ValueError):
    """Valid JSON that is refused where it is read, with the field it is in when that is known.

    Each kind is refused at the reader rather than failing later, in the output or halfway
    through a run: strings that are not text (`UnpairedSurrogate`), lists and objects nested more
    than `MAX_DEPTH` deep (nothing reading them could then run out of stack), and integers too
    long for Python to read.
    """

    def __init__(self, field: str | None, value: Any, problem: str) -> None:
        self.field = field
        self.value = value
        """What was decoded (None when nothing could be)."""
        self.problem = problem
        """What is wrong, in words."""
        super().__init__(f"{field}: {problem}" if field else problem)


class UnpairedSurrogate(UnreadableJSON):
    """JSON that decodes to a string holding half of a character (an escape such as ``\\ud83d`` alone).

    Valid JSON syntax, but not text: it cannot be written out as UTF-8, so it is refused where it is
    read, with the field it is in, rather than failing later in the output.
    """

    def __init__(self, field: str | None, value: Any) -> None:
        problem = (
            "holds half of a character (an unpaired surrogate escape such as \\ud83d, "
            "often an emoji cut in two), which is not text"
        )
        super().__init__(field, value, problem)


def decode_json(
    text: str,
    *,
    checked: bool = True,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """``json.loads(text)``, refusing what `UnreadableJSON` names, and (without an
    ``object_pairs_hook`` of the caller's) an object that gives a key twice, which JSON would read as
    its last value.

    Without ``checked``, only what the decoder itself cannot read (nesting past its own limit, an
    integer of thousands of digits) is refused: the caller checks the parts it reads with
    `check_value`, so that one bad part fails alone. A final line break is left out, so that a
    fault at the end (a line or file cut short) is reported at the end of the last line, not at
    column 1 of the one after it.

    Raises:
        json.JSONDecodeError: ``text`` is not JSON.
        UnreadableJSON: A value in it is refused (`UnpairedSurrogate`: a string holding half of a
            character); its ``field`` says where, when that is known.
    """
    text = text.rstrip("\r\n")
    try:
        value = json.loads(text, object_pairs_hook=object_pairs_hook or _no_repeats)
    except RecursionError:  # nested deeper than the decoder goes (about a thousand levels)
        raise UnreadableJSON(None, None, deep_problem()) from None
    except _RepeatedKey as exc:
        if object_pairs_hook is not None:  # the caller's own hook: its error to report
            raise
        raise UnreadableJSON(exc.key, None, f"the key {exc.key!r} is given twice in one object") from None
    except ValueError as exc:
        if type(exc) is not ValueError:  # not JSON, or the hook's own error: the caller's to report
            raise
        raise UnreadableJSON(None, None, value_problem(exc)) from None
    if checked:
        check_value(value, text)
    return value


def check_value(value: Any, text: str | None = None) -> None:
    """Raise `UnreadableJSON` if a decoded JSON ``value`` nests more than `MAX_DEPTH` deep, or
    `UnpairedSurrogate` if a string in it (keys included) is not text.

    ``text``, the JSON it was decoded from, lets the walks be skipped when it cannot hold either.
    """
    if (text is None or text.count("[") + text.count("{") > MAX_DEPTH) and too_deep(value):
        deep = (
            [str(k) for k, v in value.items() if too_deep(v, MAX_DEPTH - 1)]
            if isinstance(value, dict)
            else []
        )
        raise UnreadableJSON(deep[0] if deep else None, value, deep_problem())
    if (text is None or _SURROGATE_ESCAPE.search(text) is not None) and (
        where := _unpaired(value, "")
    ) is not None:
        raise UnpairedSurrogate(where or None, value)


def _unpaired(value: Any, where: str) -> str | None:
    """The dotted path of the first string in ``value`` (keys included) that is not text, else None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = f"{where}.{key}" if where else str(key)
            if (found := _unpaired(key, inner)) is not None or (found := _unpaired(item, inner)) is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if (found := _unpaired(item, f"{where}.{index}" if where else str(index))) is not None:
                return found
    return None


def read_json(path: Path, *, checked: bool = True) -> Any:
    """A whole JSON file; a broken file raises `InputError` with the line of the problem.

    With ``checked`` a value refused (see `UnreadableJSON`) fails the whole file; without, the
    caller checks the parts it reads with `check_value`.
    """
    text = read_text(path)
    try:
        return decode_json(text, checked=checked)
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON: {exc.msg} (column {exc.colno})"
        raise InputError(str(path), exc.lineno, None, problem) from exc
    except UnreadableJSON as exc:
        raise InputError(str(path), None, exc.field, exc.problem) from None


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON file holding one object (a summary, a record); anything else raises `InputError`."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(str(path), None, None, f"expected a JSON object, got {type(data).__name__}")
    return data


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a JSONL file (a leading BOM left out).

    Raises:
        InputError: The file cannot be read, or a line is not UTF-8, not JSON, refused (see
            `UnreadableJSON`) or not an object; names the line.
    """
    name = str(path)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(name, None, None, f"cannot open: {exc.strerror or exc}") from exc
    with handle:
        for line_no, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise not_utf8(name, exc, first_line=line_no) from None
            if not line.strip():
                continue
            try:
                record = decode_json(line)
            except json.JSONDecodeError as exc:
                raise InputError(name, line_no, None, f"not valid JSON: {exc.msg}") from exc
            except UnreadableJSON as exc:
                raise InputError(name, line_no, exc.field, exc.problem) from None
            if not isinstance(record, dict):
                raise InputError(name, line_no, None, "expected a JSON object")
            yield line_no, record


PRIVATE_FILE = 0o600
"""The mode of a file faceteval makes that holds prompts, candidates or replies: its owner's alone."""
PRIVATE_FOLDER = 0o700
"""The mode of a folder faceteval makes for such files."""


def make_private_dirs(folder: Path) -> None:
    """Make ``folder`` and those above it that are missing, each its owner's alone (`PRIVATE_FOLDER`,
    whatever the umask); those there already are left as they are.

    Raises:
        OSError: One cannot be made.

    Examples:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> make_private_dirs(root / "a" / "b")
        >>> oct((root / "a").stat().st_mode & 0o777), oct((root / "a" / "b").stat().st_mode & 0o777)
        ('0o700', '0o700')
    """
    missing = []
    for path in (folder, *folder.parents):
        if path.exists():
            break
        missing.append(path)
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process: as it is
            path.mkdir(mode=PRIVATE_FOLDER)  # (a umask can take bits away from it, never add any)


def create_private(path: Path) -> bool:
    """Make the file ``path`` empty and its owner's alone (`PRIVATE_FILE`) if it is not there, so that
    what opens it next (SQLite) writes into a private file; whether it made it. Its folder is made
    private as `make_private_dirs` makes it.

    Raises:
        OSError: It cannot be made.
    """
    make_private_dirs(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return False
    os.close(fd)
    return True
