"""Reading the files people write by hand (YAML, TOML) so that none can hang, crash or mislead.

Every YAML file faceteval reads goes through `load_yaml`: a safe loader that refuses anchors and
aliases before anything is built (a few hundred bytes of nested aliases expand to billions of
items), refuses nesting deeper than `MAX_DEPTH`, refuses a key a mapping repeats (YAML would keep
the last one only), and keeps the node graph for line numbers. `read_toml` reads faceteval.toml.
`read_text` reads a file as UTF-8, a leading byte-order mark left out, and names the line and byte
of a byte that is not UTF-8. Each problem is an `InputError` naming the file and line. JSON is
read by `faceteval._util.files.decode_json`, which refuses the same depth (`too_deep`).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from faceteval.errors import InputError

MAX_DEPTH = 64
"""How deep lists and mappings may nest in a file we read: far deeper than any real file goes, and
shallow enough that nothing reading the value (validation, hashing, writing it out) can run out of
stack."""


def read_text(path: str | Path) -> str:
    """The text of a UTF-8 file; a leading byte-order mark is left out.

    Raises:
        InputError: The file cannot be read, or is not UTF-8 (naming the line and the byte).
    """
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(name, None, None, f"cannot read: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise not_utf8(name, exc) from None


def not_utf8(name: str, error: UnicodeDecodeError, *, first_line: int = 1) -> InputError:
    """The `InputError` for text of the file ``name`` that ``error`` found not to be UTF-8: it names
    the line and the byte within the line (the bytes decoded start at line ``first_line``)."""
    data = bytes(error.object)
    line_start = data.rfind(b"\n", 0, error.start) + 1
    line = first_line + data.count(b"\n", 0, error.start)
    byte = error.start - line_start + 1
    return InputError(name, line, None, f"not UTF-8 text ({error.reason} at byte {byte} of the line)")


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and dicts nest in ``value`` more than ``limit`` deep (walked level by level,
    without recursion).

    Examples:
        >>> too_deep({"a": [[1]]}, limit=3), too_deep({"a": [[1]]}, limit=2)
        (False, True)
    """
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [
            child
            for item in level
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, dict | list)
        ]
    return False


def deep_problem(limit: int = MAX_DEPTH) -> str:
    """What is wrong with a value nested more than ``limit`` deep, in words."""
    return f"nested more than {limit} levels deep (lists and mappings within each other), which is refused"


def value_problem(error: ValueError | OverflowError) -> str:
    """What is wrong with a value Python cannot build from its text (``error`` says why), in words.

    Examples:
        >>> value_problem(ValueError("month must be in 1..12"))
        'holds a value that cannot be read (month must be in 1..12)'
    """
    if "integer string conversion" in str(error):
        return "holds an integer of thousands of digits, which is refused"
    return f"holds a value that cannot be read ({error})"


# -- YAML ------------------------------------------------------------------------------------------


class _Refused(yaml.MarkedYAMLError):
    """Something the loader refuses to read, with where it is."""

    def __init__(self, mark: Any, problem: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors, aliases and deep nesting as it composes (before any
    expansion), and values Python cannot build (a date with month 13, an integer of 5,000 digits)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(event.start_mark, _aliases(f"*{event.anchor}"))
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Refused(event.start_mark, _aliases(f"&{anchor}"))
        if self.depth >= MAX_DEPTH:
            raise _Refused(event.start_mark, deep_problem())
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            raise _Refused(node.start_mark, value_problem(exc)) from None


def _aliases(what: str) -> str:
    return f"YAML anchors and aliases ({what}) are not read: write the value out in full where it is used"


def load_yaml(text: str, name: str) -> tuple[Any, yaml.Node | None]:
    """The data of YAML ``text`` (from the file ``name``), and its node graph, for line numbers.

    Raises:
        InputError: The text is not valid YAML, uses an anchor or alias, nests more than
            `MAX_DEPTH` deep, holds a value that cannot be built, or repeats a key in a mapping;
            with the line of the problem.
    """
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:  # the reader checks every character before anything is read
        line = text.count("\n", 0, exc.position) + 1
        character = f"U+{exc.character:04X}" if isinstance(exc.character, int) else repr(exc.character)
        raise InputError(
            name, line, None, f"holds a control character ({character}) that YAML does not allow"
        ) from None
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _Refused as exc:
        raise InputError(name, _line(exc), None, str(exc.problem)) from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or exc
        raise InputError(name, _line(exc), None, f"not valid YAML or JSON: {problem}") from exc
    finally:
        loader.dispose()
    refuse_repeats(name, node)
    return data, node


def read_yaml(path: str | Path) -> tuple[Any, yaml.Node | None]:
    """`load_yaml` of the file at ``path``, read with `read_text`."""
    return load_yaml(read_text(path), str(path))


def compose_yaml(text: str) -> yaml.Node | None:
    """The node graph of YAML ``text`` as `load_yaml` composes it (no anchors, aliases or deep nesting).

    Raises:
        yaml.YAMLError: The text is not YAML that `load_yaml` reads.
    """
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def node_line(node: yaml.Node | None) -> int | None:
    """The 1-based line a YAML node starts on, or None when there is no node."""
    return node.start_mark.line + 1 if node is not None else None


def _line(error: yaml.YAMLError) -> int | None:
    mark = getattr(error, "problem_mark", None)
    return mark.line + 1 if mark is not None else None


def refuse_repeats(name: str, document: yaml.Node | None) -> None:
    """Raise `InputError` for the first key a mapping in ``document`` repeats, with both lines."""
    if (repeated := _repeated_key(document)) is not None:
        key, first, again = repeated
        raise InputError(name, again, key, f"the key {key!r} is given twice (first on line {first})")


def _repeated_key(node: yaml.Node | None) -> tuple[str, int, int] | None:
    """The first key a mapping in ``node`` repeats, the line it was first given on, and the repeat's."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                line = key.start_mark.line + 1
                if key.value in seen:
                    return key.value, seen[key.value], line
                seen[key.value] = line
            if (found := _repeated_key(value)) is not None:
                return found
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if (found := _repeated_key(item)) is not None:
                return found
    return None


# -- TOML ------------------------------------------------------------------------------------------

_TOML_WHERE = re.compile(r" \(at line (?P<line>\d+), column (?P<column>\d+)\)$")


def read_toml(path: str | Path) -> dict[str, Any]:
    """The tables of a TOML file, read with `read_text` (a byte-order mark is left out).

    Raises:
        InputError: The file cannot be read, is not UTF-8 or not TOML, or nests more than
            `MAX_DEPTH` deep; with the line of the problem when it is known.
    """
    name = str(path)
    text = read_text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        if (where := _TOML_WHERE.search(message)) is None:
            raise InputError(name, None, None, f"not valid TOML: {message}") from None
        problem = f"not valid TOML: {message[: where.start()]} (column {where['column']})"
        raise InputError(name, int(where["line"]), None, problem) from None
    except RecursionError:
        raise InputError(name, None, None, deep_problem()) from None
    except ValueError as exc:  # a value Python cannot build, such as an integer of 5,000 digits
        raise InputError(name, None, None, value_problem(exc)) from None
    if too_deep(data):
        raise InputError(name, None, None, deep_problem())
    return data
