"""Any summary shown as it is: keys and values, tables where values line up, metrics on one line."""

from __future__ import annotations

from faceteval.viewer import RecordView
from faceteval.viewer._result import headline, result_sections
from faceteval.viewer._summary import Pairs, Table, Text, block_of


def test_a_result_of_any_shape_becomes_keys_values_and_tables() -> None:
    result = {
        "systems": {"A": {"wins": 3, "losses": 1, "win_rate": {"value": 0.75, "ci": [0.3, 0.95], "n": 4}},
                    "B": {"wins": 1, "losses": 3, "win_rate": {"value": 0.25, "ci": [0.05, 0.7], "n": 4}}},
        "failures": {"parse_error": 1},
        "note": "first line\nsecond line",
        "ranking": [{"system": "A", "strength": 1.2}, {"system": "B", "strength": -1.2}],
        "facets": ["Clarity", "Accuracy"],
    }  # fmt: skip

    block = block_of(result)

    assert isinstance(block, Pairs)
    parts = dict(block.items)
    systems = parts["systems"]
    assert isinstance(systems, Table) and systems.columns == ["wins", "losses", "win_rate"]
    assert systems.rows[0][0] == "A" and systems.rows[0][1][2] == Text("0.75 [0.3, 0.95] (n = 4)", "number")
    assert isinstance(parts["ranking"], Table) and parts["ranking"].rows[1][1][0] == Text("B")
    assert parts["facets"] == Text("Clarity, Accuracy", "number")
    assert parts["note"] == Text("first line\nsecond line")


def test_deep_and_long_values_are_cut_short_and_say_so() -> None:
    deep: dict[str, object] = {"x": 1}
    for _ in range(8):
        deep = {"in": deep}
    block = block_of(deep)
    while isinstance(block, Pairs):
        block = block.items[0][1]
    assert (
        isinstance(block, Text) and block.kind == "json" and block.text == '{"in": {"in": {"in": {"x": 1}}}}'
    )
    assert block_of(list(range(250))).text.endswith(", 199 … and 50 more")


def test_a_record_s_result_comes_first_then_its_summary_and_llm_use() -> None:
    record = RecordView(
        "judge",
        data={"summary": {"judgments": {"ok": 3, "error": 1}, "result": {"A": 0.7}}, "spend": {"calls": 9}},
    )

    sections = result_sections(record)

    assert [s.title for s in sections] == ["Result", "Summary", "LLM use"]
    assert headline(record) == ["3 ok", "1 error"]
