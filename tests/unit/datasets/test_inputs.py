import json
from pathlib import Path

import pytest

from faceteval import Direct, DnA, judge
from faceteval.core import Instance
from faceteval.datasets import load_criteria, read_instances
from faceteval.errors import InputError
from faceteval.llm import LLM, ModelSpec, ScriptedProvider
from tests.support.rule_judge import RuleJudge


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def good(i: int, **extra: object) -> str:
    return json.dumps({"id": f"q{i}", "query": "Q?", "candidates": ["a", "b"], **extra})


def test_bad_lines_name_file_line_and_field_and_the_rest_still_reads(tmp_path: Path) -> None:
    path = write(
        tmp_path / "pairs.jsonl",
        [
            good(1),
            '{"id": "q2", "query": "Q?", "candidates": "not a list"}',
            "{not json",
            "",
            good(4, label=5),
            good(1),
            '{"query": "no id", "candidates": ["x", "y"], "winner": "model_a"}',
            "[1, 2]",
            good(9),
        ],
    )
    items = list(read_instances(path))
    assert len(items) == 8
    ok = [i for i in items if isinstance(i, Instance)]
    errors = [i for i in items if isinstance(i, InputError)]
    assert [i.id for i in ok] == ["q1", "q9"]
    described = [(e.line, e.field) for e in errors]
    assert described == [(2, "candidates"), (3, None), (5, "label"), (6, "id"), (7, "winner"), (8, None)]
    assert str(errors[0]).startswith(f"{path}:2: field 'candidates':")
    assert "not valid JSON" in str(errors[1])
    assert "label 5 is out of range" in str(errors[2])
    assert "duplicate id 'q1' (first on line 1)" in str(errors[3])
    assert "unknown field (put extra data under 'metadata')" in str(errors[4])
    assert errors[0].record_id == "q2"


def test_missing_id_becomes_the_line_number(tmp_path: Path) -> None:
    path = write(tmp_path / "p.jsonl", ['{"query": "Q", "candidates": ["a"]}'])
    (instance,) = read_instances(path)
    assert isinstance(instance, Instance) and instance.id == "1"


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot open"):
        list(read_instances(tmp_path / "nope.jsonl"))


def test_reading_is_lazy(tmp_path: Path) -> None:
    path = write(tmp_path / "p.jsonl", [good(i) for i in range(1000)])
    items = read_instances(path)
    assert isinstance(next(iter(items)), Instance)


def test_criteria_file_forms(tmp_path: Path) -> None:
    listed = tmp_path / "a.yaml"
    listed.write_text(
        "- name: Accuracy\n  weight: 1\n- name: Clarity\n  description: easy to follow\n  weight: 2\n"
    )
    mapped = tmp_path / "b.json"
    mapped.write_text(json.dumps({"criteria": ["Accuracy", {"name": "Depth"}]}))
    assert [c.describe() for c in load_criteria(listed)] == ["Accuracy", "Clarity: easy to follow"]
    assert load_criteria(listed)[1].weight == 2
    assert [c.name for c in load_criteria(mapped)] == ["Accuracy", "Depth"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- Accuracy\n- name: Clarity\n  weight: -1\n", r"c\.yaml:2: field 'criteria\[1\]\.weight'"),
        ("- Accuracy\n- accuracy\n", r"c\.yaml:2: field 'criteria\[1\]\.name': repeats"),
        ("criteria: []\n", "no criteria"),
        ("other: 1\n", "mapping with a 'criteria' list"),
        ("- [unclosed\n", r"c\.yaml:\d+: not valid YAML"),
        ("- name: A\n  colour: red\n", r"criteria\[0\]\.colour"),
        (
            "- name: A\n  weight: 0\n- name: B\n  weight: 0\n",
            r"c\.yaml:1: field 'criteria': every weight is 0",
        ),
        (
            "- name: A\n  weight: 2\n- B\n",
            r"c\.yaml:1: field 'criteria': 1 of 2 criteria has a weight \(A\)",
        ),
        (  # YAML keeps the last of two keys: the criteria listed first would silently go
            "criteria:\n  - a\n  - b\ncriteria:\n  - c\n",
            r"c\.yaml:4: field 'criteria': the key 'criteria' is given twice \(first on line 1\)",
        ),
        (
            "- name: A\n  weight: 1\n  weight: 2\n",
            r"c\.yaml:3: field 'weight': the key 'weight' is given twice",
        ),
    ],
)
def test_criteria_file_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_criteria(path)


def test_half_a_character_is_refused_with_its_field_and_a_whole_one_is_kept(tmp_path: Path) -> None:
    # "\ud83d" alone is valid JSON syntax but not text (half of an emoji): it could not be written to
    # the output, so the line is refused where it is read. "\ud83d\ude00" is one character.
    path = write(
        tmp_path / "p.jsonl",
        [
            '{"id": "a", "query": "Q \\ud83d\\ude00", "candidates": ["x", "y"]}',
            '{"id": "b", "query": "Q", "candidates": ["x", "cut \\ud83d"]}',
            '{"id": "c", "query": "Q", "candidates": ["x"], "metadata": {"note": ["ok", "\\udc00"]}}',
            '{"id": "\\udc00", "query": "Q", "candidates": ["x"]}',
            good(5),
        ],
    )
    first, *errors, last = read_instances(path)
    assert isinstance(first, Instance) and first.query == "Q \N{GRINNING FACE}"
    assert isinstance(last, Instance) and last.id == "q5"
    assert all(isinstance(e, InputError) for e in errors)
    assert [(e.line, e.field, e.record_id) for e in errors] == [  # type: ignore[union-attr]
        (2, "candidates.1", "b"),
        (3, "metadata.note.1", "c"),
        (4, "id", None),
    ]
    assert str(errors[0]) == (
        f"{path}:2: field 'candidates.1': holds half of a character (an unpaired surrogate escape "
        "such as \\ud83d, often an emoji cut in two), which is not text"
    )


@pytest.mark.parametrize(
    ("text", "what"),
    [
        (json.dumps([{"query": "Q", "candidates": ["a"]}] * 3, indent=2), "a JSON array"),
        (json.dumps([{"query": "Q", "candidates": ["a"]}] * 3), "a JSON array"),
        (
            json.dumps({"query": "Q", "candidates": ["a"]}, indent=2),
            "a JSON object spread over several lines",
        ),
    ],
)
def test_a_json_document_is_one_error_not_one_per_line(tmp_path: Path, text: str, what: str) -> None:
    # A .jsonl file must be JSON Lines; a .json file may hold an array (tests/unit/datasets/test_reader.py)
    path = tmp_path / "dataset.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        list(read_instances(path))
    assert (caught.value.line, caught.value.field) == (1, None)
    assert caught.value.problem.startswith(f"the file is {what}, not JSON Lines")
    assert f"jq -c '.[]' {path}" in caught.value.problem


def test_a_broken_first_line_is_still_that_lines_error(tmp_path: Path) -> None:
    path = write(tmp_path / "p.jsonl", ['{"id": "a", "query": "Q"', good(2)])
    first, second = read_instances(path)
    assert isinstance(first, InputError) and "not valid JSON" in first.problem
    assert isinstance(second, Instance)


def test_a_line_number_taken_as_id_that_clashes_is_explained(tmp_path: Path) -> None:
    path = write(
        tmp_path / "p.jsonl",
        [
            '{"id": "2", "query": "Q", "candidates": ["a"]}',
            '{"query": "Q", "candidates": ["a"]}',  # would be "2"
            '{"query": "Q", "candidates": ["a"]}',  # "3"
            '{"id": "3", "query": "Q", "candidates": ["a"]}',
        ],
    )
    first, clash, third, clash_again = read_instances(path)
    assert isinstance(first, Instance) and isinstance(third, Instance) and third.id == "3"
    assert isinstance(clash, InputError) and isinstance(clash_again, InputError)
    assert (clash.field, clash_again.field) == (None, "id")
    assert clash.problem.startswith(
        "id '2' is used twice: line 2 has no id and takes its line number, which line 1"
    )
    assert clash_again.problem.startswith(
        "id '3' is used twice: line 3 has no id and takes its line number, which line 4"
    )


def test_an_instance_whose_criteria_weigh_nothing_is_an_input_error(tmp_path: Path) -> None:
    zero = [{"name": "A", "weight": 0}, {"name": "B", "weight": 0.0}]
    rows = [good(1, criteria=zero), good(2, criteria=[*zero[:1], "B"]), good(3, criteria=["A", "B"])]
    bad, partial, fine = read_instances(write(tmp_path / "p.jsonl", rows))
    assert isinstance(bad, InputError) and bad.field == "criteria" and "every weight is 0" in bad.problem
    assert isinstance(partial, Instance)  # read as it is (inputs judged before stay readable) ...
    assert isinstance(fine, Instance)
    rule = RuleJudge(quality={"a": 6, "b": 3})
    llm = LLM(ScriptedProvider(rule.for_provider()), ModelSpec("scripted", "j"))
    refused, judged = judge([partial, fine], DnA(), llm)  # ... and refused where weights are used
    assert refused.status == "error" and "1 of 2 criteria has a weight (A)" in (refused.error or "")
    assert refused.usage.calls == 0 and judged.status == "ok"
    assert judge([partial], DnA(aggregate="mean"), llm)[0].status == "ok"  # no weights used: no matter


def test_problems_are_told_in_json_terms(tmp_path: Path) -> None:
    path = write(
        tmp_path / "p.jsonl",
        [
            '{"query": "Q", "candidates": "hi"}',
            '{"query": "Q", "candidates": []}',
            '{"query": "Q", "candidates": ["a"], "metadata": [1]}',
            '{"query": "Q", "candidates": [1, 2]}',  # not also "at least 1 item, not 0"
            '{"query": "Q", "candidates": ["a"], "criteria": [5]}',
        ],
    )
    problems = [e.problem for e in read_instances(path) if isinstance(e, InputError)]
    assert problems == [
        "Input should be a list",
        "The list should have at least 1 item, not 0",
        "Input should be an object",
        "Input should be a valid string; field 'candidates.1': Input should be a valid string",
        "Input should be a criterion: a name, or an object with a 'name'",
    ]


def test_a_line_cut_short_is_reported_at_its_end(tmp_path: Path) -> None:
    path = write(tmp_path / "p.jsonl", ['{"id": "a", "query": "Q", "candidates": ["x", "y"]'])
    (error,) = read_instances(path)
    assert isinstance(error, InputError)
    assert error.problem == "not valid JSON: Expecting ',' delimiter (column 51)"


def test_a_criteria_file_that_is_not_utf8_or_not_json_is_named(tmp_path: Path) -> None:
    latin = tmp_path / "c.json"
    latin.write_bytes('["Accuracy",\n "Clart\xe9"]'.encode("latin-1"))
    with pytest.raises(InputError, match=r"c\.json:2: not UTF-8 text"):
        load_criteria(latin)
    trailing = tmp_path / "t.json"  # YAML would read it; as JSON it is a mistake worth naming
    trailing.write_text('["Accuracy",\n "Clarity",\n]', encoding="utf-8")
    with pytest.raises(InputError, match=r"t\.json:3: not valid JSON"):
        load_criteria(trailing)
    tabbed = tmp_path / "tabs.json"  # JSON that YAML cannot read (tab indents): still checked, as JSON
    tabbed.write_text('[\n\t{"name": "A", "weight": 1, "weight": 0}\n]', encoding="utf-8")
    with pytest.raises(InputError, match=r"tabs\.json: field 'weight': the key 'weight' is given twice"):
        load_criteria(tabbed)
    spaced = tmp_path / "spaced.json"
    spaced.write_text('[\n  {"name": "A",\n   "name": "B"}\n]', encoding="utf-8")
    with pytest.raises(
        InputError, match=r"spaced\.json:3: field 'name': the key 'name' is given twice \(first on line 2\)"
    ):
        load_criteria(spaced)
    marked = tmp_path / "bom.yaml"
    marked.write_text("\ufeff- Accuracy\n", encoding="utf-8")
    assert [c.name for c in load_criteria(marked)] == ["Accuracy"]


def test_a_line_that_is_not_utf8_is_that_lines_error_and_the_rest_reads(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    lines = [good(i).encode() for i in range(1, 6)]
    lines[2] = lines[2].replace(b"Q?", "Qu\xe9?".encode("latin-1"))
    path.write_bytes(b"\n".join(lines) + b"\n")
    items = list(read_instances(path))
    assert [type(i).__name__ for i in items] == ["Instance"] * 2 + ["InputError"] + ["Instance"] * 2
    error = items[2]
    assert isinstance(error, InputError) and error.line == 3
    assert "not UTF-8 text" in error.problem


def test_a_file_that_is_not_text_is_refused_at_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe" + b"\n" + good(1).encode())
    with pytest.raises(InputError, match=r"not UTF-8 text .*: is it a JSON Lines file") as caught:
        list(read_instances(path))
    assert caught.value.line == 1


def test_a_byte_order_mark_and_carriage_returns_are_read_as_text(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + good(1).encode()
        + b"\r\n"  # BOM and CRLF
        + b'{"id": "q2",\r"query": "Q?", "candidates": ["a", "b"]}\n'  # a CR as JSON whitespace
        + good(3).encode()
        + b"\n"
    )
    items = list(read_instances(path))
    assert [getattr(i, "id", None) for i in items] == ["q1", "q2", "q3"]


def test_a_repeated_id_is_written_under_its_line_so_output_ids_stay_unique(tmp_path: Path) -> None:
    path = write(tmp_path / "p.jsonl", [good(1), good(2), good(1)])
    *_, repeated = read_instances(path)
    assert isinstance(repeated, InputError) and repeated.field == "id" and repeated.record_id is None
    llm = LLM(ScriptedProvider.sequence(["8 6"] * 2), ModelSpec("scripted", "m"))
    ids = [j.id for j in judge(read_instances(path), Direct(), llm)]
    assert ids == ["q1", "q2", "line-3"]
    # an invalid line keeps its id unless it is taken, and a later line may not take it
    invalid = '{"id": "a", "query": "Q?"}'
    taken = write(tmp_path / "q.jsonl", [good(1).replace("q1", "a"), invalid, good(3).replace("q3", "b")])
    two = LLM(ScriptedProvider.sequence(["8 6"] * 2), ModelSpec("scripted", "m"))
    assert [j.id for j in judge(read_instances(taken), Direct(), two)] == ["a", "line-2", "b"]
    path = write(tmp_path / "r.jsonl", [invalid, good(2).replace("q2", "a")])
    errors = [i for i in read_instances(path) if isinstance(i, InputError)]
    assert [(e.line, e.record_id) for e in errors] == [(1, "a"), (2, None)]
    assert "duplicate id 'a' (first on line 1)" in errors[1].problem


def test_an_instance_repeating_a_criterion_or_giving_a_score_that_is_no_number_is_refused(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "p.jsonl",
        [
            good(1, criteria=["Accuracy", "accuracy "]),
            good(2).replace("}", ', "scores": {"quality": NaN}}'),
            good(3).replace("}", ', "scores": {"quality": Infinity}}'),
            good(4, scores={"quality": 4.5}),
        ],
    )
    items = list(read_instances(path))
    errors = [(i.line, i.field, i.problem) for i in items if isinstance(i, InputError)]
    assert [e[:2] for e in errors] == [(1, "criteria"), (2, "scores.quality"), (3, "scores.quality")]
    assert "criterion 2 repeats the name 'accuracy'" in errors[0][2]
    assert "finite number" in errors[1][2]
    assert isinstance(items[3], Instance) and items[3].scores == {"quality": 4.5}


def test_systems_given_for_a_file_name_the_instances_that_name_none(tmp_path: Path) -> None:
    path = write(
        tmp_path / "pairs.jsonl",
        [
            good(1),
            good(2, systems=["own-1", "own-2"]),
            json.dumps({"id": "q3", "query": "Q?", "candidates": ["a", "b", "c"]}),
        ],
    )
    first, second, third = read_instances(path, systems=["base", "new"])
    assert isinstance(first, Instance) and first.systems == ("base", "new")
    assert isinstance(second, Instance) and second.systems == ("own-1", "own-2")
    assert isinstance(third, InputError)
    assert (third.line, third.field) == (3, "systems")
    assert "names 2 systems for 3 candidates" in str(third)
    assert "as given for every instance that names no systems" in str(third)
    assert [i.systems for i in read_instances(path) if isinstance(i, Instance)] == [
        None,
        ("own-1", "own-2"),
        None,
    ]
