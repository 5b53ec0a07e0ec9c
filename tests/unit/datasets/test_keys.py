"""Ids made of several fields (``id_fields``, ``--id``) and systems read from a field (``system_by``,
``--system-by``), by every reader: canonical JSONL, a CSV, records; and groups of instances by a key."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval.core import Instance
from faceteval.datasets import Reading, read_instances
from faceteval.datasets.internal import check_key, group_key, system_key
from faceteval.errors import ConfigError, InputError
from tests.support.files import write_jsonl


def test_a_composite_id_of_metadata_keys_in_canonical_jsonl(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "outputs.jsonl",
        [
            {"query": "q", "candidates": ["x"], "metadata": {"doc": "d1", "sys": "a"}},
            {"query": "q", "candidates": ["y"], "metadata": {"doc": "d1", "sys": 7}},
            {"query": "q", "candidates": ["z"], "metadata": {"doc": "d1", "sys": "a"}},
            {"query": "q", "candidates": ["w"], "metadata": {"doc": "d|2", "sys": "a"}},
            {"query": "q", "candidates": ["v"], "metadata": {"doc": "d3"}},
        ],
    )
    read = list(read_instances(path, id_fields="doc,sys"))

    assert [item.id for item in read[:2] if isinstance(item, Instance)] == ["d1|a", "d1|7"]
    duplicate, holding, missing = read[2:]
    assert isinstance(duplicate, InputError) and duplicate.line == 3 and duplicate.field == "doc,sys"
    assert "duplicate id 'd1|a' (first on line 1)" in str(duplicate)
    assert isinstance(holding, InputError) and holding.field == "doc" and "holds '|'" in str(holding)
    assert isinstance(missing, InputError) and missing.field == "sys"
    assert "missing: the id is made of doc,sys (--id)" in str(missing)


def test_a_composite_id_of_a_field_and_a_column_another_field_reads(tmp_path: Path) -> None:
    path = tmp_path / "pairs.csv"
    path.write_text("dataset,prompt,model,output\nmath,2+2?,m1,4\nmath,2+2?,m2,5\n", encoding="utf-8")
    fields = {"category": "dataset", "candidates": "output", "systems": "model"}
    read = list(read_instances(path, fields=fields, id_fields=["category", "model"]))

    assert [(i.id, i.systems) for i in read if isinstance(i, Instance)] == [
        ("math|m1", ("m1",)),
        ("math|m2", ("m2",)),
    ]


def test_systems_come_from_the_instance_then_system_by_then_the_names_given() -> None:
    rows = [
        {"prompt": "q", "output_1": "a", "output_2": "b", "systems": ["own1", "own2"], "models": "x"},
        {"prompt": "q", "output_1": "a", "output_2": "b", "models": ["m1", "m2"]},
        {"prompt": "q", "output_1": "a", "output_2": "b"},
        {"prompt": "q", "output_1": "a", "output_2": "b", "models": "one"},
    ]
    read = list(read_instances(rows, system_by="models", systems=["s1", "s2"]))

    assert [i.systems for i in read[:3] if isinstance(i, Instance)] == [
        ("own1", "own2"),
        ("m1", "m2"),
        ("s1", "s2"),
    ]
    wrong = read[3]
    assert isinstance(wrong, InputError) and wrong.field == "models"
    assert "names 1 system for 2 candidates" in str(wrong)


def test_the_reading_is_recorded_and_read_again_the_same() -> None:
    reading = Reading(id_fields=("doc", "system"), system_by="system")
    again = Reading.model_validate(reading.model_dump(mode="json", exclude_none=True))

    assert again == reading and not again.plain


def test_an_id_column_and_id_fields_together_are_refused() -> None:
    with pytest.raises(ConfigError, match="give one of them"):
        read_instances([{"query": "q", "candidates": ["a"]}], fields={"id": "key"}, id_fields="doc")
    with pytest.raises(ConfigError, match="name a field twice"):
        read_instances([{"query": "q", "candidates": ["a"]}], id_fields="doc,doc")


def test_groups_and_systems_by_key() -> None:
    one = Instance(id="1", query="q?", candidates=["a"], category="math", metadata={"doc": 3, "m": ["x"]})
    named = Instance(id="2", query="q?", candidates=["a"], systems=["own"], metadata={"m": "y"})

    assert [group_key(one, k) for k in ("category", "query", "doc", "topic")] == ["math", "q?", "3", None]
    assert (system_key(one, "m"), system_key(named, "m"), system_key(one, None)) == ("x", "own", None)
    check_key([named, one], "doc")  # one has it
    with pytest.raises(ConfigError, match=r"cannot group by 'topic'.*have: id, query, category, doc, m"):
        check_key([one], "topic")
    check_key([named], "model", "read the systems from", systems=True)  # every one names its own
