"""The shared readers of hand-written files: YAML without aliases or deep nesting, TOML, UTF-8 text.

Alias bombs through the readers that use them, timed: tests/unit/datasets/test_hostile_files.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval._util.documents import MAX_DEPTH, load_yaml, read_text, read_toml, read_yaml, too_deep
from faceteval.errors import InputError


def error_of(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        load_yaml(text, "f.yaml")
    return caught.value


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("a: 1\nb: *x\n", 2, "YAML anchors and aliases (*x) are not read"),
        ("a: 1\nb: &x [1]\n", 2, "YAML anchors and aliases (&x) are not read"),
        ("base: &b {x: 1}\nother:\n  <<: *b\n", 1, "(&b) are not read"),
        ("a: " + "[" * 100_000, 1, f"nested more than {MAX_DEPTH} levels deep"),
        ("".join("  " * i + "-\n" for i in range(MAX_DEPTH + 5)), MAX_DEPTH + 1, "levels deep"),
        ("a: 1\nb: " + "1" * 5000 + "\n", 2, "holds an integer of thousands of digits, which is refused"),
        ("a: 1\nwhen: 2024-13-45\n", 2, "holds a value that cannot be read (month must be in 1..12)"),
        ("a: 1\nb: 2\na: 3\n", 3, "the key 'a' is given twice (first on line 1)"),
        ("a: 1\n# \x1b]0;t\x07\nb: 2\n", 2, "holds a control character (U+001B) that YAML does not"),
    ],
)
def test_yaml_that_could_hang_crash_or_lose_a_value_is_named_by_line(
    text: str, line: int, problem: str
) -> None:
    error = error_of(text)
    assert (error.path, error.line) == ("f.yaml", line)
    assert problem in error.problem


def test_yaml_without_anchors_reads_as_the_safe_loader_reads_it() -> None:
    data, node = load_yaml("a:\n  <<: {x: 1}\n  y: [1, 2.5, 'three', null]\n", "f.yaml")
    assert data == {"a": {"x": 1, "y": [1, 2.5, "three", None]}}
    assert node is not None and node.start_mark.line == 0
    assert load_yaml("", "f.yaml") == (None, None)
    nested = "a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n"
    assert load_yaml(nested, "f.yaml")[0] is not None  # as deep as is allowed


def test_text_is_utf8_with_a_byte_order_mark_left_out_and_a_bad_byte_named(tmp_path: Path) -> None:
    marked = tmp_path / "marked.yaml"
    marked.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert read_text(marked) == "a: 1\n" and read_yaml(marked)[0] == {"a": 1}
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(InputError) as caught:
        read_text(latin)
    assert str(caught.value) == f"{latin}:2: not UTF-8 text (invalid continuation byte at byte 7 of the line)"
    with pytest.raises(InputError, match="cannot read"):
        read_text(tmp_path / "absent.yaml")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'\xef\xbb\xbf[judge]\nmethod = "direct"\n', None),
        (
            b'[judge]\nmethod = "dir\xe9ct"\n',
            ":2: not UTF-8 text (invalid continuation byte at byte 14 of the line)",
        ),
        (b"[judge]\nx = 1 2\n", ":2: not valid TOML: Expected newline or end of document after a statement"),
        (b"x = " + b"[" * 100_000, f": nested more than {MAX_DEPTH} levels deep"),
        (
            b"x = " + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
            f": nested more than {MAX_DEPTH} levels deep",
        ),
        (b"x = " + b"1" * 5000, ": holds an integer of thousands of digits, which is refused"),
    ],
)
def test_toml_is_read_or_its_problem_named_with_the_line(
    tmp_path: Path, content: bytes, expected: str | None
) -> None:
    path = tmp_path / "faceteval.toml"
    path.write_bytes(content)
    if expected is None:
        assert read_toml(path) == {"judge": {"method": "direct"}}
        return
    with pytest.raises(InputError) as caught:
        read_toml(path)
    assert str(caught.value).startswith(f"{path}{expected}")


def test_depth_is_measured_without_recursion() -> None:
    deep: list[object] = []
    for _ in range(100_000):  # far past the interpreter's recursion limit
        deep = [deep]
    assert too_deep(deep)
    assert not too_deep({"a": [[1], {"b": [2]}]}, limit=4) and too_deep({"a": [[1], {"b": [[2]]}]}, limit=4)
    assert not too_deep("text", limit=0) and not too_deep(3)
