"""Files written to hang or crash a reader: alias bombs, deep nesting, huge numbers, NaN, bad bytes.

Each is refused where it is read, in milliseconds, as an `InputError` naming the file and line (and
the field, when there is one); in a file of lines, the other lines still read.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from faceteval._util.files import read_document, read_json, read_jsonl
from faceteval.core import Instance, Judgment
from faceteval.datasets import load_criteria, read_instances, read_judgments
from faceteval.datasets._generic import load_labelled
from faceteval.errors import InputError
from faceteval.methods.hdeval import load_tree

SRC = Path(__file__).resolve().parents[3] / "src"
DEEP = "[" * 100_000  # past the interpreter's recursion limit: json.loads raises RecursionError
DEEPISH = "[" * 200 + "]" * 200  # decoded without complaint, deep enough to trouble what reads it after


def bomb(last: str) -> str:
    """Nine levels of nine aliases (9**9 items once expanded, from 400 bytes), then ``last``."""
    levels = zip("abcdefghi", ["", *"abcdefgh"], strict=True)
    return (
        "".join(
            f"{name}: &{name} [{', '.join([f'*{below}'] * 9 if below else ['x'] * 9)}]\n"
            for name, below in levels
        )
        + last
    )


@pytest.mark.parametrize(
    ("reader", "content"),
    [
        ("faceteval.datasets:load_criteria", bomb("criteria: [*i]\n")),
        ("faceteval.methods.hdeval:load_tree", bomb("task: t\ncriteria:\n  - name: c\n    children: *i\n")),
    ],
    ids=["criteria-file", "tree-children"],
)
def test_an_alias_bomb_is_refused_in_well_under_a_second(tmp_path: Path, reader: str, content: str) -> None:
    """In a child process with a timeout: a reader that expands the bomb fails the test, not hangs it."""
    path = tmp_path / "bomb.yaml"
    path.write_text(content, encoding="utf-8")
    module, function = reader.split(":")
    script = textwrap.dedent(
        f"""
        import time
        from {module} import {function} as read
        from faceteval.errors import InputError
        start = time.perf_counter()
        try:
            read({str(path)!r})
        except InputError as exc:
            print(f"{{time.perf_counter() - start:.3f}} {{exc}}")
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            env={"PYTHONPATH": str(SRC)},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{reader} still reading a 400-byte alias bomb after 30 s")
    assert done.returncode == 0, done.stderr
    seconds, message = done.stdout.strip().split(" ", 1)
    assert float(seconds) < 5, message
    assert message.startswith(f"{path}:1: YAML anchors and aliases (&a) are not read")


def test_an_alias_in_a_criteria_or_tree_file_is_named_by_line(tmp_path: Path) -> None:
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text("- name: A\n  description: &d Clear.\n- name: B\n  description: *d\n")
    with pytest.raises(InputError) as caught:
        load_criteria(criteria)
    assert (caught.value.line, caught.value.problem.split(":")[0]) == (
        2,
        "YAML anchors and aliases (&d) are not read",
    )
    tree = tmp_path / "tree.yaml"
    tree.write_text("task: t\ncriteria:\n  - name: c\n    children:\n      - *x\n")
    with pytest.raises(InputError, match=r"tree\.yaml:5: YAML anchors and aliases \(\*x\)"):
        load_tree(tree)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_deeply_nested_criteria_file_is_refused_not_a_recursion_error(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"criteria{suffix}"
    path.write_text('{"criteria": ' + DEEP + "}", encoding="utf-8")
    with pytest.raises(InputError, match="nested more than 64 levels deep"):
        read_document(path)


def good(i: int) -> str:
    return json.dumps({"id": f"i{i}", "query": "Q?", "candidates": ["a", "b"]})


def test_a_deeply_nested_line_is_that_lines_error_and_the_rest_reads(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    lines = [
        good(1),
        '{"id": "deep", "query": "Q?", "candidates": ["a", "b"], "metadata": {"m": ' + DEEP + "}}",
        good(3),
        '{"id": "deepish", "query": "Q?", "candidates": ["a", "b"], "metadata": {"m": ' + DEEPISH + "}}",
        '{"id": "huge", "query": "Q?", "candidates": ["a", "b"], "metadata": {"n": ' + "9" * 5000 + "}}",
        good(6),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = list(read_instances(path))
    assert [item.id if isinstance(item, Instance) else item.line for item in items] == [
        "i1",
        2,
        "i3",
        4,
        5,
        "i6",
    ]
    deep, deepish, huge = items[1], items[3], items[4]
    assert isinstance(deep, InputError) and "nested more than 64 levels deep" in deep.problem
    assert isinstance(deepish, InputError) and deepish.field == "metadata"
    assert deepish.record_id == "deepish"  # its error judgment keeps the line's id
    assert (
        isinstance(huge, InputError)
        and huge.problem == "holds an integer of thousands of digits, which is refused"
    )


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_a_deeply_nested_row_of_a_users_labelled_file_is_that_rows_error(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"labels{suffix}"
    rows = [{"query": "Q?", "candidates": ["a", "b"], "label": 1}] * 2
    if suffix == ".jsonl":
        path.write_text(f"{json.dumps(rows[0])}\n" + '{"query": "Q?", "candidates": ' + DEEP + "}\n")
    elif suffix == ".json":
        path.write_text("[" + json.dumps(rows[0]) + ', {"query": "Q?", "candidates": ' + DEEPISH + "}]")
    else:
        path.write_text(f'query,candidates,label\nQ?,"[""a"", ""b""]",1\nQ?,{DEEPISH},1\n')
    first, second = load_labelled(path, None)
    assert isinstance(first, Instance)
    assert isinstance(second, InputError) and "nested more than 64 levels deep" in str(second)
    assert second.line == (3 if suffix == ".csv" else 2)  # the CSV's header is line 1


def judgment(**fields: object) -> str:
    return json.dumps({"id": "a", "method": "m", "status": "ok", "verdict": 1, **fields})


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (judgment(scores=[float("nan"), 1.0]), "scores.0"),
        (judgment(scores=[1.0, float("inf")]), "scores.1"),
        ('{"id": "a", "method": "m", "status": "ok", "scores": [1e400, 1]}', "scores.0"),
        (judgment(facets=[{"name": "F", "scores": [2, float("-inf")]}]), "facets.0.scores.1"),
        (judgment(usage={"cost_usd": float("nan")}), "usage.cost_usd"),
    ],
)
def test_a_score_or_cost_that_is_not_finite_is_refused_with_its_field(
    tmp_path: Path, line: str, field: str
) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(judgment(id="z") + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        list(read_judgments(path))
    assert (caught.value.line, caught.value.field) == (2, field)
    assert caught.value.problem == "Input should be a finite number"


def test_a_judgment_cannot_be_made_with_a_score_that_is_not_finite() -> None:
    with pytest.raises(ValueError, match="finite number"):
        Judgment(id="a", method="m", status="ok", scores=[float("nan")])


def test_a_deeply_nested_judgment_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    trace = '[{"stage": "s", "messages": [], "raw": "", "parsed": ' + DEEPISH + "}]"
    path.write_text(judgment() + "\n" + judgment(id="b")[:-1] + ', "trace": ' + trace + "}\n")
    with pytest.raises(InputError, match=r"j\.jsonl:2: field 'trace': nested more than 64 levels deep"):
        list(read_judgments(path))


def test_a_json_lines_file_with_a_bom_a_bad_byte_or_a_deep_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "features.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n{"b": 2}\n')
    assert list(read_jsonl(path)) == [(1, {"a": 1}), (2, {"b": 2})]
    path.write_bytes(b'{"a": 1}\n{"b": "caf\xe9"}\n')
    with pytest.raises(
        InputError, match=r"features\.jsonl:2: not UTF-8 text \(invalid continuation byte at byte 11"
    ):
        list(read_jsonl(path))
    path.write_text('{"a": 1}\n{"b": ' + DEEP + "}\n")
    with pytest.raises(InputError, match=r"features\.jsonl:2: nested more than 64 levels deep"):
        list(read_jsonl(path))


def test_a_json_file_may_start_with_a_bom_and_a_bad_byte_is_named_by_line(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": [1, 2]}')
    assert read_json(path) == {"a": [1, 2]}
    path.write_bytes(b'{\n"a": "caf\xe9"\n}')
    with pytest.raises(
        InputError, match=r"data\.json:2: not UTF-8 text \(invalid continuation byte at byte 10"
    ):
        read_json(path)
