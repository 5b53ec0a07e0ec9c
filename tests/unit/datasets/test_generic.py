"""The generic labelled-data loader: field maps, aliases, errors that name file, line and column."""

from __future__ import annotations

import collections
import csv
import io
import json
import os
import types
from pathlib import Path

import pytest

from faceteval.core import Instance
from faceteval.datasets import FieldMap, load_labelled, parse_field_options, read_instances
from faceteval.errors import ConfigError, InputError

ARENA_MAP = {"model_a": 1, "model_b": 2, "tie": 0}


def jsonl(path: Path, *records: object) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def table(path: Path, rows: list[list[str]], delimiter: str = ",") -> Path:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def split(items: list[Instance | InputError]) -> tuple[list[Instance], list[InputError]]:
    return [i for i in items if isinstance(i, Instance)], [i for i in items if isinstance(i, InputError)]


# --- mapping ------------------------------------------------------------------------------------


def test_jsonl_with_a_field_map(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "mine.jsonl",
        {
            "uid": "a",
            "instruction": "Q1",
            "output_1": "x",
            "output_2": "y",
            "winner": "model_b",
            "coh": 4,
            "src": 1,
        },
        {
            "uid": "b",
            "instruction": "Q2",
            "output_1": "x",
            "output_2": "y",
            "winner": "tie",
            "coh": "3.5",
            "src": 2,
        },
    )
    fields = parse_field_options(
        [
            "id=uid",
            "query=instruction",
            "candidates=output_1,output_2",
            "label=winner",
            "scores.coherence=coh",
        ],
        label_map="model_a=1,model_b=2,tie=0",
    )
    first, second = load_labelled(path, fields)
    assert first == Instance(
        id="a", query="Q1", candidates=("x", "y"), label=2, scores={"coherence": 4.0}, metadata={"src": 1}
    )
    assert isinstance(second, Instance) and second.label == 0 and second.scores == {"coherence": 3.5}


def test_csv_with_a_field_map_and_a_multi_line_cell(tmp_path: Path) -> None:
    path = table(
        tmp_path / "mine.csv",
        [
            ["prompt_text", "a", "b", "pref", "topic", "gold", "fluency", "judge"],
            ["Write\na poem", "p1", "p2", "1", "poetry", "ref", "4", "ann1"],
            ["Q2", "r1", "r2", "0", "", "", "", "ann2"],
        ],
    )
    fields = FieldMap(
        query="prompt_text",
        candidates=("a", "b"),
        label="pref",
        category="topic",
        reference="gold",
        scores={"fluency": "fluency"},
        metadata=("judge",),
        label_base=0,
    )
    first, second = load_labelled(path, fields)
    assert first == Instance(
        id="2",
        query="Write\na poem",
        candidates=("p1", "p2"),
        label=2,
        category="poetry",
        reference="ref",
        scores={"fluency": 4.0},
        metadata={"judge": "ann1"},
    )
    assert second == Instance(
        id="4", query="Q2", candidates=("r1", "r2"), label=1, metadata={"judge": "ann2"}
    )


def test_tsv_and_one_column_holding_the_candidates(tmp_path: Path) -> None:
    path = table(
        tmp_path / "mine.tsv",
        [["id", "query", "outs", "label"], ["x", "Q", '["a", "b", "c"]', "3"], ["y", "Q", "only one", ""]],
        delimiter="\t",
    )
    first, second = load_labelled(path, FieldMap(candidates="outs"))
    assert isinstance(first, Instance) and first.candidates == ("a", "b", "c") and first.label == 3
    assert isinstance(second, Instance) and second.candidates == ("only one",) and second.label is None


def test_scores_from_an_object_column_and_empty_scores_left_out(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "p.jsonl",
        {"question": "Q", "output": ["o"], "ratings": {"coh": 2, "flu": None}, "extra": 1},
        {"question": "Q", "output": ["o"], "ratings": None, "extra": 2},
    )
    fields = parse_field_options(["candidates=output", "scores.*=ratings", "metadata="])
    first, second = load_labelled(path, fields)
    assert isinstance(first, Instance) and first.scores == {"coh": 2.0} and first.metadata == {}
    assert isinstance(second, Instance) and second.scores is None


def test_json_array_records_are_numbered_by_position(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    records = [
        {"input": "Q", "candidates": ["a", "b"], "winner": "B"},
        {"input": "Q", "candidates": ["a"], "winner": 2},
    ]
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    first, second = load_labelled(path)
    assert isinstance(first, Instance) and first.id == "1" and first.label == 2
    assert isinstance(second, InputError)
    assert (second.path, second.line, second.field) == (str(path), 2, "winner")
    assert second.problem.startswith("record 2: label 2 is out of range")


def test_the_real_autoj_pairwise_set_loads_with_a_map() -> None:
    path = Path(os.environ["FACETEVAL_DATA_DIR"]) / "autoj/test/testdata_pairwise.jsonl"
    fields = parse_field_options(
        ["query=prompt", "candidates=response 1,response 2", "category=scenario"], label_map="0=1,1=2,2=0"
    )
    instances, errors = split(list(load_labelled(path, fields)))
    assert not errors and len(instances) == 1392
    assert collections.Counter(i.label for i in instances) == {1: 520, 2: 499, 0: 373}  # as SOURCE.md states
    assert len({i.category for i in instances}) == 58


# --- defaults and aliases -----------------------------------------------------------------------


def test_canonical_jsonl_without_options_is_read_as_read_instances_reads_it(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "c.jsonl",
        {"id": "q1", "query": "Q", "candidates": ["a", "b"], "label": 1, "metadata": {"k": 1}},
        {"id": "q2", "query": "Q", "candidates": ["a", "b"], "winner": "model_a"},
        "{broken",
        {"id": "q1", "query": "Q", "candidates": ["a"]},
    )
    assert [str(x) for x in load_labelled(path)] == [str(x) for x in read_instances(path)]
    assert [str(x) for x in load_labelled(path, FieldMap())] == [str(x) for x in read_instances(path)]


@pytest.mark.parametrize(
    ("header", "label"),
    [
        (["instruction", "output_1", "output_2", "winner"], "model_a"),
        (["input", "response_a", "response_b", "preference"], "A"),
        (["question", "output_1", "output_2", "label"], "1"),
        (["prompt", "response_a", "response_b", "winner"], "response_a"),
    ],
)
def test_aliases_load_without_options(tmp_path: Path, header: list[str], label: str) -> None:
    path = table(tmp_path / "a.csv", [header, ["Q", "x", "y", label]])
    (instance,) = load_labelled(path)
    assert instance == Instance(id="2", query="Q", candidates=("x", "y"), label=1)


def test_numbered_outputs_extend_and_other_columns_become_metadata(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "l.jsonl",
        {"instruction": "Q", "output_1": "a", "output_2": "b", "output_3": "c", "model_a": "m1", "winner": 3},
    )
    (instance,) = load_labelled(path)
    assert isinstance(instance, Instance)
    assert instance.candidates == ("a", "b", "c") and instance.label == 3
    assert instance.metadata == {"model_a": "m1"}


def test_two_aliases_are_ambiguous_and_a_mapping_resolves_them(tmp_path: Path) -> None:
    record = {"instruction": "Do it", "input": "data", "output_1": "a", "output_2": "b"}
    path = jsonl(tmp_path / "alpaca.jsonl", record)
    (error,) = load_labelled(path)
    assert isinstance(error, InputError) and (error.line, error.field) == (1, "query")
    assert "'instruction' and 'input'" in error.problem and "query=COLUMN" in error.problem
    (instance,) = load_labelled(path, FieldMap(query="instruction"))
    assert isinstance(instance, Instance) and instance.metadata == {"input": "data"}

    both = table(tmp_path / "both.csv", [["query", "output_1", "output_2", "response_a", "response_b"]])
    with pytest.raises(InputError, match="ambiguous") as caught:
        list(load_labelled(both))
    assert (caught.value.line, caught.value.field) == (1, "candidates")


def test_no_query_column_is_named(tmp_path: Path) -> None:
    path = table(tmp_path / "x.csv", [["text", "output_1", "output_2"], ["Q", "a", "b"]])
    with pytest.raises(InputError, match="no 'query' column") as caught:
        list(load_labelled(path))
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 1, "query")


# --- errors -------------------------------------------------------------------------------------


def test_csv_errors_name_file_line_and_source_column_and_the_rest_loads(tmp_path: Path) -> None:
    path = table(
        tmp_path / "bad.csv",
        [
            ["key", "instruction", "output_1", "output_2", "winner", "coh"],
            ["k1", "Q", "a", "b", "model_a", "4"],
            ["k2", "Q\nspanning\nlines", "a", "b", "model_c", "4"],
            ["k3", "Q", "a", "b", "tie", "high"],
            ["k4", "Q", "a"],
            ["k1", "Q", "a", "b", "model_b", "2"],
            [],
            ["k6", "Q", "a", "b", "model_b", "inf"],
            ["k7", "Q", "a", "b", "model_b", "1"],
        ],
    )
    fields = FieldMap(id="key", label_map=ARENA_MAP, scores={"coherence": "coh"})
    instances, errors = split(list(load_labelled(path, fields)))
    assert [i.id for i in instances] == ["k1", "k7"]
    assert [(e.path, e.line, e.field) for e in errors] == [
        (str(path), 3, "winner"),
        (str(path), 6, "coh"),
        (str(path), 7, "output_2"),
        (str(path), 8, "key"),
        (str(path), 10, "coh"),
    ]
    assert str(errors[0]) == (
        f"{path}:3: field 'winner': "
        "winner='model_c' is not in the label map {'model_a': 1, 'model_b': 2, 'tie': 0}"
    )
    assert errors[0].record_id == "k2"
    assert "the score 'high' is not a number" in errors[1].problem
    assert errors[2].problem == "the row has 3 fields, the header 6"
    assert errors[3].problem == "duplicate id 'k1' (first on line 2)"
    assert "not finite" in errors[4].problem


def test_jsonl_errors_name_file_line_and_source_column_and_the_rest_loads(tmp_path: Path) -> None:
    good = {"prompt": "Q", "response_a": "a", "response_b": "b", "winner": "model_a", "quality": 3}
    path = jsonl(
        tmp_path / "bad.jsonl",
        good,
        {**good, "winner": "model_c"},
        {**good, "winner": 3},
        {**good, "quality": "meh"},
        {key: value for key, value in good.items() if key != "quality"},
        {**good, "prompt": 5},
        "{nope",
        "[1]",
        "",
        {**good, "response_b": None},
        {**good, "winner": True},
        good,
    )
    fields = FieldMap(scores={"quality": "quality"})
    instances, errors = split(list(load_labelled(path, fields)))
    assert [i.id for i in instances] == ["1", "12"]
    assert [(e.line, e.field) for e in errors] == [
        (2, "winner"),
        (3, "winner"),
        (4, "quality"),
        (5, "quality"),
        (6, "prompt"),
        (7, None),
        (8, None),
        (10, "response_b"),
        (11, "winner"),
    ]
    assert all(e.path == str(path) for e in errors)
    problems = [e.problem for e in errors]
    assert problems[0].startswith("winner='model_c' is not a label")
    assert problems[1].startswith("label 3 is out of range")
    assert problems[2] == "the score 'meh' is not a number"
    assert problems[3] == "missing"
    assert problems[4] == "expected text, got a number"
    assert problems[5].startswith("not valid JSON")
    assert problems[6] == "expected a JSON object, got list"
    assert problems[7] == "expected text, got null"


def test_a_mapped_column_missing_from_the_header_is_a_file_error(tmp_path: Path) -> None:
    path = table(tmp_path / "h.csv", [["query", "output_1", "output_2"], ["Q", "a", "b"]])
    with pytest.raises(InputError) as caught:
        list(load_labelled(path, FieldMap(label="winner")))
    assert (caught.value.line, caught.value.field) == (1, "winner")
    assert "no such column; the header has: query, output_1, output_2" in caught.value.problem


def test_label_conventions(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "l.jsonl",
        *({"query": "Q", "output_1": "a", "output_2": "b", "winner": w} for w in (0, 1, "1", 1.0, "b", -1)),
    )
    zero_based = [getattr(x, "label", None) for x in load_labelled(path, FieldMap(label_base=0))]
    assert zero_based == [1, 2, 2, 2, 2, None]
    one_based = list(load_labelled(path))
    assert [getattr(x, "label", None) for x in one_based] == [0, 1, 1, 1, 2, None]
    assert isinstance(one_based[-1], InputError) and "negative" in one_based[-1].problem


def test_a_csv_label_with_a_zero_fraction_is_the_number_and_a_map_sees_labels_as_written(
    tmp_path: Path,
) -> None:
    rows = [["query", "output_1", "output_2", "winner"], ["Q", "a", "b", "2.0"], ["Q", "a", "b", "1"]]
    plain = table(tmp_path / "p.csv", rows)
    assert [getattr(x, "label", None) for x in load_labelled(plain)] == [2, 1]
    coded = table(
        tmp_path / "c.csv", [rows[0], ["Q", "a", "b", "01"], ["Q", "a", "b", "02"], ["Q", "a", "b", "1.50"]]
    )
    mapped = list(load_labelled(coded, parse_field_options([], label_map="01=1,02=2,1.50=0")))
    assert [getattr(x, "label", None) for x in mapped] == [1, 2, 0]
    two = table(tmp_path / "t.csv", [rows[0], ["Q", "a", "b", "2.0"]])
    assert [x.label for x in load_labelled(two, parse_field_options([], label_map="2=1"))] == [1]  # type: ignore[union-attr]


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot open"):
        list(load_labelled(tmp_path / "none.csv"))
    with pytest.raises(InputError, match="unknown format"):
        list(load_labelled(tmp_path / "data.xlsx"))
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="no header"):
        list(load_labelled(tmp_path / "empty.csv"))
    (tmp_path / "latin.csv").write_bytes("query,output_1,output_2\nQ,a,b\nQ,caf\xe9,b\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8") as caught:
        list(load_labelled(tmp_path / "latin.csv"))
    assert caught.value.line == 3
    twice = table(tmp_path / "twice.csv", [["query", "query", "candidates"]])
    with pytest.raises(InputError, match="twice") as caught:
        list(load_labelled(twice))
    assert caught.value.field == "query"


def test_a_large_csv_streams(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "instruction", "output_1", "output_2", "winner"])
        writer.writerows([f"r{i}", f"question {i}", "a", "b", "model_a"] for i in range(50_000))
    items = load_labelled(path)
    assert isinstance(items, types.GeneratorType)
    first = next(items)
    assert isinstance(first, Instance) and first.id == "r0"
    with path.open("r+b") as handle:  # a reader that had loaded the file would not notice this
        handle.truncate(100)
    assert sum(1 for _ in items) < 2_000

    path.write_text("id,instruction,output_1,output_2,winner\n", encoding="utf-8")
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines(f"r{i},q,a,b,model_b\n" for i in range(50_000))
    count = 0
    for item in load_labelled(path):
        assert isinstance(item, Instance)
        count += 1
    assert count == 50_000


# --- option strings -----------------------------------------------------------------------------


def test_parse_field_options() -> None:
    fields = parse_field_options(
        [
            "query=instruction",
            "candidates = output_1, output_2",
            "label=winner",
            "scores.coherence=coh",
            "scores=fluency,relevance",
            "metadata=judge,turn",
        ],
        label_map="model_a=1, model_b=2, tie=0",
        label_base=0,
    )
    assert fields == FieldMap(
        query="instruction",
        candidates=("output_1", "output_2"),
        label="winner",
        scores={"coherence": "coh", "fluency": "fluency", "relevance": "relevance"},
        metadata=("judge", "turn"),
        label_map=ARENA_MAP,
        label_base=0,
    )
    assert parse_field_options([]) == FieldMap()


@pytest.mark.parametrize(
    ("options", "label_map", "label_base", "message"),
    [
        (["query"], None, 1, "'query' is not FIELD=COLUMN"),
        (["query="], None, 1, "is not FIELD=COLUMN"),
        (["=col"], None, 1, "is not FIELD=COLUMN"),
        (["answer=col"], None, 1, "unknown field 'answer'"),
        (["query=a", "query=b"], None, 1, "query is mapped twice"),
        (["candidates=a,,b"], None, 1, "empty column name"),
        (["scores.=col"], None, 1, "names no aspect"),
        (["scores.x=a", "scores=x"], None, 1, "aspect 'x' is mapped twice"),
        ([], "model_a", 1, "'model_a' is not VALUE=LABEL"),
        ([], "model_a=first", 1, "'model_a=first' is not VALUE=LABEL"),
        ([], "a=1,a=2", 1, "lists 'a' twice"),
        ([], None, 2, "label base must be 0 or 1"),
        ([], {"a": -1}, 1, "bad field options"),
    ],
)
def test_malformed_options_are_config_errors(
    options: list[str], label_map: str | dict[str, int] | None, label_base: int, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_field_options(options, label_map=label_map, label_base=label_base)


def test_half_a_character_is_refused_with_its_line_or_record_and_field(tmp_path: Path) -> None:
    good = {"prompt": "Q", "response_a": "a", "response_b": "b", "winner": "model_a"}
    lines = jsonl(tmp_path / "set.jsonl", good, {**good, "response_b": "cut \ud83d"}, good)
    instances, errors = split(list(load_labelled(lines)))
    assert [i.id for i in instances] == ["1", "3"]
    assert [(e.line, e.field) for e in errors] == [(2, "response_b")]
    assert "holds half of a character" in errors[0].problem

    array = tmp_path / "set.json"
    array.write_text(json.dumps([good, {**good, "prompt": "\udc00"}, good]), encoding="utf-8")
    instances, errors = split(list(load_labelled(array)))
    assert [i.id for i in instances] == ["1", "3"]
    assert [(e.path, e.line, e.field) for e in errors] == [(str(array), 2, "prompt")]
    assert errors[0].problem.startswith("record 2: holds half of a character")
